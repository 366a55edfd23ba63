package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// fairSection is the parse workers shared between sessions: a bystander
// session's block op on a small file while other sessions keep every
// worker busy outlining large files. The daemon runs with the default
// limits (4 workers, a parse time of 500 ms); each heavy session writes a
// new version of its own ~270 KiB TypeScript file and reads its outline,
// over and over, each a parse of the whole file. The bystander writes a
// new 10-function file and makes a block op on it (`CUT 1*`), timed;
// the figures are that op's latency and how many such ops were declined,
// with 0, 4 and 20 heavy sessions. The CI size (-quick) makes 15 ops per
// level, the long size 200.
func fairSection(ctx context.Context, o options) *Section {
	s := &Section{}
	ops := 200
	if o.quick {
		ops = 15
	}
	s.Intro = fmt.Sprintf("A bystander session's block op on a 10-function file while other sessions keep the parse workers busy: each heavy session "+
		"writes a new version of its own %s TypeScript file and reads its outline, over and over (each a parse of the whole file). "+
		"The daemon runs with the default limits: %d parse workers, a parse time of 500 ms. The bystander writes a new small file and makes a "+
		"block op on it (`CUT 1*`), %d times per level, one after another; the time is that edit call's, end to end. A decline is the "+
		"block op answered with an error (the parse time spent, or the workers busy past their wait). This section measures this checkout alone.",
		fmtBytes(int64(len(heavyFile(0)))), 4, ops)
	const goal20 = "bystander block ops declined, 20 heavy sessions"
	fail := func(err error) *Section {
		s.Notes = append(s.Notes, "not measured: "+err.Error())
		s.Goals = append(s.Goals, skippedGoal(goal20, "<= 0", err.Error()))
		return s
	}
	dir, bin, err := tempHostd(ctx, o, "fair")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	t := Table{Title: "The bystander's block op", Header: []string{"heavy sessions", "p50", "p99", "max", "declined", "busy declines", "heavy parses meanwhile"}}
	var declined20 int
	for _, heavy := range []int{0, 4, 20} {
		r, err := fairRun(ctx, bin, filepath.Join(dir, "h"+strconv.Itoa(heavy)), heavy, ops)
		if err != nil {
			return fail(err)
		}
		t.Add(strconv.Itoa(heavy), fmtDur(r.p50), fmtDur(r.p99), fmtDur(r.max), fmt.Sprintf("%d of %d", r.declined, ops), strconv.Itoa(r.busy), strconv.Itoa(r.heavyOps))
		fmt.Fprintf(o.log, "fair: %d heavy sessions: p50 %s p99 %s max %s, %d of %d declined (%d busy), %d heavy ops\n",
			heavy, fmtDur(r.p50), fmtDur(r.p99), fmtDur(r.max), r.declined, ops, r.busy, r.heavyOps)
		if heavy == 20 {
			declined20 = r.declined
		}
		for _, d := range r.reasons {
			s.Notes = append(s.Notes, fmt.Sprintf("With %d heavy sessions a block op was declined: %s", heavy, d))
		}
	}
	s.Tables = append(s.Tables, t)
	s.Goals = append(s.Goals, atMost(goal20, float64(declined20), 0, ""))
	return s
}

// fairResult is one level's figures.
type fairResult struct {
	p50, p99, max  time.Duration
	declined, busy int
	heavyOps       int
	reasons        []string // the first few declines' messages
}

// heavyFile is session i's large file: 4,500 TypeScript functions.
func heavyFile(version int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// version %d\n", version)
	for i := range 4500 {
		fmt.Fprintf(&b, "function g%d(a: number): number {\n\treturn a + %d;\n}\n", i, i)
	}
	return b.String()
}

// fairRun starts a daemon in dir, heavy sessions that keep its workers
// busy, and times ops block ops of a bystander session.
func fairRun(ctx context.Context, bin, dir string, heavy, ops int) (fairResult, error) {
	var r fairResult
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		return r, err
	}
	args, err := configArgs(dir, languageServersOff)
	if err != nil {
		return r, err
	}
	d, err := startDaemon(ctx, bin, dir, args...)
	if err != nil {
		return r, err
	}
	defer d.stop()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var heavyOps atomic.Int64
	var heavyErr atomic.Pointer[error]
	ready := make(chan struct{}, heavy)
	for i := range heavy {
		wg.Go(func() {
			c, err := dialRPC(ctx, d.sock)
			if err != nil {
				heavyErr.Store(&err)
				ready <- struct{}{}
				return
			}
			defer c.close()
			id, err := c.createSession(ctx, ws)
			if err != nil {
				heavyErr.Store(&err)
				ready <- struct{}{}
				return
			}
			path := fmt.Sprintf("heavy%d.ts", i)
			for n := 0; ; n++ {
				if _, err := c.execute(ctx, id, "write", jsonArgs("path", path, "content", heavyFile(n))); err != nil {
					heavyErr.Store(&err)
					if n == 0 {
						ready <- struct{}{}
					}
					return
				}
				// An outline declined (its parse time spent on a loaded
				// machine) still kept a worker busy: that is the load.
				_, _ = c.execute(ctx, id, "read", jsonArgs("path", path, "mode", "outline"))
				heavyOps.Add(1)
				if n == 0 {
					ready <- struct{}{}
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	for range heavy {
		<-ready // every heavy session is in its loop
	}
	if p := heavyErr.Load(); p != nil {
		close(stop)
		wg.Wait()
		return r, fmt.Errorf("a heavy session: %w", *p)
	}
	c, err := dialRPC(ctx, d.sock)
	if err != nil {
		close(stop)
		wg.Wait()
		return r, err
	}
	defer c.close()
	id, err := c.createSession(ctx, ws)
	if err != nil {
		close(stop)
		wg.Wait()
		return r, err
	}
	var took []time.Duration
	var small strings.Builder
	for i := range 10 {
		fmt.Fprintf(&small, "function f%d(a: number): number {\n\treturn a * %d;\n}\n", i, i)
	}
	heavyBefore := heavyOps.Load()
	for n := range ops {
		path := fmt.Sprintf("small%d.ts", n)
		w, err := c.execute(ctx, id, "write", jsonArgs("path", path, "content", small.String()))
		if err != nil {
			close(stop)
			wg.Wait()
			return r, err
		}
		start := time.Now()
		e, err := c.execute(ctx, id, "edit", jsonArgs("path", path, "tag", w.Tag, "ops", "CUT 1*"))
		took = append(took, time.Since(start))
		if err != nil {
			if e.Error == nil {
				close(stop)
				wg.Wait()
				return r, err
			}
			r.declined++
			if strings.Contains(e.Error.Message, "busy") {
				r.busy++
			}
			if len(r.reasons) < 3 {
				r.reasons = append(r.reasons, e.Error.Code+": "+firstLine(e.Error.Message))
			}
		}
	}
	r.heavyOps = int(heavyOps.Load() - heavyBefore)
	close(stop)
	wg.Wait()
	slices.Sort(took)
	r.p50 = took[len(took)/2]
	r.p99 = took[min(len(took)-1, len(took)*99/100)]
	r.max = took[len(took)-1]
	return r, nil
}
