package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rollback"
	"github.com/hostd-dev/hostd/rpc/wire"
)

const outsideMarker = "OUTSIDE-SECRET"

// snapshotTree maps every path under dir to its content ("<dir>" for a
// directory), to compare before and after.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel] = "<dir>"
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = string(b)
		return nil
	})
	return out
}

// The hardening issue's confinement race: a process renames a workspace
// directory and puts a symlink to outside in its place, and back, as fast
// as it can, while sessions read, grep, write, edit, MV, REM and roll
// back files in it. Nothing outside may be written, created or deleted,
// and no outside bytes may be shown; no temp file may be left behind.
// Before every operation went through the workspace's open root, edits
// overwrote outside files, REM deleted them and reads returned them.
func TestSymlinkSwapRaceStaysInside(t *testing.T) {
	dur := time.Duration(stressSize(2, 60)) * time.Second
	if testing.Short() {
		dur = 500 * time.Millisecond
	}
	e := newEditEnv(t)
	var store *review.Store
	e.x, store = reviewedExecutor(t, e.m, e.lim)

	outside := t.TempDir()
	for i := range 8 {
		os.WriteFile(filepath.Join(outside, fmt.Sprintf("f%d.txt", i)), []byte(outsideMarker+"\nline two\n"), 0o644)
	}
	before := snapshotTree(t, outside)

	sub := filepath.Join(e.root, "sub")
	for i := range 8 {
		e.write(fmt.Sprintf("sub/f%d.txt", i), "inside\nline two\n")
	}

	stop := make(chan struct{})
	var swaps atomic.Int64
	var swapper sync.WaitGroup
	swapper.Go(func() {
		runtime.LockOSThread()
		aside := filepath.Join(e.root, "sub.aside")
		for {
			select {
			case <-stop:
				return
			default:
			}
			if os.Rename(sub, aside) == nil {
				os.Symlink(outside, sub)
				swaps.Add(1)
				os.Remove(sub)
				os.Rename(aside, sub)
			}
		}
	})

	var shownOutside, calls atomic.Int64
	var wg sync.WaitGroup
	// Run for dur, and on a loaded machine on until the swapper has
	// swapped often enough for the race to be tried (at most 4 x dur).
	deadline, hard := time.Now().Add(dur), time.Now().Add(4*dur)
	const minSwaps = 300
	running := func() bool {
		now := time.Now()
		return now.Before(deadline) || (swaps.Load() < minSwaps && now.Before(hard))
	}
	for w := range 4 {
		s, err := e.m.Create("", e.s.State().Workspace)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			n := 0
			call := func(tool, id string, args map[string]any) Outcome {
				raw, _ := json.Marshal(args)
				out, err := e.x.Execute(context.Background(), Request{SessionID: s.ID, Tool: tool, Args: raw, ToolCallID: id})
				if err != nil {
					t.Error(err)
					return nil
				}
				calls.Add(1)
				b, _ := json.Marshal(out)
				if strings.Contains(string(b), outsideMarker) {
					shownOutside.Add(1)
				}
				return out
			}
			for running() {
				n++
				f := fmt.Sprintf("sub/f%d.txt", (w+n)%8)
				id := fmt.Sprintf("%s-%d", s.ID, n)
				if n%8 == 0 {
					call("grep", "", map[string]any{"pattern": "line", "path": "sub"})
				}
				rd, _ := call("read", "", map[string]any{"path": f}).(*wire.ReadResult)
				if rd == nil || !rd.OK {
					call("write", id+"w", map[string]any{"path": f, "content": "inside\nline two\n"})
					continue
				}
				switch n % 4 {
				case 0:
					call("write", id, map[string]any{"path": f, "content": "written\nline two\n"})
				case 1:
					call("edit", id, map[string]any{"path": f, "tag": rd.Tag, "ops": "PUT 1.=1:\n+edited"})
				case 2:
					call("edit", id, map[string]any{"path": f, "tag": rd.Tag, "ops": "REM"})
				case 3:
					call("edit", id, map[string]any{"path": f, "tag": rd.Tag, "ops": "MV " + f + ".moved"})
					call("write", id+"n", map[string]any{"path": f + ".new", "content": "new\n"})
				}
				rollback.Rollback(context.Background(), store, s.ID, id, rollback.WithRoots(s.State().Workspace.DirOf), rollback.WithFiles(e.x.Files()))
			}
		})
	}
	wg.Wait()
	close(stop)
	swapper.Wait()

	after := snapshotTree(t, outside)
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("outside %s was deleted", p)
		} else if a != b {
			t.Errorf("outside %s was overwritten: %q", p, a)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("outside %s was created", p)
		}
	}
	if n := shownOutside.Load(); n > 0 {
		t.Errorf("%d results showed outside bytes", n)
	}
	var temps []string
	filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".hostd-") {
			temps = append(temps, p)
		}
		return nil
	})
	if len(temps) > 0 {
		t.Errorf("temp files left in the workspace: %v", temps)
	}
	t.Logf("%s: %d swaps, %d calls", dur, swaps.Load(), calls.Load())
	if swaps.Load() == 0 {
		t.Fatal("the swapper never swapped: the test proved nothing")
	}
}

// A read-only file is not replaced by write or edit, nor removed by REM,
// nor moved away by MV: TOOL_DENIED, and the file is as it was. Before,
// the atomic rename replaced it silently.
func TestReadOnlyFileIsDenied(t *testing.T) {
	e := newProdEnv(t, config.DefaultLimits())
	e.put("ro.txt", "keep\n")
	p := filepath.Join(e.root, "ro.txt")
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
	e.failure("write", map[string]any{"path": "ro.txt", "content": "new\n"}, wire.ToolDenied)
	tag := e.read(map[string]any{"path": "ro.txt"}).Tag
	for _, ops := range []string{"PUT 1.=1:\n+new", "REM", "MV moved.txt"} {
		msg := e.failure("edit", map[string]any{"path": "ro.txt", "tag": tag, "ops": ops}, wire.ToolDenied)
		if !strings.Contains(msg, "read-only") {
			t.Errorf("%q: message does not say why: %s", ops, msg)
		}
	}
	if got := e.cat("ro.txt"); got != "keep\n" {
		t.Fatalf("content %q", got)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o444 {
		t.Fatalf("mode %v", info.Mode())
	}
	if _, err := os.Stat(filepath.Join(e.root, "moved.txt")); err == nil {
		t.Fatal("MV created its destination")
	}
}

// REM and MV of a symbolic link act on the link itself: the file it leads
// to stays, the review records the link, and a rollback makes the link
// again. Before, REM deleted the target and left the link dangling.
func TestRemAndMvOfASymlinkActOnTheLink(t *testing.T) {
	e := newEditEnv(t)
	var store *review.Store
	e.x, store = reviewedExecutor(t, e.m, e.lim)
	e.write("real.txt", "content\n")
	if err := os.Symlink("real.txt", filepath.Join(e.root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	call := func(id, ops string) *wire.EditResult {
		t.Helper()
		tag := e.showAll("link.txt")
		args, _ := json.Marshal(map[string]string{"path": "link.txt", "tag": tag, "ops": ops})
		out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "edit", Args: args, ToolCallID: id})
		if err != nil {
			t.Fatal(err)
		}
		return out.(*wire.EditResult)
	}
	linkTo := func(rel string) string {
		t.Helper()
		target, err := os.Readlink(filepath.Join(e.root, rel))
		if err != nil {
			t.Fatalf("%s is not a symbolic link: %v", rel, err)
		}
		return target
	}

	if r := call("rem", "REM"); !r.OK {
		t.Fatalf("REM: %s", r.Content)
	}
	if e.exists("link.txt") || e.file("real.txt") != "content\n" {
		t.Fatal("REM of the link did not remove just the link")
	}
	if _, err := rollback.Rollback(context.Background(), store, e.s.ID, "rem"); err != nil {
		t.Fatal(err)
	}
	if linkTo("link.txt") != "real.txt" {
		t.Fatal("rollback did not make the link again")
	}

	if r := call("mv", "MV moved.txt"); !r.OK {
		t.Fatalf("MV: %s", r.Content)
	}
	if e.exists("link.txt") || linkTo("moved.txt") != "real.txt" || e.file("real.txt") != "content\n" {
		t.Fatal("MV of the link did not move just the link")
	}
	if _, err := rollback.Rollback(context.Background(), store, e.s.ID, "mv"); err != nil {
		t.Fatal(err)
	}
	if e.exists("moved.txt") || linkTo("link.txt") != "real.txt" {
		t.Fatal("rollback of the MV did not put the link back")
	}

	if r := call("mvedit", "PUT 1.=1:\n+changed\nMV other.txt"); r.OK || r.Error.Code != wire.ToolInvalidArgument {
		t.Fatalf("MV with ops of a link: ok=%v %+v", r.OK, r.Error)
	}
	// An edit through the link still edits the file it leads to.
	if r := call("put", "PUT 1.=1:\n+changed"); !r.OK || e.file("real.txt") != "changed\n" || linkTo("link.txt") != "real.txt" {
		t.Fatalf("edit through the link: %s", r.Content)
	}
}
