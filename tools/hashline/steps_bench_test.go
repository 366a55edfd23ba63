package hashline

import (
	"testing"

	"github.com/hostd-dev/hostd/internal/benchkit"
)

// BenchmarkRunSteps times each step of Run alone on 50 ops over 5,000
// lines, so a change to one step can be measured by itself.
func BenchmarkRunSteps(b *testing.B) {
	lines := benchLines(5000)
	ops := benchkit.SpreadOps(50, 5000)
	lim := DefaultLimits()
	p, _ := Parse(ops, lim)
	lowered, _ := Lower(p, len(lines), lim)
	expanded, _ := Expand(lowered, lines, nil)
	res, _ := ApplyText(Lines(lines), expanded)
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Parse(ops, lim)
		}
	})
	b.Run("lower", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Lower(p, len(lines), lim)
		}
	})
	b.Run("expand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Expand(lowered, lines, nil)
		}
	})
	b.Run("validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Validate(expanded)
		}
	})
	b.Run("repair (no grammar, nothing to ask)", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Repair(Lines(lines), p, expanded, Env{Syntax: noGrammar{}})
		}
	})
	b.Run("apply text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ApplyText(Lines(lines), expanded)
		}
	})
	b.Run("new lines", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res.NewLines(Lines(lines))
		}
	})
}
