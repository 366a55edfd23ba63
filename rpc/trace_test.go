package rpc

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// The wire trace (hostd --rpc-trace) logs each frame in and out, clipped,
// for a client developer to see exactly what crossed the wire.
func TestWireTraceLogsEachFrameClipped(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	h := newHarness(t, func(o *Options) { o.Trace, o.Log = true, zap.New(core) })
	c := h.client()
	mustCall(t, c, "host.info", nil, nil)
	big := strings.Repeat("x", 10<<10)
	call(t, c, "no.such.method", map[string]string{"pad": big}, nil)
	var in, out []observer.LoggedEntry
	for _, e := range logs.All() {
		switch e.Message {
		case "rpc in":
			in = append(in, e)
		case "rpc out":
			out = append(out, e)
		}
	}
	if len(in) != 2 || len(out) != 2 {
		t.Fatalf("%d frames in and %d out traced, want 2 and 2", len(in), len(out))
	}
	if f := in[0].ContextMap()["frame"].(string); !strings.Contains(f, `"host.info"`) {
		t.Errorf("first frame in: %s", f)
	}
	if f := out[0].ContextMap()["frame"].(string); !strings.Contains(f, `"protocolVersion"`) {
		t.Errorf("first frame out: %s", f)
	}
	big2 := in[1].ContextMap()
	if len(big2["frame"].(string)) != traceClip || big2["clipped"] != true || big2["bytes"].(int64) < 10<<10 {
		t.Errorf("a large frame is not clipped: %d bytes logged, %v", len(big2["frame"].(string)), big2["clipped"])
	}
}

// Without the trace no frame is logged.
func TestNoWireTraceByDefault(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	h := newHarness(t, func(o *Options) { o.Log = zap.New(core) })
	mustCall(t, h.client(), "host.info", nil, nil)
	if n := logs.FilterMessageSnippet("rpc ").Len(); n != 0 {
		t.Fatalf("%d frames traced without --rpc-trace", n)
	}
}
