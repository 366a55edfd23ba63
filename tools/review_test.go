package tools

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rollback"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// Every mutating tool goes through review: a write that creates, an edit
// that modifies, an MV (delete and create under one call) and a REM.
func TestMutationsAreReviewed(t *testing.T) {
	e := newEditEnv(t)
	var store *review.Store
	e.x, store = reviewedExecutor(t, e.m, e.lim)
	call := func(tool, id string, args map[string]string) Outcome {
		t.Helper()
		raw, _ := json.Marshal(args)
		out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: tool, Args: raw, ToolCallID: id})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Base().OK {
			t.Fatalf("%s: %s", tool, out.Base().Content)
		}
		return out
	}
	w := call("write", "c1", map[string]string{"path": "a.txt", "content": "one\ntwo\n"}).(*wire.WriteResult)
	ed := call("edit", "c2", map[string]string{"path": "a.txt", "tag": w.Tag, "ops": "PUT 2.=2:\n+TWO"}).(*wire.EditResult)
	mv := call("edit", "c3", map[string]string{"path": "a.txt", "tag": ed.Tag, "ops": "MV b.txt"}).(*wire.EditResult)
	call("edit", "c4", map[string]string{"path": "b.txt", "tag": mv.Tag, "ops": "REM"})

	entries, err := store.List(e.s.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, en := range entries {
		got = append(got, en.ToolCallID+":"+en.Tool+":"+en.Change+":"+en.Path)
	}
	want := []string{"c1:write:create:a.txt", "c2:edit:modify:a.txt", "c3:edit:delete:a.txt", "c3:edit:create:b.txt", "c4:edit:delete:b.txt"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("entries\n%v\nwant\n%v", got, want)
	}

	// Roll back newest first: the REM, then the MV pair, then the edit.
	for _, id := range []string{"c4", "c3", "c2"} {
		if _, err := rollback.Rollback(context.Background(), store, e.s.ID, id); err != nil {
			t.Fatalf("rollback %s: %v", id, err)
		}
	}
	wantFile(t, e, "a.txt", "one\ntwo\n")
	if e.exists("b.txt") {
		t.Fatal("the MV's destination survived its rollback")
	}
}

// A failed edit records nothing.
func TestFailedEditRecordsNoReview(t *testing.T) {
	e := newEditEnv(t)
	var store *review.Store
	e.x, store = reviewedExecutor(t, e.m, e.lim)
	e.write("f.txt", "a\n")
	wantCode(t, e.edit("f.txt", e.showAll("f.txt"), "PUT 1.=1:\n+a"), wire.ToolNoChange)
	if entries, _ := store.List(e.s.ID, ""); len(entries) != 0 {
		t.Fatalf("a failed edit was recorded: %+v", entries)
	}
}
