package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// memorySection is the daemon's resident memory with every
// session it admits each holding as much text as its own bound allows,
// under the daemon-wide bound on retained text; the per-session bound
// while one session keeps reading new files; and the latency of an edit
// with a full review index beside an empty one.
func memorySection(ctx context.Context, o options) *Section {
	s := &Section{}
	sessionMemory(ctx, o, s)
	editWithReviewIndex(ctx, o, s)
	return s
}

// sessionMemory measures the sessions' part of section 4 on a daemon of
// its own, stopped before it returns.
func sessionMemory(ctx context.Context, o options, s *Section) {
	lim := config.DefaultLimits()
	sessions, boundFiles := lim.MaxSessions, 30
	if o.quick {
		sessions, boundFiles = 40, 10
	}
	// Files just under the single-file retention limit, so each read is
	// retained and a session reaches its own bound in a few reads; the
	// sessions share the files, each retaining its own copy.
	fileBytes := lim.MaxRetainedFileBytes * 95 / 100
	shared := int(lim.MaxRetainedBytesPerSession/fileBytes) + 4
	bound := float64(lim.MaxRetainedBytes)*1.15 + 64<<20
	s.Intro = fmt.Sprintf("hostd is started on a temporary socket with its default limits; %d sessions each read distinct files of %s (95%% of the %s single-file "+
		"retention limit) until the session's retainedBytes (debug.session) stops growing, i.e. until its %s per-session bound "+
		"evicts. Without a daemon-wide bound they would hold %s together; maxRetainedBytes (%s) is one LRU over every session's snapshots, "+
		"so the coldest text daemon-wide is dropped (its version kept, validated by digest). Then session.list gives every session's "+
		"retainedBytes, and /proc/PID/status the daemon's resident set (VmRSS) and its peak (VmHWM). No GOGC or GOMEMLIMIT is set by this command: "+
		"the daemon's own memory governor sets the soft limit.",
		sessions, fmtBytes(fileBytes), fmtBytes(lim.MaxRetainedFileBytes), fmtBytes(lim.MaxRetainedBytesPerSession),
		fmtBytes(int64(sessions)*(lim.MaxRetainedBytesPerSession/fileBytes)*fileBytes), fmtBytes(lim.MaxRetainedBytes))
	goalRSS := fmt.Sprintf("daemon RSS with %d sessions vs 1.15 x maxRetainedBytes + 64 MiB (VmRSS after the fill)", sessions)
	goalSum := "retained text, sum over sessions (session.list)"
	goalBound := fmt.Sprintf("retainedBytes of a session reading new files (%d files)", boundFiles)
	const (
		againstRSS   = "1.15 x maxRetainedBytes + 64 MiB (the retained text's bound with room for the rest)"
		againstSum   = "maxRetainedBytes, the daemon-wide bound"
		againstBound = "maxRetainedBytesPerSession, the per-session bound"
	)
	measured := false // the first two goals are in
	fail := func(err error) {
		s.Notes = append(s.Notes, "not measured: "+err.Error())
		if !measured {
			s.Goals = append(s.Goals, skippedGoal(goalRSS, "<= "+fmtBytes(int64(bound)), err.Error()).vs(againstRSS),
				skippedGoal(goalSum, "<= "+fmtBytes(lim.MaxRetainedBytes), err.Error()).vs(againstSum))
		}
		s.Goals = append(s.Goals, skippedGoal(goalBound, "<= "+fmtBytes(lim.MaxRetainedBytesPerSession), err.Error()).vs(againstBound))
	}
	dir, bin, err := tempHostd(ctx, o, "mem")
	if err != nil {
		fail(err)
		return
	}
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "ws")
	total := max(shared, boundFiles)
	for i := 0; i < total; i++ {
		if err := writeFiller(filepath.Join(ws, fmt.Sprintf("f%03d.txt", i)), i, fileBytes); err != nil {
			fail(err)
			return
		}
	}
	args, err := configArgs(dir, languageServersOff)
	if err != nil {
		fail(err)
		return
	}
	d, err := startDaemon(ctx, bin, dir, args...)
	if err != nil {
		fail(err)
		return
	}
	defer d.stop()
	idle, _, err := d.memory()
	if err != nil {
		fail(err)
		return
	}

	t0 := time.Now()
	reads, err := fillSessions(ctx, d.sock, ws, sessions, shared, fileBytes)
	if err != nil {
		fail(err)
		return
	}
	fillTime := time.Since(t0)
	c, err := dialRPC(ctx, d.sock)
	if err != nil {
		fail(err)
		return
	}
	defer c.close()
	list, err := c.typed().SessionList(ctx)
	if err != nil {
		fail(err)
		return
	}
	var retained, most int64
	for _, ss := range list.Sessions {
		retained += ss.RetainedBytes
		most = max(most, ss.RetainedBytes)
	}
	stats, err := c.typed().DebugStats(ctx)
	if err != nil {
		fail(err)
		return
	}
	rss, hwm, err := d.memory()
	if err != nil {
		fail(err)
		return
	}
	t := Table{Header: []string{"measure", "value"}}
	t.Add("sessions (session.list)", strconv.Itoa(len(list.Sessions)))
	t.Add("reads to reach each session's bound", fmt.Sprintf("%d in total (%.1f per session), in %s", reads, float64(reads)/float64(sessions), fillTime.Round(100*time.Millisecond)))
	t.Add("retained text, sum over sessions (session.list)", fmtBytes(retained)+" (maxRetainedBytes "+fmtBytes(lim.MaxRetainedBytes)+")")
	t.Add("retained text (debug.stats)", fmtBytes(stats.RetainedBytes))
	t.Add("largest session", fmtBytes(most)+" (bound "+fmtBytes(lim.MaxRetainedBytesPerSession)+")")
	t.Add("Go heap in use (debug.stats heapBytes)", fmtBytes(int64(stats.HeapBytes)))
	t.Add("daemon RSS idle, before any session (VmRSS)", fmtBytes(idle))
	t.Add("daemon RSS now (VmRSS)", fmtBytes(rss))
	t.Add("daemon RSS peak (VmHWM)", fmtBytes(hwm))
	t.Add("goal bound: 1.15 x maxRetainedBytes + 64 MiB", fmtBytes(int64(bound)))
	t.Add("RSS / bound; peak / bound", fmtRatio(float64(rss)/bound)+"; "+fmtRatio(float64(hwm)/bound))
	s.Tables = append(s.Tables, t)
	s.Goals = append(s.Goals, Goal{Name: goalRSS, Against: againstRSS, Target: "<= " + fmtBytes(int64(bound)),
		Measured: fmtBytes(rss) + ", " + fmtRatio(float64(rss)/bound) + " of the bound", Met: float64(rss) <= bound})
	s.Goals = append(s.Goals, Goal{Name: goalSum, Against: againstSum, Target: "<= " + fmtBytes(lim.MaxRetainedBytes),
		Measured: fmtBytes(retained), Met: retained <= lim.MaxRetainedBytes})
	measured = true
	if float64(rss) > bound {
		s.Notes = append(s.Notes, "Why the resident set exceeds the bound: Go's heap in use counts garbage not yet collected. "+
			"The daemon keeps its soft memory limit at what is live plus headroom (internal/memgov); a run past the bound "+
			"means transient buffers outgrew that headroom. This command sets no GOGC or GOMEMLIMIT of its own.")
	}
	if hwm > int64(bound) && float64(rss) <= bound {
		s.Notes = append(s.Notes, fmt.Sprintf("The peak resident set (VmHWM %s) exceeded the goal bound while the sessions filled: "+
			"garbage from reading and decoding is resident until the collector runs.", fmtBytes(hwm)))
	}

	// One more session keeps reading files it has not read before; the
	// oldest makes room for it when the daemon is at maxSessions.
	if len(list.Sessions) >= lim.MaxSessions {
		if err := c.typed().SessionDelete(ctx, wire.SessionIDParams{SessionID: list.Sessions[0].SessionID}); err != nil {
			fail(err)
			return
		}
	}
	growth, err := keepReading(ctx, c, ws, boundFiles)
	if err != nil {
		fail(err)
		return
	}
	var peak int64
	var trace []string
	for _, g := range growth {
		peak = max(peak, g)
		trace = append(trace, strings.TrimSuffix(fmtBytes(g), " MiB"))
	}
	s.Goals = append(s.Goals, Goal{Name: goalBound, Against: againstBound, Target: "<= " + fmtBytes(lim.MaxRetainedBytesPerSession),
		Measured: "max " + fmtBytes(peak), Met: peak <= lim.MaxRetainedBytesPerSession})
	s.Notes = append(s.Notes, "retainedBytes (MiB) after each of the "+strconv.Itoa(boundFiles)+" reads of the extra session: "+strings.Join(trace, ", ")+".")
}

// writeFiller writes a distinct text file of about size bytes.
func writeFiller(path string, seed int, size int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	b.Grow(int(size))
	for n := 0; int64(b.Len()) < size-128; n++ {
		fmt.Fprintf(&b, "file %03d line %06d: the quick brown fox jumps over the lazy dog %d times, then rests.\n", seed, n, (n*seed)%997)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// fillSessions creates n sessions and drives each to its retained-text
// bound, a few sessions at a time. It returns the number of reads made.
func fillSessions(ctx context.Context, sock, ws string, n, files int, fileBytes int64) (int, error) {
	const workers = 4
	var mu sync.Mutex
	reads := 0
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dialRPC(ctx, sock)
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			defer c.close()
			for i := w; i < n; i += workers {
				k, err := fillOne(ctx, c, ws, i, files, fileBytes)
				mu.Lock()
				reads += k
				if err != nil && firstErr == nil {
					firstErr = err
				}
				stop := firstErr != nil
				mu.Unlock()
				if stop {
					return
				}
			}
		}()
	}
	wg.Wait()
	return reads, firstErr
}

// fillOne reads distinct files in a new session until its retainedBytes
// stops growing: the first read that does not add about a file's worth
// made the store evict (files differ by a few bytes, so "did not grow at
// all" would be the wrong test).
func fillOne(ctx context.Context, c *rpcClient, ws string, i, files int, fileBytes int64) (int, error) {
	id, err := c.createSession(ctx, ws)
	if err != nil {
		return 0, err
	}
	var last int64 = -1
	for k := 0; k < files; k++ {
		if _, err := c.execute(ctx, id, "read", jsonArgs("path", fmt.Sprintf("f%03d.txt", (i+k)%files), "limit", fillReadLimit)); err != nil {
			return k, err
		}
		now, err := retainedOf(ctx, c, id)
		if err != nil {
			return k + 1, err
		}
		if last >= 0 && now < last+fileBytes/2 {
			return k + 1, nil
		}
		last = now
	}
	return files, fmt.Errorf("session %d still grew after reading all %d files", i, files)
}

// fillReadLimit is the read window of the fill: one line, so the result
// is small while the whole file is still tagged and retained.
const fillReadLimit = 1

func retainedOf(ctx context.Context, c *rpcClient, id string) (int64, error) {
	d, err := c.typed().DebugSession(ctx, wire.SessionIDParams{SessionID: id})
	return d.RetainedBytes, err
}

// keepReading opens one more session and reads files new to it, recording
// its retainedBytes after each read.
func keepReading(ctx context.Context, c *rpcClient, ws string, files int) ([]int64, error) {
	id, err := c.createSession(ctx, ws)
	if err != nil {
		return nil, err
	}
	var out []int64
	for k := 0; k < files; k++ {
		if _, err := c.execute(ctx, id, "read", jsonArgs("path", fmt.Sprintf("f%03d.txt", k), "limit", fillReadLimit)); err != nil {
			return out, err
		}
		r, err := retainedOf(ctx, c, id)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}
