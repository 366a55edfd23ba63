package parsepool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/tools/blocks"
)

// TestOneOwnerCannotStarveAnother: an owner (a session) whose texts never
// finish parsing, asked about from many goroutines at once, holds one
// worker at a time; another owner's block ops and syntax checks are all
// served within their own parse time meanwhile, and every call of the
// first is answered within workerWait, its parse time and killGrace.
func TestOneOwnerCannotStarveAnother(t *testing.T) {
	w := newTestWorkers(t, 3, "spin:SPIN-FOREVER")
	w.Start()
	waitFor(t, "the first worker", func() bool { return w.Stats().Running == 1 })
	const budget = 500 * time.Millisecond
	stop := make(chan struct{})
	var attacks, late atomic.Int64
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(withOwner(context.Background(), "attacker"), budget)
				r, _ := w.NewResolver(ctx, fmt.Sprintf("junk%d-%d.lua", i, n), "x = 1 -- SPIN-FOREVER\n'''\n", defaultLimit)
				start := time.Now()
				if _, _, err := r.Resolve(1); err == nil {
					t.Error("a text that never parses resolved")
				}
				// Its wait for a worker (its own owner's other calls hold
				// one) is bounded by workerWait, its parse by its time
				// and the grace; the 3 s are a loaded machine's slack.
				if time.Since(start) > workerWait+budget+killGrace+3*time.Second {
					late.Add(1)
				}
				r.Close()
				cancel()
				attacks.Add(1)
			}
		}()
	}
	served := 0
	for until := time.Now().Add(3 * time.Second); time.Now().Before(until); served++ {
		// The first round waits for a worker to start (over a second
		// under the race detector on a busy machine); the rest must not.
		ctx, cancel := context.WithTimeout(withOwner(context.Background(), "bystander"), budget+time.Duration(max(1-served, 0))*time.Minute)
		text := fmt.Sprintf("function f%d() {\n  return %d;\n}\n", served, served)
		r, _ := w.NewResolver(ctx, fmt.Sprintf("app%d.js", served), text, defaultLimit)
		if s, e, err := r.Resolve(1); err != nil || s != 1 || e != 3 {
			t.Errorf("the bystander's block op %d: %d-%d %v", served, s, e, err)
		}
		r.Close()
		syn, _ := w.NewSyntax(ctx, fmt.Sprintf("app%d.js", served), text, defaultLimit)
		if sup, clean := syn.Check(strings.Replace(text, "}\n", "", 1)); !sup || clean {
			t.Errorf("the bystander's repair check %d: supported %v clean %v (%s)", served, sup, clean, syn.Unavailable())
		}
		syn.Release()
		cancel()
	}
	close(stop)
	wg.Wait()
	t.Logf("bystander: %d block ops and checks served; attacker: %d calls; pool %+v", served, attacks.Load(), w.Stats())
	if late.Load() > 0 {
		t.Errorf("%d of the attacker's calls were answered late", late.Load())
	}
	if w.Stats().Overruns == 0 {
		t.Error("no overrunning worker was ended: the attack did not run")
	}
}

// poolHostEnv switches a test binary into a daemon stand-in for
// TestWorkersDieWithTheirDaemon: it starts a pool, prints its worker's
// pid, and (busy) keeps that worker in a parse that does not stop.
const poolHostEnv = "HOSTD_PARSEPOOL_TEST_POOL_HOST"

func servePoolHost() int {
	w, err := NewWorkers(WorkersConfig{Command: workerCommand("spin:SPIN-FOREVER"), Count: 1, MaxTreeBytes: 64 << 20})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	r, _ := w.NewResolver(context.Background(), "ok.json", "{\"a\": 1}\n", defaultLimit)
	if _, _, err := r.Resolve(1); err == nil || !errors.Is(err, blocks.ErrNoBlock) {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println(w.Stats().PIDs[0])
	if os.Getenv(poolHostEnv) == "busy" {
		// A 3 s parse time: where no parent-death signal exists, the
		// worker ends itself once it is past that and the grace.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		r, _ := w.NewResolver(ctx, "junk.lua", "SPIN-FOREVER\n", defaultLimit)
		go r.Resolve(1)
	}
	select {}
}

// TestWorkersDieWithTheirDaemon: a daemon killed outright (SIGKILL, no
// shutdown) leaves no worker behind, idle or in the middle of a parse
// that does not stop.
func TestWorkersDieWithTheirDaemon(t *testing.T) {
	for _, mode := range []string{"idle", "busy"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), poolHostEnv+"="+mode)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			pid, perr := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || perr != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the pool host said %q (%v)", line, err)
			}
			if !pidAlive(pid) {
				t.Fatalf("worker %d does not run", pid)
			}
			time.Sleep(200 * time.Millisecond) // busy: the parse is running
			cmd.Process.Kill()
			cmd.Wait()
			start := time.Now()
			waitFor(t, "the worker to end with its daemon", func() bool { return !pidAlive(pid) })
			bound := 5 * time.Second // the busy worker's own end: its 3 s and the grace
			if runtime.GOOS == "linux" {
				bound = 2 * time.Second // the parent-death signal
			}
			if d := time.Since(start); d > bound {
				t.Errorf("the worker outlived its daemon by %v", d)
			}
		})
	}
}
