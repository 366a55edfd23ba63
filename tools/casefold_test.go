package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/exfattest"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// The case-insensitive filesystem issue: on exFAT (as on APFS and NTFS by
// default) Shared.txt, shared.txt and SHARED.TXT are one file. Sessions
// reading and editing it through different spellings at once lose no
// update, each session keeps one snapshot history for it (a tag read
// through one spelling is taken by an edit through another), every
// review entry joins one chain under the stored name, and the file keeps
// its name: no write renames it to the spelling it was given.
func TestSpellingsOfOneFileShareItsLockSnapshotsAndReview(t *testing.T) {
	mnt := exfattest.Mount(t)
	root := filepath.Join(mnt, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	sessions := stressSize(4, 8)
	rounds := stressSize(6, 100)
	var init strings.Builder
	for i := range sessions {
		fmt.Fprintf(&init, "line %d\n", i+1)
	}
	if err := os.WriteFile(filepath.Join(root, "Shared.txt"), []byte(init.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	initial := sha(init.String())

	lim := config.DefaultLimits()
	m := session.NewManager(lim)
	x, store := reviewedExecutor(t, m, lim)
	ss := make([]*session.Session, sessions)
	for i := range ss {
		// Each session names the root in its own case too.
		ws, err := workspace.New(filepath.Join(mnt, []string{"ws", "WS", "Ws", "wS"}[i%4]), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if ss[i], err = m.Create("", ws); err != nil {
			t.Fatal(err)
		}
	}
	spellings := []string{"Shared.txt", "shared.txt", "SHARED.TXT", "sHaReD.tXt", "SHARED.txt"}
	lastOK := make([]string, sessions)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, s := range ss {
		wg.Go(func() {
			<-start
			line := i + 1
			call := func(tool, id string, args map[string]any) Outcome {
				raw, _ := json.Marshal(args)
				out, err := x.Execute(context.Background(), Request{SessionID: s.ID, Tool: tool, Args: raw, ToolCallID: id})
				if err != nil {
					t.Error(err)
					return nil
				}
				return out
			}
			for r := range rounds {
				// Read through one spelling; edit through the same one
				// (even rounds: the sessions' spellings race on the file
				// lock) or the next (odd rounds: one snapshot history).
				rd, ok := call("read", "", map[string]any{"path": spellings[(i+r)%len(spellings)]}).(*wire.ReadResult)
				if !ok || !rd.OK {
					t.Errorf("session %d: read failed: %+v", i, rd)
					return
				}
				if rd.Path != "Shared.txt" {
					t.Errorf("read shows the file as %s, want the stored Shared.txt", rd.Path)
				}
				text := fmt.Sprintf("line %d by %s round %d", line, s.ID, r)
				id := fmt.Sprintf("%s-r%d", s.ID, r)
				path := spellings[(i+r+r%2)%len(spellings)]
				ed, ok := call("edit", id, map[string]any{"path": path, "tag": rd.Tag, "ops": fmt.Sprintf("PUT %d.=%d:\n+%s", line, line, text)}).(*wire.EditResult)
				if !ok {
					return
				}
				if ed.OK {
					lastOK[i] = text
				} else if ed.Error.Code != wire.ToolTagMismatch {
					t.Errorf("session %d round %d via %s: %s: %s", i, r, path, ed.Error.Code, ed.Content)
				}
			}
		})
	}
	close(start)
	wg.Wait()

	raw, err := os.ReadFile(filepath.Join(root, "Shared.txt"))
	if err != nil {
		t.Fatal(err)
	}
	final := string(raw)
	lines := strings.Split(strings.TrimSuffix(final, "\n"), "\n")
	if len(lines) != sessions {
		t.Fatalf("the file has %d lines, want %d:\n%s", len(lines), sessions, final)
	}
	for i, want := range lastOK {
		if want != "" && lines[i] != want {
			t.Errorf("line %d is %q, but the edit that answered ok last wrote %q: an update was lost", i+1, lines[i], want)
		}
	}

	var all []review.Entry
	for i, s := range ss {
		es, err := store.List(s.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, es...)
		if n := s.Info().Paths; n != 1 {
			t.Errorf("session %d holds snapshots under %d paths, want one for the one file", i, n)
		}
	}
	if len(all) == 0 {
		t.Fatal("no edit landed")
	}
	slices.SortFunc(all, func(a, b review.Entry) int { return entrySeq(a) - entrySeq(b) })
	prev := initial
	for _, en := range all {
		if en.Path != "Shared.txt" {
			t.Errorf("review entry %s names %s, want the stored Shared.txt", en.ID, en.Path)
		}
		if en.BeforeSHA256 != prev {
			t.Fatalf("review chain broken at %s (%s): before %.12s, the previous entry left %.12s", en.ID, en.ToolCallID, en.BeforeSHA256, prev)
		}
		prev = en.AfterSHA256
	}
	if prev != sha(final) {
		t.Fatalf("the last review entry left %.12s, the file is %.12s", prev, sha(final))
	}

	// A whole-file write through yet another spelling keeps the name too.
	raw2, _ := json.Marshal(map[string]any{"path": "SHARED.TXT", "content": "rewritten\n"})
	out, err := x.Execute(context.Background(), Request{SessionID: ss[0].ID, Tool: "write", Args: raw2})
	if err != nil {
		t.Fatal(err)
	}
	if w := out.(*wire.WriteResult); !w.OK || w.Path != "Shared.txt" {
		t.Fatalf("write through SHARED.TXT: ok=%v path=%s %+v", w.OK, w.Path, w.Error)
	}
	// Listed, not looked up: FUSE answers a lookup of any spelling from
	// its cache, a listing from the disk.
	d, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"Shared.txt"}) {
		t.Fatalf("the workspace holds %q, want only Shared.txt: a write renamed the file or left a temporary file", names)
	}
	t.Logf("%d sessions x %d rounds through %d spellings: %d edits landed", sessions, rounds, len(spellings), len(all))
}
