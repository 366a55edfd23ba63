package rpc

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
)

// The benchmarks measure host.info round trips over a Unix socket beside
// a bare jsonrpc2 echo server on the same kind of socket, in the same
// run, so the cost hostd adds to the library (framing checks, strict
// params, the table, stats, cancellation bookkeeping) can be read off:
//
//	go test -run '^$' -bench . -benchtime 2s ./rpc
//
// BenchmarkRatio interleaves the two servers call by call and reports
// hostd's throughput as a fraction of the bare server's (goal: >= 0.8).

// benchHostd starts a hostd server on a Unix socket and returns a client.
func benchHostd(b *testing.B) *jsonrpc2.Conn {
	lim := config.DefaultLimits()
	m := session.NewManager(lim)
	srv := NewServer(Options{Limits: lim, Sessions: m, Executor: tools.NewExecutor(tools.Options{Sessions: m, Limits: lim}), Log: zap.NewNop(), Version: "bench"})
	sock := filepath.Join(b.TempDir(), "h.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(l)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return benchClient(b, sock)
}

// benchBare starts the baseline: jsonrpc2 with its own VSCodeObjectCodec
// and a handler that echoes its params ("echo") or answers with the bytes
// of hostd's host.info result ("info"), nothing else.
func benchBare(b *testing.B) *jsonrpc2.Conn {
	sock := filepath.Join(b.TempDir(), "e.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	info, _ := json.Marshal(NewServer(Options{Limits: config.DefaultLimits(), Version: "bench", Grammars: []string{}}).hostInfoResult())
	echo := jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
		if r.Method == "info" {
			return json.RawMessage(info), nil
		}
		if r.Params == nil {
			return struct{}{}, nil
		}
		return r.Params, nil
	})
	go func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), echo)
		}
	}()
	b.Cleanup(func() { l.Close() })
	return benchClient(b, sock)
}

func benchClient(b *testing.B, sock string) *jsonrpc2.Conn {
	nc, err := net.Dial("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), noHandler{})
	b.Cleanup(func() { c.Close() })
	return c
}

func roundTrip(b *testing.B, c *jsonrpc2.Conn, method string) {
	var res json.RawMessage
	if err := c.Call(context.Background(), method, nil, &res); err != nil {
		b.Error(err) // not Fatal: callers run on their own goroutines
	}
}

func BenchmarkRoundTrip(b *testing.B) {
	servers := []struct {
		name, method string
		dial         func(*testing.B) *jsonrpc2.Conn
	}{
		{"hostd", "host.info", benchHostd},
		{"bare", "echo", benchBare},
		{"bare-same-bytes", "info", benchBare},
	}
	for _, s := range servers {
		b.Run(s.name+"/sequential", func(b *testing.B) {
			c := s.dial(b)
			b.ResetTimer()
			for range b.N {
				roundTrip(b, c, s.method)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
		b.Run(s.name+"/16callers", func(b *testing.B) {
			c := s.dial(b)
			b.ResetTimer()
			parallel(b.N, 16, func() { roundTrip(b, c, s.method) })
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// BenchmarkRatio alternates calls between hostd and the bare server so
// that both see the same machine load, and reports hostd's calls per
// second over the bare server's (goal: >= 0.8). Three pairings:
//
//   - info-vs-echo: host.info against the bare server echoing empty params,
//     the comparison the daemon's goal names. host.info answers with every
//     limit (about 1.2 KB), which both ends encode and decode several times
//     inside jsonrpc2, so this ratio is mostly the size of the answer.
//   - info-vs-same-bytes: host.info against the bare server answering with
//     the very bytes of hostd's host.info result: what hostd adds, with the
//     answer's size taken out.
//   - list-vs-echo: session.list with no sessions ({"sessions":[]}) against
//     the empty echo: hostd's per-call overhead on answers of equal size.
func BenchmarkRatio(b *testing.B) {
	pairs := []struct{ name, hostdMethod, bareMethod string }{
		{"info-vs-echo", "host.info", "echo"},
		{"info-vs-same-bytes", "host.info", "info"},
		{"list-vs-echo", "session.list", "echo"},
	}
	for _, p := range pairs {
		for _, callers := range []int{1, 16} {
			name := p.name + "/sequential"
			if callers > 1 {
				name = p.name + "/16callers"
			}
			b.Run(name, func(b *testing.B) {
				hostd, bare := benchHostd(b), benchBare(b)
				var hostdNs, bareNs atomic.Int64
				b.ResetTimer()
				parallel(b.N, callers, func() {
					t0 := time.Now()
					roundTrip(b, bare, p.bareMethod)
					t1 := time.Now()
					roundTrip(b, hostd, p.hostdMethod)
					bareNs.Add(int64(t1.Sub(t0)))
					hostdNs.Add(int64(time.Since(t1)))
				})
				b.ReportMetric(float64(bareNs.Load())/float64(hostdNs.Load()), "hostd/bare")
			})
		}
	}
}

// parallel runs f n times on k goroutines.
func parallel(n, k int, f func()) {
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				f()
			}
		}()
	}
	wg.Wait()
}
