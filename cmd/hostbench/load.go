package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// echoServer is the baseline of the end-to-end section: the bare
// sourcegraph/jsonrpc2 library on a Unix socket with the same LSP framing,
// and a handler that does no work. For "tools.execute" it answers with a
// canned result (a real read result captured from hostd, so both servers
// send the same bytes back); for anything else it echoes the params.
type echoServer struct {
	l      net.Listener
	canned json.RawMessage
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []*jsonrpc2.Conn
}

func startEcho(sock string, canned json.RawMessage) (*echoServer, error) {
	l, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	e := &echoServer{l: l, canned: canned}
	h := jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
		if r.Method == "tools.execute" {
			return e.canned, nil
		}
		if r.Params == nil {
			return struct{}{}, nil
		}
		return r.Params, nil
	})
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), h)
			e.mu.Lock()
			e.conns = append(e.conns, c)
			e.mu.Unlock()
		}
	}()
	return e, nil
}

// echoCommand is the hidden argument that makes this binary serve the
// echo baseline in a process of its own, as hostd serves in its own, so
// neither server shares a Go runtime with the client that loads it.
const echoCommand = "serve-echo"

// serveEcho is the echo process: it serves on sock with the canned result
// read from cannedFile until ctx ends (SIGTERM or SIGINT).
func serveEcho(ctx context.Context, sock, cannedFile string) error {
	canned, err := os.ReadFile(cannedFile)
	if err != nil {
		return err
	}
	e, err := startEcho(sock, json.RawMessage(canned))
	if err != nil {
		return err
	}
	<-ctx.Done()
	e.close()
	return nil
}

// startEchoProcess runs this binary's echo server as a child process on
// a socket in dir and waits until it accepts connections.
func startEchoProcess(ctx context.Context, dir string, canned json.RawMessage) (sock string, stop func(), err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	file := filepath.Join(dir, "canned.json")
	if err := os.WriteFile(file, canned, 0o600); err != nil {
		return "", nil, err
	}
	sock = filepath.Join(dir, "echo.sock")
	cmd := exec.Command(exe, echoCommand, sock, file)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		if c, err := dialRPC(ctx, sock); err == nil {
			c.close()
			return sock, stop, nil
		}
		select {
		case <-exited:
			return "", nil, errors.New("the echo server exited at start")
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			stop()
			return "", nil, errors.New("the echo server did not start within 20 s")
		}
	}
}

func (e *echoServer) close() {
	e.l.Close()
	e.wg.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.conns {
		c.Close()
	}
}

// loadResult is one timed burst of calls.
type loadResult struct {
	calls   int
	elapsed time.Duration
	lat     []time.Duration // sorted
}

func (r loadResult) perSecond() float64 { return float64(r.calls) / r.elapsed.Seconds() }

// quantile of the sorted latencies, q in [0, 1].
func (r loadResult) quantile(q float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	i := int(q * float64(len(r.lat)-1))
	return r.lat[i]
}

// runLoad runs workers goroutines at once, each making calls calls with
// call(worker, i), and measures the whole burst and every call. The first
// error stops the burst.
func runLoad(ctx context.Context, workers, calls int, call func(ctx context.Context, w, i int) error) (loadResult, error) {
	lat := make([][]time.Duration, workers)
	errs := make([]error, workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := 0; w < workers; w++ {
		lat[w] = make([]time.Duration, 0, calls)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := 0; i < calls; i++ {
				t0 := time.Now()
				if err := call(ctx, w, i); err != nil {
					errs[w] = err
					cancel()
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	r := loadResult{elapsed: time.Since(t0)}
	if err := firstError(errs); err != nil {
		return r, err
	}
	for _, l := range lat {
		r.lat = append(r.lat, l...)
	}
	slices.Sort(r.lat)
	r.calls = len(r.lat)
	return r, nil
}

// firstError prefers the error that stopped a burst over the cancellations
// it caused in the other workers.
func firstError(errs []error) error {
	var cancelled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			cancelled = err
		default:
			return err
		}
	}
	return cancelled
}
