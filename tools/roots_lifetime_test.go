package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// A call holds its session's roots open until it returns: a switch of the
// session's workspace, or its delete, closes the old roots only after the
// calls that hold them, so no call fails halfway because its directory was
// closed under it. Reads, greps and writes run on many goroutines while
// the session switches between two workspaces, then is deleted.
func TestCallsHoldTheirRootsThroughASwitch(t *testing.T) {
	const workers, rounds = 6, 30
	e := newProdEnv(t, config.DefaultLimits())
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := []string{e.root, other}
	for _, r := range roots {
		if err := os.WriteFile(filepath.Join(r, "a.txt"), []byte("a\nb\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var calls atomic.Int64
	failures := make(chan string, 1000)
	// run makes calls on every worker, rounds each (0: until the session
	// is gone).
	run := func(rounds int) *sync.WaitGroup {
		var wg sync.WaitGroup
		for g := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; rounds == 0 || i < rounds; i++ {
					for _, c := range []struct{ tool, args string }{
						{"read", `{"path":"a.txt"}`},
						{"grep", `{"pattern":"b"}`},
						{"write", fmt.Sprintf(`{"path":"w%d.txt","content":"%d\n"}`, g, i)},
					} {
						out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: c.tool, Args: json.RawMessage(c.args)})
						calls.Add(1)
						if errors.Is(err, session.ErrNotFound) {
							return
						}
						if err != nil {
							failures <- fmt.Sprintf("%s: protocol error %v", c.tool, err)
							return
						}
						// A write may find its file written meanwhile; what
						// must never be is a call cut off by its roots closing.
						if r := out.Base(); !r.OK && strings.Contains(strings.ToLower(r.Content), "closed") {
							failures <- fmt.Sprintf("%s: %s", c.tool, r.Content)
						}
					}
				}
			}()
		}
		return &wg
	}
	switchTo := func(i int) {
		ws, err := workspace.New(roots[i%2], "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		if _, err := e.m.SetWorkspace(e.s.ID, ws); err != nil {
			t.Fatal(err)
		}
	}

	// Switches while the calls run.
	wg := run(rounds)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	switches := 0
	for running := true; running; switches++ {
		select {
		case <-done:
			running = false
		default:
			switchTo(switches + 1)
		}
	}
	// A delete while the calls run.
	calls.Store(0)
	wg = run(0)
	done = make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for calls.Load() < 3*workers && !closed(done) {
		runtime.Gosched()
	}
	if err := e.m.Delete(e.s.ID); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	if switches < 10 {
		t.Errorf("only %d switches happened while the calls ran", switches)
	}
	for _, r := range roots {
		if n, _ := testenv.OpenUnder(os.Getpid(), r); n > 0 {
			t.Errorf("%d descriptors still open under %s after the delete", n, r)
		}
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
