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
	lowered, _ := lowerStep(p, len(lines), lim)
	expanded, _ := expandLines(lowered, lines, nil)
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
			lowerStep(p, len(lines), lim)
		}
	})
	b.Run("expand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			expandLines(lowered, lines, nil)
		}
	})
	b.Run("validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			validateStep(expanded)
		}
	})
	b.Run("repair (no grammar, nothing to ask)", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			repairStep(Lines(lines), p, expanded, Env{Syntax: noGrammar{}})
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
