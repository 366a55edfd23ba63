package rpc

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/review"
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

// mutate changes one file under toolCallID as the tool layer does:
// durable intent, write, record.
func mutate(t *testing.T, store *review.Store, sessionID, toolCallID, path, display, content string) {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := review.Change{Path: path, Display: display, Before: before, BeforeExists: true, BeforeMode: 0o644, After: []byte(content), AfterExists: true, AfterMode: 0o644}
	txn, err := store.Begin(sessionID, toolCallID, "write", []review.Change{c})
	if err != nil {
		t.Fatal(err)
	}
	if err := workspace.WriteFile(path, c.After, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := txn.Commit(nil); err != nil {
		t.Fatal(err)
	}
}

func TestWithoutAReviewStoreThereAreNoReviewMethods(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	wantError(t, call(t, c, "review.list", ReviewListParams{SessionID: "s"}, nil), CodeMethodNotFound)
	var doc OpenRPC
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
	var ref SessionRef
	mustCall(t, c, "session.create", SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, &ref)
	path := filepath.Join(ref.Workspace, "a.txt")
	os.WriteFile(path, []byte("one\n"), 0o644)
	mutate(t, store, "s", "tc-1", path, "a.txt", "two\n")

	var list ReviewList
	mustCall(t, c, "review.list", ReviewListParams{SessionID: "s"}, &list)
	if len(list.Entries) != 1 || list.Entries[0].ToolCallID != "tc-1" || list.Entries[0].Change != "modify" || list.Entries[0].Path != "a.txt" {
		t.Fatalf("entries: %+v", list.Entries)
	}
	for _, p := range []string{"a.txt", path, "./a.txt"} {
		mustCall(t, c, "review.list", ReviewListParams{SessionID: "s", Path: p}, &list)
		if len(list.Entries) != 1 {
			t.Errorf("path %q finds %d entries", p, len(list.Entries))
		}
	}
	mustCall(t, c, "review.list", ReviewListParams{SessionID: "s", Path: "b.txt"}, &list)
	if list.Entries == nil || len(list.Entries) != 0 {
		t.Errorf("another path: %+v, want []", list.Entries)
	}

	// The session holds a tag for the content the call left.
	sess, _ := h.sess.Get("s")
	sess.State().Store.Record(path, session.Snapshot{Digest: workspace.Sum("two\n"), Text: "two\n", HasText: true, Lines: 1, Bytes: 4, Seen: session.Span(1, 1)})

	var res RollbackResult
	mustCall(t, c, "review.rollback", RollbackParams{SessionID: "s", ToolCallID: "tc-1"}, &res)
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
	wantError(t, call(t, c, "review.rollback", RollbackParams{SessionID: "s", ToolCallID: "tc-1"}, nil), CodeRollbackConflict, "already")
	wantError(t, call(t, c, "review.rollback", RollbackParams{SessionID: "s", ToolCallID: "tc-9"}, nil), CodeReviewNotFound, "tc-9", "review.list")
	wantError(t, call(t, c, "review.rollback", RollbackParams{SessionID: "gone", ToolCallID: "tc-1"}, nil), CodeSessionNotFound)

	var st Stats
	mustCall(t, c, "debug.stats", nil, &st)
	if st.Review == nil || st.Review.Entries != 1 {
		t.Errorf("debug.stats review: %+v", st.Review)
	}
}

func TestRollbackOfAChangedFileConflictsAndRestoresNothing(t *testing.T) {
	store, opt := withReview(t)
	h := newHarness(t, opt)
	c := h.client()
	var ref SessionRef
	mustCall(t, c, "session.create", SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, &ref)
	path := filepath.Join(ref.Workspace, "a.txt")
	os.WriteFile(path, []byte("one\n"), 0o644)
	mutate(t, store, "s", "tc-1", path, "a.txt", "two\n")
	os.WriteFile(path, []byte("someone else's work\n"), 0o644)

	wantError(t, call(t, c, "review.rollback", RollbackParams{SessionID: "s", ToolCallID: "tc-1"}, nil), CodeRollbackConflict, "a.txt", "nothing was restored")
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
	var ref SessionRef
	mustCall(t, caller, "session.create", SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, &ref)
	mustCall(t, watcher, "session.list", nil, &struct{}{}) // the watcher is connected
	path := filepath.Join(ref.Workspace, "a.txt")
	os.WriteFile(path, []byte("one\n"), 0o644)
	mutate(t, store, "s", "tc-9", path, "a.txt", "two\n")
	select {
	case req := <-n.ch:
		var got review.Recorded
		if req.Method != RecordedNotification || json.Unmarshal(*req.Params, &got) != nil {
			t.Fatalf("notification %s %s", req.Method, *req.Params)
		}
		if got.SessionID != "s" || got.ToolCallID != "tc-9" || len(got.Entries) != 1 || got.Entries[0].Change != "modify" {
			t.Fatalf("notification %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no review.recorded notification")
	}
}
