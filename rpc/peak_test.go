package rpc

import (
	"fmt"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// heapPeak samples the live heap until stop is closed and returns the
// highest value seen.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak atomic.Uint64
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				out <- peak.Load()
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	return out
}

// One large request costs the daemon about its own size: the frame is
// read into one buffer of its length, and the params the handler gets
// (a tool's arguments) alias it (issue: one 60 MB request peaked at
// 690-750 MB; the rpc layer's share was 368 MiB).
func TestOneLargeRequestCostsAboutItsSize(t *testing.T) {
	h := newHarness(t)
	close(h.block.release)
	c := h.raw()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"session.create","params":{"workspace":%q,"sessionId":"s"}}`, t.TempDir()))
	c.recv()
	size := 60 << 20
	if raceEnabled {
		size = 16 << 20
	}
	body := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools.execute","params":{"sessionId":"s","tool":"block","args":{"path":"a","content":"%s"}}}`, strings.Repeat("a", size)))
	base := heapAfterGC()
	stop := make(chan struct{})
	peak := heapPeak(stop)
	fmt.Fprintf(c.nc, "Content-Length: %d\r\n\r\n", len(body))
	c.nc.Write(body)
	r := c.recv()
	close(stop)
	p := <-peak
	t.Logf("one %d MiB tools.execute: heap peak %d MiB over a base of %d MiB", size>>20, (p-base)>>20, base>>20)
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if grown := p - base; grown > uint64(size)*5/4+16<<20 {
		t.Errorf("a %d MiB request peaked at %d MiB over the base", size>>20, grown>>20)
	}
}
