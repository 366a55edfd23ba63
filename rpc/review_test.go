package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rollback"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

func withReview(t *testing.T) (*review.Store, harnessOpt) {
	store, err := review.Open(t.TempDir(), config.DefaultLimits(), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store, func(o *Options) { o.Review = store }
}

// mutate changes one file under toolCallID as the tool layer does,
// through review's one change API.
func mutate(t *testing.T, store *review.Store, sessionID, toolCallID, path, display, content string) {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := resolveIn(t, filepath.Dir(path), path)
	if p.Display != display {
		t.Fatalf("%s shows as %q, want %q", path, p.Display, display)
	}
	call := review.Call{Session: sessionID, ToolCallID: toolCallID, Tool: "write", Workspace: filepath.Dir(path), MaxLanded: 1 << 20}
	if _, err := store.Apply(call, []review.Edit{{Path: p, Before: before, Existed: true, Mode: 0o644, After: []byte(content)}}); err != nil {
		t.Fatal(err)
	}
}

// resolveIn resolves path for writing in a workspace rooted at root.
func resolveIn(t *testing.T, root, path string) workspace.Path {
	t.Helper()
	ws, err := workspace.New(root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ws.Resolve(path, workspace.Write)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWithoutAReviewStoreThereAreNoReviewMethods(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	wantError(t, call(t, c, "review.list", wire.ReviewListParams{SessionID: "s"}, nil), wire.CodeMethodNotFound)
	var doc wire.OpenRPC
	mustCall(t, c, "rpc.discover", nil, &doc)
	for _, m := range doc.Methods {
		if m.Name == "review.list" || m.Name == "review.rollback" {
			t.Errorf("%s documented without a review store", m.Name)
		}
	}
}

func TestReviewListAndRollback(t *testing.T) {
	store, opt := withReview(t)
	h := newHarness(t, opt)
	c := h.client()
	var ref wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, &ref)
	path := filepath.Join(ref.Workspace, "a.txt")
	os.WriteFile(path, []byte("one\n"), 0o644)
	mutate(t, store, "s", "tc-1", path, "a.txt", "two\n")

	var list wire.ReviewList
	mustCall(t, c, "review.list", wire.ReviewListParams{SessionID: "s"}, &list)
	if len(list.Entries) != 1 || list.Entries[0].ToolCallID != "tc-1" || list.Entries[0].Change != "modify" || list.Entries[0].Path != "a.txt" {
		t.Fatalf("entries: %+v", list.Entries)
	}
	for _, p := range []string{"a.txt", path, "./a.txt"} {
		mustCall(t, c, "review.list", wire.ReviewListParams{SessionID: "s", Path: p}, &list)
		if len(list.Entries) != 1 {
			t.Errorf("path %q finds %d entries", p, len(list.Entries))
		}
	}
	mustCall(t, c, "review.list", wire.ReviewListParams{SessionID: "s", Path: "b.txt"}, &list)
	if list.Entries == nil || len(list.Entries) != 0 {
		t.Errorf("another path: %+v, want []", list.Entries)
	}

	// The session holds a tag for the content the call left.
	sess, _ := h.sess.Get("s")
	sess.State().Store.Record(path, session.Snapshot{Digest: workspace.Sum("two\n"), Text: "two\n", HasText: true, Lines: 1, Bytes: 4, Seen: session.Span(1, 1)})

	var res wire.RollbackResult
	mustCall(t, c, "review.rollback", wire.RollbackParams{SessionID: "s", ToolCallID: "tc-1"}, &res)
	if !slices.Equal(res.Restored, []string{"a.txt"}) {
		t.Errorf("restored %v", res.Restored)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Errorf("file holds %q after rollback", b)
	}
	if known, _ := sess.State().Store.Minted(path, workspace.Sum("two\n").Tag(), workspace.Sum("two\n"), 1); known {
		t.Error("the session still honours a tag minted before the rollback")
	}
	// An edit with that tag is told the version was rolled back, not that
	// the session never read it.
	if why, ok := sess.State().Store.Forgotten(path, workspace.Sum("two\n").Tag()); !ok || !strings.Contains(why, "rolled back") || !strings.Contains(why, "tc-1") {
		t.Errorf("the store does not say the tag was rolled back: %q %v", why, ok)
	}
	wantError(t, call(t, c, "review.rollback", wire.RollbackParams{SessionID: "s", ToolCallID: "tc-1"}, nil), wire.CodeRollbackConflict, "already")
	wantError(t, call(t, c, "review.rollback", wire.RollbackParams{SessionID: "s", ToolCallID: "tc-9"}, nil), wire.CodeReviewNotFound, "tc-9", "review.list")
	wantError(t, call(t, c, "review.rollback", wire.RollbackParams{SessionID: "gone", ToolCallID: "tc-1"}, nil), wire.CodeSessionNotFound)

	var st wire.Stats
	mustCall(t, c, "debug.stats", nil, &st)
	if st.Review == nil || st.Review.Entries != 1 {
		t.Errorf("debug.stats review: %+v", st.Review)
	}
}

func TestRollbackOfAChangedFileConflictsAndRestoresNothing(t *testing.T) {
	store, opt := withReview(t)
	h := newHarness(t, opt)
	c := h.client()
	var ref wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, &ref)
	path := filepath.Join(ref.Workspace, "a.txt")
	os.WriteFile(path, []byte("one\n"), 0o644)
	mutate(t, store, "s", "tc-1", path, "a.txt", "two\n")
	os.WriteFile(path, []byte("someone else's work\n"), 0o644)

	wantError(t, call(t, c, "review.rollback", wire.RollbackParams{SessionID: "s", ToolCallID: "tc-1"}, nil), wire.CodeRollbackConflict, "a.txt", "nothing was restored")
	if b, _ := os.ReadFile(path); string(b) != "someone else's work\n" {
		t.Errorf("a conflicting rollback overwrote the file: %q", b)
	}
}

// notes collects the notifications a client receives.
type notes struct{ ch chan *jsonrpc2.Request }

func (n notes) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		n.ch <- req
	}
}

// Every connected client hears review.recorded when a call's changes are
// recorded, including clients other than the caller.
func TestReviewRecordedNotification(t *testing.T) {
	store, opt := withReview(t)
	h := newHarness(t, opt)
	caller := h.client()
	n := notes{ch: make(chan *jsonrpc2.Request, 4)}
	nc, err := net.Dial("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	watcher := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), n)
	defer watcher.Close()
	var ref wire.SessionRef
	mustCall(t, caller, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, &ref)
	mustCall(t, watcher, "session.list", nil, &struct{}{}) // the watcher is connected
	path := filepath.Join(ref.Workspace, "a.txt")
	os.WriteFile(path, []byte("one\n"), 0o644)
	mutate(t, store, "s", "tc-9", path, "a.txt", "two\n")
	select {
	case req := <-n.ch:
		var got wire.ReviewRecorded
		if req.Method != wire.RecordedNotification || json.Unmarshal(*req.Params, &got) != nil {
			t.Fatalf("notification %s %s", req.Method, *req.Params)
		}
		if got.SessionID != "s" || got.ToolCallID != "tc-9" || len(got.Entries) != 1 || got.Entries[0].Change != "modify" {
			t.Fatalf("notification %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no review.recorded notification")
	}
}

// A rollback that fails on I/O is ROLLBACK_CONFLICT naming the cause, not
// INTERNAL_ERROR: here the call deleted dir/a.txt, and since then a file
// took the place of dir, so the path cannot even be checked.
func TestRollbackIOFailureIsRollbackConflictWithTheCause(t *testing.T) {
	store, opt := withReview(t)
	h := newHarness(t, opt)
	c := h.client()
	var ref wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, &ref)
	dir := filepath.Join(ref.Workspace, "dir")
	path := filepath.Join(dir, "a.txt")
	os.Mkdir(dir, 0o755)
	os.WriteFile(path, []byte("one\n"), 0o644)
	rem := review.Edit{Path: resolveIn(t, ref.Workspace, path), Before: []byte("one\n"), Existed: true, Mode: 0o644, Remove: true}
	if _, err := store.Apply(review.Call{Session: "s", ToolCallID: "tc-1", Tool: "edit", Workspace: ref.Workspace}, []review.Edit{rem}); err != nil {
		t.Fatal(err)
	}
	os.Remove(dir)
	os.WriteFile(dir, []byte("a file where the directory was\n"), 0o644)

	wantError(t, call(t, c, "review.rollback", wire.RollbackParams{SessionID: "s", ToolCallID: "tc-1"}, nil), wire.CodeRollbackConflict, "dir/a.txt", "not a directory", "nothing was restored")
}

// The errors a rollback stops on map to ROLLBACK_CONFLICT, whatever
// wraps them.
func TestRollbackFailuresMapToRollbackConflict(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("%w: restoring a.txt: %w", rollback.ErrFailed, syscall.EIO),
		fmt.Errorf("%w: restoring a.txt failed and putting back failed too", rollback.ErrIncomplete),
	} {
		got, known := toWire(err)
		if got.Code != wire.CodeRollbackConflict.Num || !known {
			t.Errorf("toWire(%v) = %d (known %v), want %d", err, got.Code, known, wire.CodeRollbackConflict.Num)
		}
	}
}

// A review store found damaged at start says so in host.info and in
// debug.stats; a healthy one adds nothing to host.info.
func TestHostInfoAndStatsReportARecoveredStore(t *testing.T) {
	_, opt := withReview(t)
	var info wire.HostInfo
	mustCall(t, newHarness(t, opt).client(), "host.info", nil, &info)
	if info.Review != nil {
		t.Errorf("a healthy store reports %+v", info.Review)
	}

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, review.FileName), []byte("damaged"), 0o600)
	store, err := review.Open(dir, config.DefaultLimits(), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	c := newHarness(t, func(o *Options) { o.Review = store }).client()
	mustCall(t, c, "host.info", nil, &info)
	if info.Review == nil || info.Review.Recovered == nil || filepath.Dir(info.Review.Recovered.From) != dir || info.Review.Recovered.Reason == "" {
		t.Fatalf("host.info review = %+v, want the recovery", info.Review)
	}
	var st wire.Stats
	mustCall(t, c, "debug.stats", nil, &st)
	if st.Review == nil || st.Review.Recovered == nil || st.Review.Recovered.From != info.Review.Recovered.From {
		t.Errorf("debug.stats review = %+v, want the recovery", st.Review)
	}
}

// The desktop issue's durable records: after a restart (here the session
// is deleted, as a restart ends it) the person at the desk still lists the
// sessions with records, their entries, and rolls a call back; the
// restore is confined to the root recorded with the entry.
func TestReviewOfASessionThatIsGone(t *testing.T) {
	store, opt := withReview(t)
	h := newHarness(t, opt)
	c := h.client()
	var ref wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "yesterday"}, &ref)
	path := filepath.Join(ref.Workspace, "a.txt")
	os.WriteFile(path, []byte("one\n"), 0o644)
	mutate(t, store, "yesterday", "tc-1", path, "a.txt", "two\n")
	mustCall(t, c, "session.delete", map[string]any{"sessionId": "yesterday"}, nil)

	var sums wire.ReviewSessions
	mustCall(t, c, "review.sessions", nil, &sums)
	if len(sums.Sessions) != 1 || sums.Sessions[0].SessionID != "yesterday" || sums.Sessions[0].Workspace != ref.Workspace || sums.Sessions[0].Entries != 1 || sums.Sessions[0].Calls != 1 {
		t.Fatalf("review.sessions: %+v", sums.Sessions)
	}
	var list wire.ReviewList
	mustCall(t, c, "review.list", wire.ReviewListParams{SessionID: "yesterday"}, &list)
	if len(list.Entries) != 1 || list.Entries[0].ToolCallID != "tc-1" {
		t.Fatalf("review.list of a session that is gone: %+v", list.Entries)
	}
	var res wire.RollbackResult
	mustCall(t, c, "review.rollback", wire.RollbackParams{SessionID: "yesterday", ToolCallID: "tc-1"}, &res)
	if !slices.Equal(res.Restored, []string{"a.txt"}) {
		t.Errorf("restored %v", res.Restored)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Errorf("file holds %q after the rollback", b)
	}
	wantError(t, call(t, c, "review.list", wire.ReviewListParams{SessionID: "never"}, nil), wire.CodeSessionNotFound, "review.sessions")
}
