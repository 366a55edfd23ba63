package rpc

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools"
)

// The tool benchmarks time whole tools.execute calls over a Unix socket,
// as the runtime makes them: a read of a small file, and an edit with the
// durable review store on (fsync included), each call using the tag the
// previous one returned.
//
//	go test -run '^$' -bench 'Tool' ./rpc

func benchToolServer(b *testing.B, withReview bool) (*jsonrpc2Client, string) {
	c, path, _ := newBenchToolServer(b, withReview)
	return c, path
}

// benchToolServerWithStore is benchToolServer with the review store on,
// returned so the benchmark can set it up.
func benchToolServerWithStore(b *testing.B) (*jsonrpc2Client, string, *review.Store) {
	return newBenchToolServer(b, true)
}

func newBenchToolServer(b *testing.B, withReview bool) (*jsonrpc2Client, string, *review.Store) {
	lim := config.DefaultLimits()
	m := session.NewManager(lim)
	var store *review.Store
	if withReview {
		var err error
		if store, err = review.Open(b.TempDir(), lim, zap.NewNop()); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { store.Close() })
	}
	exec := tools.NewExecutor(tools.Options{Sessions: m, Limits: lim, Review: store, Tools: tools.Builtin()})
	srv := NewServer(Options{Limits: lim, Sessions: m, Executor: exec, Review: store, Log: zap.NewNop(), Version: "bench"})
	sock := filepath.Join(b.TempDir(), "t.sock")
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
	root := b.TempDir()
	var sb strings.Builder
	for i := range 40 {
		fmt.Fprintf(&sb, "\tvalue%d := compute(input, %d) // a line of source\n", i, i)
	}
	src := sb.String()
	if err := os.WriteFile(filepath.Join(root, "f.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	c := &jsonrpc2Client{benchClient(b, sock)}
	var ref wire.SessionRef
	if err := c.Call(context.Background(), "session.create", wire.SessionCreateParams{Workspace: root, SessionID: "bench"}, &ref); err != nil {
		b.Fatal(err)
	}
	return c, "f.go", store
}

type toolOut struct {
	OK      bool   `json:"ok"`
	Tag     string `json:"tag"`
	Content string `json:"content"`
}

func (c *jsonrpc2Client) tool(b *testing.B, name string, args map[string]any) toolOut {
	var out toolOut
	if err := c.Call(context.Background(), "tools.execute", map[string]any{"sessionId": "bench", "tool": name, "args": args}, &out); err != nil {
		b.Fatal(err)
	}
	if !out.OK {
		b.Fatalf("%s failed: %s", name, out.Content)
	}
	return out
}

func BenchmarkToolReadOverRPC(b *testing.B) {
	c, path := benchToolServer(b, false)
	for b.Loop() {
		c.tool(b, "read", map[string]any{"path": path})
	}
}

func BenchmarkToolEditOverRPC(b *testing.B) {
	for _, withReview := range []bool{false, true} {
		name := "review-off"
		if withReview {
			name = "review-on"
		}
		b.Run(name, func(b *testing.B) {
			c, path := benchToolServer(b, withReview)
			tag := c.tool(b, "read", map[string]any{"path": path}).Tag
			bodies := []string{"PUT 20.=20:\n+\tvalue19 := compute(other) // changed", "PUT 20.=20:\n+\tvalue19 := compute(input, 19) // a line of source"}
			i := 0
			for b.Loop() {
				tag = c.tool(b, "edit", map[string]any{"path": path, "tag": tag, "ops": bodies[i%2]}).Tag
				i++
			}
		})
	}
}

// jsonrpc2Client is a benchmark client connection with a tool helper.
type jsonrpc2Client struct{ *jsonrpc2.Conn }

// BenchmarkEditCommitLatency measures the whole edit call over the socket
// with the review store's lazy commits (the default) against eager ones
// (every Commit fsyncs its own transaction, as before), in alternating
// rounds on two servers so that a busy machine weighs on both alike. It
// reports each one's median call latency and their ratio (lazy / eager;
// the performance goal is at most 0.70).
//
//	go test -run '^$' -bench EditCommitLatency -benchtime 3000x ./rpc
func BenchmarkEditCommitLatency(b *testing.B) {
	type server struct {
		c     *jsonrpc2Client
		tag   string
		calls []time.Duration
	}
	servers := make([]*server, 2) // [0] eager, [1] lazy
	for i := range servers {
		c, path, store := benchToolServerWithStore(b)
		store.SetLazyCommit(i == 1)
		servers[i] = &server{c: c, tag: c.tool(b, "read", map[string]any{"path": path}).Tag}
	}
	bodies := []string{"PUT 20.=20:\n+\tvalue19 := compute(other) // changed", "PUT 20.=20:\n+\tvalue19 := compute(input, 19) // a line of source"}
	const round = 50
	n := 0
	for b.Loop() {
		s := servers[(n/round)%2]
		start := time.Now()
		s.tag = s.c.tool(b, "edit", map[string]any{"path": "f.go", "tag": s.tag, "ops": bodies[n%2]}).Tag
		s.calls = append(s.calls, time.Since(start))
		n++
	}
	if len(servers[0].calls) == 0 || len(servers[1].calls) == 0 {
		return
	}
	eager, lazy := median(servers[0].calls), median(servers[1].calls)
	b.ReportMetric(float64(eager.Microseconds()), "eager-p50-µs")
	b.ReportMetric(float64(lazy.Microseconds()), "lazy-p50-µs")
	b.ReportMetric(float64(lazy)/float64(eager), "lazy/eager")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
