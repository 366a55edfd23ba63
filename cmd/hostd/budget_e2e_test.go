package main

import (
	"strings"
	"testing"
)

// The daemon runs one memory budget of limits.maxMemoryBytes: host.info
// reports the limit, debug.stats the budget, and a large request takes
// from it while it is served.
func TestE2EOneMemoryBudget(t *testing.T) {
	d := startDaemon(t, "")
	c := d.client()
	var info struct {
		Limits struct {
			MaxMemoryBytes int64 `json:"maxMemoryBytes"`
		} `json:"limits"`
	}
	mustCall(t, c, "host.info", nil, &info)
	var ref struct{ SessionID string }
	mustCall(t, c, "session.create", map[string]any{"workspace": t.TempDir()}, &ref)
	var res map[string]any
	content := strings.Repeat("a line of a large file\n", 1<<20/23)
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": ref.SessionID, "tool": "write", "args": map[string]any{"path": "big.txt", "content": content}}, &res)
	if res["ok"] != true {
		t.Fatalf("write: %v", res)
	}
	var st struct {
		Budget *struct {
			LimitBytes int64 `json:"limitBytes"`
			InUseBytes int64 `json:"inUseBytes"`
			PeakBytes  int64 `json:"peakBytes"`
		} `json:"budget"`
	}
	mustCall(t, c, "debug.stats", nil, &st)
	if st.Budget == nil || info.Limits.MaxMemoryBytes != 1<<30 || st.Budget.LimitBytes != info.Limits.MaxMemoryBytes {
		t.Fatalf("budget %+v, limits.maxMemoryBytes %d: want one budget of the limit", st.Budget, info.Limits.MaxMemoryBytes)
	}
	if st.Budget.PeakBytes < int64(len(content)) || st.Budget.InUseBytes != 0 {
		t.Errorf("budget %+v after a %d-byte write: want it taken while served and given back", st.Budget, len(content))
	}
}
