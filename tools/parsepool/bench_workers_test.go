package parsepool

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/benchkit"
	"github.com/hostd-dev/hostd/workspace"
)

// BenchmarkWorkers: the parse figures through the daemon's parse workers
// (this test binary as the workers), on the 5,000-line file, each case
// timed alternately with its reference in every iteration
// (benchkit.RatioLoop: case-ns/op, parse-ns/op, x-parse = case / ref).
//
//   - cached: a block op on a version a worker has parsed, against one
//     full parse in this process (the goal: at most 0.1x);
//   - cold: a block op on a version no worker has parsed (a new path),
//     against the same in-process, through one tree cache of the
//     daemon's whole bound kept across iterations, as the daemon before
//     the workers parsed (a fresh cache each time would be cheaper than
//     either: a cache that fills pays for its memory and its evictions);
//   - check: a boundary repair's four syntax checks of a kept closer, the
//     file not yet parsed, against the same in-process;
//   - outline: an outline of the whole file not yet parsed, against the
//     same in-process;
//
// The pool has the daemon's default size, so a worker's cache is its
// share of the bound.
//   - restart: a worker ended by an overrun, then a block op: the time
//     from the overrun's answer to the block op's (restart-ns/op), with
//     the worker's own start (start-ns/op).
func BenchmarkWorkers(b *testing.B) {
	workerCount := config.DefaultLimits().MaxParseWorkers
	text, line := benchSource(b)
	ctx := context.Background()
	op := func(w *Workers, path string) {
		r, err := w.NewResolver(ctx, path, text, defaultLimit)
		if err != nil {
			b.Fatal(err)
		}
		if s, e, err := r.Resolve(line); err != nil || s != line || e <= s {
			b.Fatalf("line %d: %d-%d, %v", line, s, e, err)
		}
		r.Close()
	}
	b.Run("cached", func(b *testing.B) {
		w := newTestWorkers(b, workerCount, "")
		op(w, "bench.ts")
		b.SetBytes(int64(len(text)))
		benchkit.RatioLoop(b, fullParse5000(b, text), func() { op(w, "bench.ts") })
	})
	b.Run("cold", func(b *testing.B) {
		w := newTestWorkers(b, workerCount, "")
		op(w, "warm.ts")
		trees := newTrees(b)
		i, j := 0, 0
		b.SetBytes(int64(len(text)))
		benchkit.RatioLoop(b, func() {
			j++
			r, err := trees.NewResolver(ctx, fmt.Sprintf("cold%d.ts", j), text, defaultLimit)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := r.Resolve(line); err != nil {
				b.Fatal(err)
			}
			r.Close()
		}, func() {
			i++
			op(w, fmt.Sprintf("cold%d.ts", i))
		})
	})
	b.Run("check", func(b *testing.B) {
		w := newTestWorkers(b, workerCount, "")
		trees := newTrees(b)
		texts := keptCloserChecks(b, text, line)
		check := func(syn interface{ Check(string) (bool, bool) }) {
			for i, tx := range texts {
				if sup, clean := syn.Check(tx); !sup || clean != (i%2 == 1) {
					b.Fatalf("check %d: supported %v clean %v", i, sup, clean)
				}
			}
		}
		i, j := 0, 0
		b.SetBytes(int64(len(text)))
		benchkit.RatioLoop(b, func() {
			j++
			syn, _ := trees.NewSyntax(ctx, fmt.Sprintf("check%d.ts", j), text, defaultLimit)
			check(syn)
			syn.Release()
		}, func() {
			i++
			syn, _ := w.NewSyntax(ctx, fmt.Sprintf("check%d.ts", i), text, defaultLimit)
			check(syn)
			syn.Release()
		})
	})
	b.Run("outline", func(b *testing.B) {
		w := newTestWorkers(b, workerCount, "")
		op(w, "warm.ts")
		trees := newTrees(b)
		i, j := 0, 0
		b.SetBytes(int64(len(text)))
		benchkit.RatioLoop(b, func() {
			j++
			if _, err := trees.OutlineLines(ctx, fmt.Sprintf("outline%d.ts", j), text, defaultLimit, 1, 0); err != nil {
				b.Fatal(err)
			}
		}, func() {
			i++
			if _, err := w.OutlineLines(ctx, fmt.Sprintf("outline%d.ts", i), text, defaultLimit, 1, 0); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("restart", func(b *testing.B) {
		w := newTestWorkers(b, 1, "spin:SPIN-FOREVER")
		op(w, "bench.ts")
		var restart, start time.Duration
		for b.Loop() {
			ctx, cancel := context.WithTimeout(ctx, time.Millisecond)
			r, _ := w.NewResolver(ctx, "spin.lua", "SPIN-FOREVER\n", defaultLimit)
			if _, _, err := r.Resolve(1); err == nil {
				b.Fatal("the spinning parse answered")
			}
			r.Close()
			cancel()
			t0 := time.Now()
			op(w, "bench.ts")
			restart += time.Since(t0)
			start += w.Stats().LastTook
		}
		b.ReportMetric(float64(restart.Nanoseconds())/float64(b.N), "restart-ns/op")
		b.ReportMetric(float64(start.Nanoseconds())/float64(b.N), "start-ns/op")
	})
}

// keptCloserChecks are the texts a boundary repair checks for a range
// edit that swallows the closer of the function opening at line (its
// body's last line and the closer replaced by one row): the result (does
// not parse), the original (parses), the original without the closer
// (does not), and the result with the closer kept (parses).
func keptCloserChecks(b testing.TB, text string, line int) []string {
	lines := workspace.Lines(text)
	end := line
	for end < len(lines) && lines[end-1] != "}" {
		end++
	}
	if end == len(lines) {
		b.Fatalf("no closer after line %d", line)
	}
	join := func(parts ...[]string) string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return strings.Join(all, "\n") + "\n"
	}
	row := []string{"  return undefined as never;"}
	result := join(lines[:end-2], row, lines[end:])
	without := join(lines[:end-1], lines[end:])
	kept := join(lines[:end-2], row, lines[end-1:])
	return []string{result, text, without, kept}
}
