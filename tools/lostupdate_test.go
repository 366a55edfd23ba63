package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// stressSize is n in CI and long when HOSTD_STRESS=long (docs/stress.md).
func stressSize(ci, long int) int {
	if os.Getenv("HOSTD_STRESS") == "long" {
		return long
	}
	return ci
}

// The hardening issue's lost update: many sessions read one file, get the
// same tag, and edit different lines at once. Every edit answered ok must
// be in the final bytes, and the review chain of the file must be
// unbroken: each entry's before is the previous entry's after. Before the
// per-file lock, both edits of a race answered ok and one was lost.
func TestConcurrentSessionsLoseNoUpdate(t *testing.T) {
	sessions := stressSize(8, 16)
	rounds := stressSize(12, 200)
	e := newEditEnv(t)
	var store *review.Store
	e.x, store = reviewedExecutor(t, e.m, e.lim)

	var init strings.Builder
	for i := range sessions {
		fmt.Fprintf(&init, "line %d\n", i+1)
	}
	e.write("shared.txt", init.String())
	initial := sha(e.file("shared.txt"))

	ss := make([]*session.Session, sessions)
	for i := range ss {
		s, err := e.m.Create("", e.s.State().Workspace)
		if err != nil {
			t.Fatal(err)
		}
		ss[i] = s
	}
	lastOK := make([]string, sessions)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, s := range ss {
		wg.Go(func() {
			<-start
			line := i + 1
			call := func(tool, id string, args map[string]any) Outcome {
				raw, _ := json.Marshal(args)
				out, err := e.x.Execute(context.Background(), Request{SessionID: s.ID, Tool: tool, Args: raw, ToolCallID: id})
				if err != nil {
					t.Error(err)
					return nil
				}
				return out
			}
			for r := range rounds {
				rd, ok := call("read", "", map[string]any{"path": "shared.txt"}).(*wire.ReadResult)
				if !ok || !rd.OK {
					t.Errorf("session %d: read failed", i)
					return
				}
				text := fmt.Sprintf("line %d by %s round %d", line, s.ID, r)
				id := fmt.Sprintf("%s-r%d", s.ID, r)
				ed, ok := call("edit", id, map[string]any{"path": "shared.txt", "tag": rd.Tag, "ops": fmt.Sprintf("PUT %d.=%d:\n+%s", line, line, text)}).(*wire.EditResult)
				if !ok {
					return
				}
				if ed.OK {
					lastOK[i] = text
				} else if ed.Error.Code != wire.ToolTagMismatch {
					t.Errorf("session %d round %d: %s: %s", i, r, ed.Error.Code, ed.Content)
				}
			}
		})
	}
	close(start)
	wg.Wait()

	final := e.file("shared.txt")
	lines := strings.Split(strings.TrimSuffix(final, "\n"), "\n")
	if len(lines) != sessions {
		t.Fatalf("the file has %d lines, want %d:\n%s", len(lines), sessions, final)
	}
	for i, want := range lastOK {
		if want != "" && lines[i] != want {
			t.Errorf("line %d is %q, but the edit that answered ok last wrote %q: an update was lost", i+1, lines[i], want)
		}
	}

	// The review chain across every session, in the order recorded.
	var all []review.Entry
	for _, s := range ss {
		es, err := store.List(s.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, es...)
	}
	slices.SortFunc(all, func(a, b review.Entry) int { return entrySeq(a) - entrySeq(b) })
	prev := initial
	for _, en := range all {
		if en.BeforeSHA256 != prev {
			t.Fatalf("review chain broken at %s (%s): before %.12s, the previous entry left %.12s", en.ID, en.ToolCallID, en.BeforeSHA256, prev)
		}
		prev = en.AfterSHA256
	}
	if prev != sha(final) {
		t.Fatalf("the last review entry left %.12s, the file is %.12s", prev, sha(final))
	}
	t.Logf("%d sessions x %d rounds: %d edits landed", sessions, rounds, len(all))
}

func entrySeq(e review.Entry) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(e.ID, "rv-"))
	return n
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// Another process writes the file after the edit's gates passed and
// before its rename: the edit is refused with EDIT_TAG_MISMATCH and the
// live tag, the other process's bytes stay, and nothing is recorded.
func TestEditRefusesAFileChangedRightBeforeTheRename(t *testing.T) {
	e := newEditEnv(t)
	var store *review.Store
	e.x, store = reviewedExecutor(t, e.m, e.lim)
	e.write("a.txt", "one\ntwo\n")
	tag := e.showAll("a.txt")
	testHookBeforeApply = func() { e.write("a.txt", "one\nTWO by another program\n") }
	defer func() { testHookBeforeApply = nil }()
	r := e.edit("a.txt", tag, "PUT 1.=1:\n+ONE")
	if r.OK || r.Error.Code != wire.ToolTagMismatch {
		t.Fatalf("got ok=%v %+v, want EDIT_TAG_MISMATCH", r.OK, r.Error)
	}
	live := e.file("a.txt")
	if live != "one\nTWO by another program\n" {
		t.Fatalf("the other program's bytes were replaced: %q", live)
	}
	d, _ := r.Error.Details.(wire.TagMismatchDetails)
	if d.LiveTag != workspaceTag(live) || d.Context != nil {
		t.Fatalf("details %v, want liveTag %s", r.Error.Details, workspaceTag(live))
	}
	if es, _ := store.List(e.s.ID, ""); len(es) != 0 {
		t.Fatalf("%d review entries for an edit that did not land", len(es))
	}
}

func workspaceTag(s string) string {
	t, err := workspace.Decode([]byte(s))
	if err != nil {
		panic(err)
	}
	return workspace.Sum(t.Body).Tag()
}
