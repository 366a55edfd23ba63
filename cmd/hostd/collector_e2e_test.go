package main

import (
	"testing"

	"github.com/hostd-dev/hostd/internal/memgov"
)

// The daemon runs its memory governor: with little live, debug.stats shows
// a collection target well over the runtime's default and a soft limit of
// at least the headroom above the live heap, under the daemon's ceiling.
// An operator's GOGC is left in force.
func TestE2EDaemonRunsItsCollectorPolicy(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	for _, tc := range []struct {
		name, gogc string
		check      func(c memgov.Collector) bool
		want       string
	}{
		{"governed", "", func(c memgov.Collector) bool {
			return c.GCPercent > 100 && c.LimitBytes >= c.LiveBytes+memgov.Headroom && c.LimitBytes < 2<<30
		}, "a target over 100 and a limit of live + at least 48 MiB, under 2 GiB"},
		{"operator's GOGC", "300", func(c memgov.Collector) bool {
			return c.GCPercent == 300 && c.LimitBytes < 2<<30
		}, "the operator's target of 300 and a governed limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			d := startDaemon(t, "")
			var st struct {
				Collector *memgov.Collector `json:"collector"`
			}
			mustCall(t, d.client(), "debug.stats", nil, &st)
			if st.Collector == nil || !tc.check(*st.Collector) {
				t.Fatalf("debug.stats collector %+v, want %s", st.Collector, tc.want)
			}
		})
	}
}
