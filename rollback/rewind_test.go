package rollback

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// turn records a prompt's call as the tools do.
func (f *fixture) turn(session, prompt, callID string, edits ...review.Edit) {
	f.t.Helper()
	f.apply(review.Call{Session: session, ToolCallID: callID, Tool: "edit", PromptID: prompt}, edits)
}

func (f *fixture) rewind(sel review.Selection, dry bool, resolve string) (wire.RewindResult, error) {
	return Rewind(context.Background(), RewindRequest{Store: f.store, SessionID: "s", Selection: sel, DryRun: dry, Resolve: resolve})
}

// A turn's calls over several files, a creation and a removal among them,
// come undone in one call, and only that turn's: the next turn stays.
func TestRewindTurn(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "one\ntwo\nthree\n", 0o644)
	f.write("b.txt", "bee\n", 0o644)
	f.turn("s", "p1", "c1", f.change("a.txt", str("one\nTWO\nthree\n")))
	f.turn("s", "p1", "c2", f.change("new.txt", str("fresh\n")))
	f.turn("s", "p1", "c3", f.change("a.txt", str("ONE\nTWO\nthree\n")), f.change("b.txt", nil))
	f.turn("s", "p2", "c4", f.change("c.txt", str("later\n")))

	rep, err := f.rewind(review.Selection{PromptID: "p1"}, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.DryRun || rep.Conflicts != 0 || len(rep.Files) != 3 || strings.Join(rep.Calls, ",") != "c3,c2,c1" {
		t.Fatalf("preview: %+v", rep)
	}
	f.want("a.txt", str("ONE\nTWO\nthree\n"), 0o644) // a preview writes nothing
	if _, err := f.rewind(review.Selection{PromptID: "p1"}, false, ""); err != nil {
		t.Fatal(err)
	}
	f.want("a.txt", str("one\ntwo\nthree\n"), 0o644)
	f.want("b.txt", str("bee\n"), 0o644)
	f.want("new.txt", nil, 0)
	f.want("c.txt", str("later\n"), 0o644)
	f.restart()
	for _, id := range []string{"c1", "c2", "c3"} {
		for _, rb := range f.rolledBack("s", id) {
			if !rb {
				t.Errorf("%s not rolled back after a restart", id)
			}
		}
	}
	if _, err := f.rewind(review.Selection{PromptID: "p1"}, false, ""); !errors.Is(err, review.ErrNothingToRewind) {
		t.Errorf("second rewind: %v", err)
	}
}

// The person's edit on other lines is kept by merge, refused with the
// lines when it overlaps, left by keepTheirs, and overwritten by force
// with a record whose rollback brings it back.
func TestRewindConflictChoices(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", 0o644)
	f.write("b.txt", "bee\n", 0o644)
	f.turn("s", "p1", "c1", f.change("a.txt", str("1\nTWO\n3\n4\n5\n6\n7\n8\n9\n")), f.change("b.txt", str("BEE\n")))
	f.write("a.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\nNINE\n", 0o644) // the person, on another line

	_, err := f.rewind(review.Selection{PromptID: "p1"}, false, "")
	var ce *RewindConflictError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "a.txt") || !strings.Contains(err.Error(), "keepTheirs, merge, force") {
		t.Fatalf("unresolved: %v", err)
	}
	f.want("b.txt", str("BEE\n"), 0o644)
	if _, err := f.rewind(review.Selection{PromptID: "p1"}, false, Merge); err != nil {
		t.Fatal(err)
	}
	f.want("a.txt", str("1\n2\n3\n4\n5\n6\n7\n8\nNINE\n"), 0o644)
	f.want("b.txt", str("bee\n"), 0o644)

	f.turn("s", "p2", "c2", f.change("a.txt", str("1\n2\n3\nFOUR\n5\n6\n7\n8\nNINE\n")))
	f.write("a.txt", "1\n2\n3\nfour!\n5\n6\n7\n8\nNINE\n", 0o644) // the same line
	_, err = f.rewind(review.Selection{PromptID: "p2"}, false, Merge)
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "four!") || !strings.Contains(err.Error(), "FOUR") {
		t.Fatalf("overlapping merge: %v", err)
	}
	f.want("a.txt", str("1\n2\n3\nfour!\n5\n6\n7\n8\nNINE\n"), 0o644)
	rep, err := f.rewind(review.Selection{PromptID: "p2"}, false, Force)
	if err != nil || rep.Recorded == "" {
		t.Fatalf("force: %+v %v", rep, err)
	}
	f.want("a.txt", str("1\n2\n3\n4\n5\n6\n7\n8\nNINE\n"), 0o644)
	if _, err := Rollback(context.Background(), f.store, "s", rep.Recorded); err != nil {
		t.Fatal(err)
	}
	f.want("a.txt", str("1\n2\n3\nfour!\n5\n6\n7\n8\nNINE\n"), 0o644)
}

// resolveFiles gives each conflicted file its own way forward; a file the
// rewind does not touch is a bad request, and nothing is written.
func TestRewindResolvePerFile(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "1\n2\n3\n4\n5\n6\n", 0o644)
	f.write("b.txt", "1\n2\n3\n", 0o644)
	f.turn("s", "p", "c1", f.change("a.txt", str("1\nTWO\n3\n4\n5\n6\n")), f.change("b.txt", str("1\nTWO\n3\n")))
	f.write("a.txt", "1\nTWO\n3\n4\n5\nsix\n", 0o644)
	f.write("b.txt", "1\ntwo!\n3\n", 0o644)
	req := RewindRequest{Store: f.store, SessionID: "s", Selection: review.Selection{PromptID: "p"}, ResolveFiles: map[string]string{"x.txt": Force}}
	if _, err := Rewind(context.Background(), req); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("a file the rewind does not touch: %v", err)
	}
	req.ResolveFiles = map[string]string{"a.txt": Merge, "b.txt": KeepTheirs}
	rep, err := Rewind(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files[0].Action != "merge" || rep.Files[1].Action != "keep" {
		t.Errorf("actions %s, %s", rep.Files[0].Action, rep.Files[1].Action)
	}
	f.want("a.txt", str("1\n2\n3\n4\n5\nsix\n"), 0o644)
	f.want("b.txt", str("1\ntwo!\n3\n"), 0o644)
}
