package rollback

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/filelock"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// Undo waits for the session's running mutation, restores, shows the
// paths as the session does, and leaves the session no tag of what the
// call left; an unknown call is named with the session and toolCallId.
func TestUndoForALiveSession(t *testing.T) {
	f := newFixture(t)
	root, err := filepath.EvalSymlinks(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	f.ws = root
	f.write("sub/a.txt", "old\n", 0o644)
	f.mutate("s1", "c", f.change("sub/a.txt", str("new\n")))
	ws, err := workspace.New(root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := session.NewManager(config.DefaultLimits()).Create("s1", ws)
	if err != nil {
		t.Fatal(err)
	}
	tag := workspace.Sum("new\n")
	sess.State().Store.Record(f.path("sub/a.txt"), session.Snapshot{Digest: tag, Text: "new\n", HasText: true, Lines: 1, Bytes: 4, Seen: session.Span(1, 1)})

	unlock := sess.LockMutations() // a tool of the session is writing
	done := make(chan struct{})
	var shown []string
	go func() {
		defer close(done)
		shown, err = Undo(context.Background(), Request{Store: f.store, Files: &filelock.Table{}, Session: sess, SessionID: "s1", ToolCallID: "c"})
	}()
	select {
	case <-done:
		t.Fatal("Undo ran while the session's mutation held its lock")
	case <-time.After(50 * time.Millisecond):
	}
	f.want("sub/a.txt", str("new\n"), 0o644)
	unlock()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(shown, []string{"sub/a.txt"}) {
		t.Errorf("shown %v, want the workspace-relative path", shown)
	}
	f.want("sub/a.txt", str("old\n"), 0o644)
	if why, ok := sess.State().Store.Forgotten(f.path("sub/a.txt"), tag.Tag()); !ok || !strings.Contains(why, "review.rollback c") {
		t.Errorf("the session's tag of the rolled-back content was not invalidated: %q %v", why, ok)
	}

	_, err = Undo(context.Background(), Request{Store: f.store, Session: sess, SessionID: "s1", ToolCallID: "nope"})
	if !errors.Is(err, review.ErrNotFound) || !strings.Contains(err.Error(), `toolCallId "nope"`) || !strings.Contains(err.Error(), "review.list") {
		t.Errorf("unknown call: %v", err)
	}
}

// For a session that is gone, the paths are shown as its records show
// them.
func TestUndoForASessionThatIsGone(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "old\n", 0o644)
	f.mutate("s1", "c", f.change("a.txt", str("new\n")))
	f.restart()
	shown, err := Undo(context.Background(), Request{Store: f.store, SessionID: "s1", ToolCallID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(shown, []string{"a.txt"}) {
		t.Errorf("shown %v, want the recorded display path", shown)
	}
	f.want("a.txt", str("old\n"), 0o644)
}
