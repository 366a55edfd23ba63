package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// This file runs the real daemon for the end-to-end sections: built from
// this checkout into a temporary directory, started on a temporary socket
// with its own state directory, and talked to as any client does.

// tempHostd makes a section's temporary directory (hostbench-<section>-*)
// and compiles this checkout's ./cmd/hostd into it. The caller removes
// dir; on an error nothing is left to remove.
func tempHostd(ctx context.Context, o options, section string) (dir, bin string, err error) {
	dir, err = os.MkdirTemp("", "hostbench-"+section+"-")
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "hostd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/hostd")
	cmd.Dir = o.repo
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("go build ./cmd/hostd: %v: %s", err, lastLines(string(out), 5))
	}
	return dir, bin, nil
}

// daemon is one running hostd.
type daemon struct {
	cmd    *exec.Cmd
	sock   string
	output *syncBuffer
	exited chan struct{}
}

// syncBuffer collects the daemon's stderr for error messages.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() < 64<<10 { // enough to explain a failure, bounded
		s.b.Write(p)
	}
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startDaemon starts bin on a socket in dir and waits until it answers.
// Extra flags follow the socket and state flags.
// languageServersOff is the config field every section but langserver
// runs this checkout's daemon with: they measure hostd's own work, and a
// language server found on the PATH would add its wait to every write
// and edit (section 9 measures that on its own).
const languageServersOff = `"languageServers": {"enabled": false}`

// configArgs writes a config file of fields into dir and returns the
// flag that names it.
func configArgs(dir string, fields ...string) ([]string, error) {
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte("{"+strings.Join(fields, ", ")+"}"), 0o600); err != nil {
		return nil, err
	}
	return []string{"--config", path}, nil
}

func startDaemon(ctx context.Context, bin, dir string, extra ...string) (*daemon, error) {
	d := &daemon{sock: filepath.Join(dir, "hostd.sock"), output: &syncBuffer{}, exited: make(chan struct{})}
	args := append([]string{"--socket", d.sock, "--state-dir", filepath.Join(dir, "state"), "--log-level", "error"}, extra...)
	d.cmd = exec.Command(bin, args...)
	d.cmd.Stdout, d.cmd.Stderr = d.output, d.output
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { d.cmd.Wait(); close(d.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := dialRPC(ctx, d.sock)
		if err == nil {
			info, err := c.typed().HostInfo(ctx)
			c.close()
			if err == nil && info.PID == d.cmd.Process.Pid {
				return d, nil
			}
		}
		select {
		case <-d.exited:
			return nil, fmt.Errorf("hostd exited at start: %s", lastLines(d.output.String(), 5))
		case <-ctx.Done():
			d.stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("hostd did not answer on %s within 30 s: %s", d.sock, lastLines(d.output.String(), 5))
		}
	}
}

// stop asks the daemon to shut down and, if it does not exit in time,
// kills the process this command started.
func (d *daemon) stop() {
	if c, err := dialRPC(context.Background(), d.sock); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c.typed().HostShutdown(ctx)
		cancel()
		c.close()
	}
	select {
	case <-d.exited:
	case <-time.After(15 * time.Second):
		d.cmd.Process.Kill()
		<-d.exited
	}
}

// memory reads the daemon's resident set now (VmRSS) and at its peak
// (VmHWM) from /proc.
func (d *daemon) memory() (rss, hwm int64, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(d.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0, 0, err
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, perr := strconv.ParseInt(f[1], 10, 64)
		if perr != nil {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			hwm = kb << 10
		}
	}
	if rss == 0 {
		return 0, 0, errors.New("no VmRSS in /proc/PID/status")
	}
	return rss, hwm, nil
}

// rpcClient is one connection through the protocol's one Go client.
type rpcClient struct{ conn *client.Conn }

func dialRPC(ctx context.Context, sock string) (*rpcClient, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, err
	}
	return &rpcClient{conn: client.New(nc, client.Options{Peer: sock})}, nil
}

func (c *rpcClient) call(ctx context.Context, method string, params, result any) error {
	return c.conn.Call(ctx, method, params, result)
}

func (c *rpcClient) close() { c.conn.Close() }

// typed is the typed calls on the connection.
func (c *rpcClient) typed() *client.Client { return client.Typed(c.conn) }

// toolResult is a tools.execute result and the tag it carries (read's,
// write's and edit's own field, read from the tool's result type).
type toolResult struct {
	wire.ExecuteResult
	Tag string
}

// execute runs one tool call; a failed tool is an error with its code.
func (c *rpcClient) execute(ctx context.Context, sessionID, tool, args string) (toolResult, error) {
	res, err := c.typed().ToolsExecute(ctx, wire.ExecuteParams{SessionID: sessionID, Tool: tool, Args: json.RawMessage(args)})
	r := toolResult{ExecuteResult: res}
	if err != nil {
		return r, err
	}
	if r.Tag, err = tagOf(tool, &res); err != nil {
		return r, fmt.Errorf("%s %s: the result is not %s's: %w", tool, args, tool, err)
	}
	if !r.OK {
		if r.Error != nil {
			return r, fmt.Errorf("%s %s: %s: %s", tool, args, r.Error.Code, firstLine(r.Error.Message))
		}
		return r, fmt.Errorf("%s failed", tool)
	}
	return r, nil
}

// tagOf is the tag a read, write or edit result carries; "" for another
// tool's.
func tagOf(tool string, res *wire.ExecuteResult) (string, error) {
	switch tool {
	case "read":
		var r wire.ReadResult
		err := res.Decode(&r)
		return r.Tag, err
	case "write":
		var r wire.WriteResult
		err := res.Decode(&r)
		return r.Tag, err
	case "edit":
		var r wire.EditResult
		err := res.Decode(&r)
		return r.Tag, err
	}
	return "", nil
}

// createSession opens a session on workspace and returns its id.
func (c *rpcClient) createSession(ctx context.Context, workspace string) (string, error) {
	ref, err := c.typed().SessionCreate(ctx, wire.SessionCreateParams{Workspace: workspace})
	return ref.SessionID, err
}
