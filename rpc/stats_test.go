package rpc

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

func TestPercentileIsNearestRank(t *testing.T) {
	seq := func(n int) []uint32 {
		s := make([]uint32, n)
		for i := range s {
			s[i] = uint32(i + 1)
		}
		return s
	}
	tests := []struct {
		samples []uint32
		p       int
		want    uint32
	}{
		{[]uint32{7}, 50, 7},
		{[]uint32{7}, 99, 7},
		{[]uint32{1, 2}, 50, 1},
		{[]uint32{1, 2}, 99, 2},
		{seq(100), 50, 50},
		{seq(100), 99, 99},
		{seq(1000), 99, 990},
		{seq(3), 50, 2},
	}
	for _, tt := range tests {
		if got := percentile(tt.samples, tt.p); got != tt.want {
			t.Errorf("p%d of %d samples = %d, want %d", tt.p, len(tt.samples), got, tt.want)
		}
	}
}

func TestLatencyWindowKeepsTheMostRecentCalls(t *testing.T) {
	c := newCallStats([]string{"m"})
	for range latencyWindow {
		c.observe("m", time.Second, false)
	}
	for range latencyWindow {
		c.observe("m", time.Microsecond, true)
	}
	s := c.snapshot()["m"]
	if s.Count != 2*latencyWindow || s.Errors != latencyWindow || s.P99Us != 1 {
		t.Errorf("%+v: old samples must have left the window", s)
	}
}

func TestDebugStatsCountsCallsPerMethodWithinABound(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	for range 3 {
		mustCall(t, c, "host.info", nil, nil)
	}
	call(t, c, "session.delete", wire.SessionIDParams{SessionID: "nope"}, nil)
	for i := range 50 {
		call(t, c, fmt.Sprintf("invented.%d", i), nil, nil)
	}
	var st wire.Stats
	mustCall(t, c, "debug.stats", nil, &st)
	if got := st.Calls["host.info"]; got.Count != 3 || got.Errors != 0 || got.P99Us < got.P50Us {
		t.Errorf("host.info: %+v", got)
	}
	if got := st.Calls["session.delete"]; got.Count != 1 || got.Errors != 1 {
		t.Errorf("session.delete: %+v", got)
	}
	if got := st.Calls[unknownMethod]; got.Count != 50 || got.Errors != 50 {
		t.Errorf("unknown methods share one bucket: %+v", got)
	}
	for name := range st.Calls {
		if name != unknownMethod && h.srv.methods[name] == nil {
			t.Errorf("calls has an entry for %q, which is not a method", name)
		}
	}
	if st.UptimeMs < 0 || st.Goroutines == 0 || st.HeapBytes == 0 {
		t.Errorf("process figures: %+v", st)
	}
}

func TestDebugStatsSumsSessions(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	for _, id := range []string{"a", "b"} {
		var ref wire.SessionRef
		mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: id}, &ref)
		sess, _ := h.sess.Get(id)
		sess.State().Store.Record(filepath.Join(ref.Workspace, "f"), session.Snapshot{Digest: workspace.Sum("abc\n"), Text: "abc\n", HasText: true, Lines: 1, Bytes: 4, Seen: session.Unknown()})
		sess.State().Registers.Set("r", []string{"x"})
	}
	var st wire.Stats
	mustCall(t, c, "debug.stats", nil, &st)
	if st.Sessions != 2 || st.Snapshots != 2 || st.RetainedBytes != 8 || st.Registers != 2 {
		t.Errorf("%+v", st)
	}
}

func TestDebugSessionShowsVersionsAndSeenLines(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	var ref wire.SessionRef
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, &ref)
	sess, _ := h.sess.Get("s")
	store := sess.State().Store
	path := filepath.Join(ref.Workspace, "src", "a.go")
	record := func(text string, seen session.LineSet) string {
		return store.Record(path, session.Snapshot{Digest: workspace.Sum(text), Text: text, HasText: true, Lines: len(workspace.Lines(text)), Bytes: int64(len(text)), Seen: seen})
	}
	record("one\n", session.Unknown())
	record("one\ntwo\n", session.Empty())
	tag := record("1\n2\n3\n4\n5\n", session.Span(1, 2).Add(4, 5))
	sess.State().Registers.Set("fn", []string{"a", "bc"})

	var raw json.RawMessage
	mustCall(t, c, "debug.session", wire.SessionIDParams{SessionID: "s"}, &raw)
	var dump wire.SessionDump
	json.Unmarshal(raw, &dump)
	if dump.SessionID != "s" || dump.Workspace != ref.Workspace || dump.RetainedBytes != int64(len("one\n")+len("one\ntwo\n")+len("1\n2\n3\n4\n5\n")) {
		t.Errorf("header: %+v", dump)
	}
	if len(dump.Paths) != 1 || dump.Paths[0].Path != "src/a.go" || len(dump.Paths[0].Versions) != 3 {
		t.Fatalf("paths: %+v", dump.Paths)
	}
	v := dump.Paths[0].Versions[0]
	if v.Tag != tag || v.Lines != 5 || v.Bytes != 10 || !v.Retained || v.RecordedAt.IsZero() {
		t.Errorf("newest version: %+v", v)
	}
	// seenLines: merged ranges, the empty set, and unknown, as the wire shows them.
	var onWire struct {
		Paths []struct {
			Versions []struct {
				SeenLines json.RawMessage `json:"seenLines"`
			} `json:"versions"`
		} `json:"paths"`
		Registers []wire.RegisterInfo `json:"registers"`
	}
	json.Unmarshal(raw, &onWire)
	var seen []string
	for _, v := range onWire.Paths[0].Versions {
		seen = append(seen, string(v.SeenLines))
	}
	if want := []string{"[[1,2],[4,5]]", "[]", "null"}; !slices.Equal(seen, want) {
		t.Errorf("seenLines = %v, want %v", seen, want)
	}
	if len(onWire.Registers) != 1 || onWire.Registers[0] != (wire.RegisterInfo{Name: "fn", Lines: 2, Bytes: 5}) {
		t.Errorf("registers: %+v", onWire.Registers)
	}
}

func TestDebugSessionOfAnEmptySessionHasEmptyLists(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, nil)
	var raw map[string]json.RawMessage
	mustCall(t, c, "debug.session", wire.SessionIDParams{SessionID: "s"}, &raw)
	if string(raw["paths"]) != "[]" || string(raw["registers"]) != "[]" {
		t.Errorf("paths %s, registers %s: want [] for both", raw["paths"], raw["registers"])
	}
}

// A tool that fails answers a result (ok: false), not an error; debug.stats
// still counts it among tools.execute's errors, where a person looks.
func TestDebugStatsCountsFailedToolsAsErrors(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	mustCall(t, c, "session.create", wire.SessionCreateParams{Workspace: t.TempDir(), SessionID: "s"}, nil)
	var out struct {
		OK bool `json:"ok"`
	}
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": "s", "tool": "read", "args": map[string]any{"path": "missing.txt"}}, &out)
	if out.OK {
		t.Fatal("reading a missing file succeeded")
	}
	mustCall(t, c, "tools.execute", map[string]any{"sessionId": "s", "tool": "write", "args": map[string]any{"path": "a.txt", "content": "a\n"}}, &out)
	if !out.OK {
		t.Fatal("write failed")
	}
	var st wire.Stats
	mustCall(t, c, "debug.stats", nil, &st)
	if got := st.Calls["tools.execute"]; got.Count != 2 || got.Errors != 1 {
		t.Errorf("tools.execute: %+v, want 2 calls and 1 error", got)
	}
}
