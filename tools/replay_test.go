package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/parsepool"
	"github.com/hostd-dev/hostd/tools/syntax"
)

// replayEnv drives one workspace through two executors that share its
// sessions: one with syntax feedback (edit-contract §5.6) served by parse
// workers, processes of this test binary, as cmd/hostd serves it; one
// without, the cost baseline. check is a second pool that parses each
// text afresh (under a path no tree was cached for), the independent
// judge of what a flag says.
type replayEnv struct {
	*editEnv
	on, off *Executor
	check   *parsepool.Workers
	pool    *parsepool.Workers // on's workers
	fresh   int                // the judge's parses so far, each under a path of its own

	// mu guards the counts the feedback and the pool report from their
	// goroutines.
	mu          sync.Mutex
	uncheckable int      // feedback checks that could not be made
	workerEnds  []string // workers that ended, and why
}

func newReplayEnv(t *testing.T) *replayEnv {
	e := newEditEnv(t)
	r := &replayEnv{editEnv: e}
	workers := r.workers(e.lim.MaxParseWorkers)
	check := r.workers(1)
	parser := parsepool.For(workers, e.lim.MaxBlockParseBytes, time.Duration(e.lim.MaxParseMs)*time.Millisecond)
	feedback := func(ctx context.Context, rq syntax.Change) (syntax.Found, error) {
		found, err := parser.AddedErrors(ctx, rq)
		if err != nil {
			r.mu.Lock()
			r.uncheckable++
			r.mu.Unlock()
		}
		return found, err
	}
	r.on = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin(), Parser: parserParts{added: feedback, warm: parser.Warm}})
	r.off = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin()})
	r.check, r.pool = check, workers
	return r
}

// workers starts a pool of count parse workers, processes of this test
// binary, with the daemon's limits; every worker that ends is noted.
func (r *replayEnv) workers(count int) *parsepool.Workers {
	w, err := parsepool.NewWorkers(parsepool.WorkersConfig{
		Command: func() (*exec.Cmd, error) {
			cmd, err := parsepool.SelfCommand("-test.run=^$")
			if err != nil {
				return nil, err
			}
			cmd.Env = append(os.Environ(), parseWorkerEnv+"=1")
			return cmd, nil
		},
		Count:          count,
		MaxTreeBytes:   r.lim.MaxParseTreeBytes,
		MaxMemoryBytes: r.lim.MaxParseWorkerBytes,
		OnEvent: func(ev parsepool.WorkerEvent) {
			if !ev.Started {
				r.mu.Lock()
				r.workerEnds = append(r.workerEnds, ev.Path+": "+ev.Why)
				r.mu.Unlock()
			}
		},
	})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(w.Close)
	return w
}

// session is a fresh session of the workspace with the default
// (model-facing) preferences.
func (r *replayEnv) session() *session.Session {
	r.t.Helper()
	s, err := r.m.CreateWith("", r.s.State().Workspace, session.Prefs{})
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

func (r *replayEnv) call(x *Executor, s *session.Session, tool string, args map[string]any) (any, time.Duration) {
	r.t.Helper()
	raw, _ := json.Marshal(args)
	start := time.Now()
	out, err := x.Execute(context.Background(), Request{SessionID: s.ID, Tool: tool, Args: raw})
	took := time.Since(start)
	if err != nil {
		r.t.Fatal(err)
	}
	return out, took
}

// read reads the file at path whole through x's read tool, as a model
// would before an edit (with syntax feedback on, the read warms the parse
// workers), and returns its tag; lines past what one read shows are
// recorded as seen too, as the pages a model would read.
func (r *replayEnv) read(x *Executor, s *session.Session, path string) string {
	r.t.Helper()
	out, _ := r.call(x, s, "read", map[string]any{"path": path, "limit": r.lim.MaxReadLimit})
	rr, ok := out.(*wire.ReadResult)
	if !ok || rr.Tag == "" {
		r.t.Fatalf("read %s: %+v", path, out)
	}
	if rr.Truncated {
		if tag := r.showIn(s, path, 1, 1<<30); tag != rr.Tag {
			r.t.Fatalf("read %s: tag %s, the whole file's %s", path, rr.Tag, tag)
		}
	}
	return rr.Tag
}

// errorsOf are text's syntax error regions by a fresh parse; ok false
// when the parse could not be made (its worker ended, out of time).
func (r *replayEnv) errorsOf(path, text string) (found []syntax.ErrorRegion, ok bool) {
	r.t.Helper()
	r.fresh++
	fresh := fmt.Sprintf("judge%d/%s", r.fresh, path)
	found, _, err := r.check.AddedErrors(context.Background(), fresh, "", false, text, nil, nil, r.lim.MaxBlockParseBytes)
	return found, err == nil
}

// unsureIn are the regions a write's or an edit's content names as
// unread by a grammar not trusted to call them errors (renderFeedback's
// "syntax: the parser could not read ..." line): the result's
// syntaxErrors leave them out, so the content is where they are. The
// first feedbackErrorsNamed are named.
func unsureIn(content string) []wire.SyntaxError {
	var out []wire.SyntaxError
	for line := range strings.SplitSeq(content, "\n") {
		rest, ok := strings.CutPrefix(line, "syntax: the parser could not read ")
		if !ok {
			continue
		}
		rest, _, _ = strings.Cut(rest, " after this change")
		for _, m := range unsureRegion.FindAllStringSubmatch(rest, -1) {
			from, _ := strconv.Atoi(m[1])
			to := from
			if m[2] != "" {
				to, _ = strconv.Atoi(m[2])
			}
			out = append(out, wire.SyntaxError{StartLine: from, EndLine: to})
		}
	}
	return out
}

var unsureRegion = regexp.MustCompile(`lines? (\d+)(?:-(\d+))?`)

// covers says some region holds line l, within slack lines.
func covers[R syntax.ErrorRegion | wire.SyntaxError](rs []R, l, slack int) bool {
	for _, x := range rs {
		var from, to int
		switch v := any(x).(type) {
		case syntax.ErrorRegion:
			from, to = v.Start, v.End
		case wire.SyntaxError:
			from, to = v.StartLine, v.EndLine
		}
		if from-slack <= l && l <= to+slack {
			return true
		}
	}
	return false
}

// TestReplayHistorySyntaxFeedback replays the real edits of this
// repository's history (replay_history_test.go) through the edit tool,
// each from a whole read of its pre-image, with syntax feedback and
// without, and holds every flag against the commit's own post-image: a
// flag is right only where a fresh parse of the post-image has an error
// too (the edit lands the post-image byte for byte, so a flag anywhere
// else would name an error the commit does not have).
func TestReplayHistorySyntaxFeedback(t *testing.T) {
	size := replaySize(t)
	edits := loadHistory(t, size)
	if len(edits) == 0 {
		t.Skip("no replayable edits in the history reached")
	}
	// Each edit is timed in rounds, for steadier medians at the CI size.
	rounds := 3
	if size > 40 {
		rounds = 1
	}
	think := replayThink(t)
	r := newReplayEnv(t)
	s := r.session()
	// Each edit is sent three ways: with feedback right after its read
	// (the parse the read started may still run), with feedback after
	// the read's parse settled (a model takes seconds to write an edit),
	// and without feedback. The last two wait think after the read.
	type way struct {
		dir    string // where its copies of the files are
		x      *Executor
		settle bool
		think  time.Duration
		took   []time.Duration
	}
	atOnce := &way{"", r.on, false, 0, nil}
	settled := &way{"settled/", r.on, true, think, nil}
	off := &way{"off/", r.off, false, think, nil}
	var landed, failed, flagged, flags, wrongFlags, brokenPosts, unjudged int
	// Flags and wrong flags by file extension: where they come from.
	byExt := map[string]*[2]int{}
	for i, ed := range edits {
		ops, _, err := editOps(ed.Pre, ed.Post)
		if err != nil {
			t.Fatalf("%s %s: %v", ed.Commit, ed.Path, err)
		}
		var res *wire.EditResult
		for round := range rounds {
			// Rotate which way goes first, so none pays for a cold cache
			// more often than the others.
			ways := []*way{atOnce, settled, off}
			k := (i + round) % len(ways)
			ways = append(ways[k:], ways[:k]...)
			for _, w := range ways {
				// Each way, each round, edits its own copy of the file,
				// so none finds the trees another's parses left.
				path := fmt.Sprintf("r%d/%s%s", round, w.dir, ed.Path)
				r.write(path, ed.Pre)
				tag := r.read(w.x, s, path)
				if w.settle {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					if err := r.pool.Settle(ctx); err != nil {
						t.Fatalf("the parse workers did not settle: %v", err)
					}
					cancel()
				}
				time.Sleep(w.think)
				out, took := r.call(w.x, s, "edit", map[string]any{"path": path, "tag": tag, "ops": ops})
				er := out.(*wire.EditResult)
				if !er.OK || r.file(path) != ed.Post {
					failed++
					t.Logf("NOT LANDED %s %s: ok=%v %.300s", ed.Commit, ed.Path, er.OK, er.Content)
					continue
				}
				w.took = append(w.took, took)
				if w == atOnce && round == 0 {
					res = er
				}
			}
		}
		if res == nil {
			continue
		}
		landed++
		postErrs, judged := r.errorsOf(ed.Path, ed.Post)
		if !judged {
			unjudged++
			t.Logf("UNJUDGED %s %s: a fresh parse of the post-image could not be made; its %d flags are not counted", ed.Commit, ed.Path, len(res.SyntaxErrors))
			continue
		}
		if len(postErrs) > 0 {
			brokenPosts++
		}
		if len(res.SyntaxErrors) > 0 {
			flagged++
		}
		ext := filepath.Ext(ed.Path)
		if byExt[ext] == nil {
			byExt[ext] = &[2]int{}
		}
		var wrong []wire.SyntaxError
		for _, f := range res.SyntaxErrors {
			flags++
			byExt[ext][0]++
			if !covers(postErrs, f.StartLine, 0) && !covers(postErrs, f.EndLine, 0) {
				wrong = append(wrong, f)
			}
		}
		if len(wrong) > 0 {
			wrongFlags += len(wrong)
			byExt[ext][1] += len(wrong)
			t.Logf("WRONG FLAGS %s %s: %d of %d flags, first %+v; a fresh parse of the post-image has %d error regions", ed.Commit, ed.Path, len(wrong), len(res.SyntaxErrors), wrong[0], len(postErrs))
		}
	}
	pAtOnce, pSettled, pOff := median(atOnce.took), median(settled.took), median(off.took)
	t.Logf("replay: %d file edits from this repository's history, %d landed byte-exact each way, %d calls did not", len(edits), landed, failed)
	t.Logf("syntax feedback: %d flags on %d edits; %d flags with no error at that place in a fresh parse of the post-image; %d post-images have syntax errors of their own", flags, flagged, wrongFlags, brokenPosts)
	if think > 0 {
		t.Logf("think time (HOSTD_REPLAY_THINK) before each settled edit and each edit without feedback: %v", think)
	}
	t.Logf("edit p50 without feedback: %v", pOff)
	t.Logf("edit p50 with feedback, after the read's parse settled: %v (%.2fx; goal at most 1.5x)", pSettled, float64(pSettled)/float64(max(pOff, 1)))
	if think == 0 {
		t.Logf("edit p50 with feedback, right after the read: %v (%.2fx; goal at most 2x)", pAtOnce, float64(pAtOnce)/float64(max(pOff, 1)))
	} else {
		t.Logf("edit p50 with feedback, right after the read (no think time): %v", pAtOnce)
	}
	t.Logf("parse workers: %+v", r.pool.Stats())
	if st, err := r.pool.TreeStats(context.Background()); err == nil {
		t.Logf("their trees: %+v", st)
	}
	t.Logf("%d post-images could not be parsed afresh (their worker ended), so their flags are not judged", unjudged)
	for _, ext := range slices.Sorted(maps.Keys(byExt)) {
		if n := byExt[ext]; n[0] > 0 {
			t.Logf("  %s: %d flags, %d of them wrong", ext, n[0], n[1])
		}
	}
	r.mu.Lock()
	t.Logf("syntax feedback could not be made %d times; %d parse workers ended: %q", r.uncheckable, len(r.workerEnds), r.workerEnds)
	figure(t, "history.uncheckable", float64(r.uncheckable))
	r.mu.Unlock()
	figure(t, "history.edits", float64(len(edits)))
	figure(t, "history.landed", float64(landed))
	figure(t, "history.flags", float64(flags))
	figure(t, "history.flagged", float64(flagged))
	figure(t, "history.wrong", float64(wrongFlags))
	figure(t, "history.brokenPosts", float64(brokenPosts))
	figure(t, "history.p50.off.ms", ms(pOff))
	figure(t, "history.p50.settled.ms", ms(pSettled))
	figure(t, "history.p50.atonce.ms", ms(pAtOnce))
	figure(t, "history.think.ms", ms(think))
	if failed > 0 {
		t.Errorf("%d replayed edits did not land byte-exact", failed)
	}
	if wrongFlags > 0 {
		t.Errorf("%d flags on %d edits name an error the commit's post-image does not have (goal 0)", wrongFlags, flagged)
	}
	// Timing on a shared machine is logged, not asserted.
	if ratio := float64(pSettled) / float64(max(pOff, 1)); ratio > 1.5 {
		t.Logf("NOT MET: edit p50 with feedback, settled, is %.2fx of without (goal at most 1.5x)", ratio)
	}
	if ratio := float64(pAtOnce) / float64(max(pOff, 1)); think == 0 && ratio > 2 {
		t.Logf("NOT MET: edit p50 with feedback right after the read is %.2fx of without (goal at most 2x)", ratio)
	}
}
