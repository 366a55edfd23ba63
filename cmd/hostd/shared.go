package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/buildinfo"
	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/internal/endpoint"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// The shared daemon (the desktop issue). Every `hostd --stdio` of a user
// that is not given its own --state-dir is a forwarder: it connects its
// stdin and stdout to the one daemon listening on the user's socket,
// starting that daemon first when none listens. So any number of app
// windows share one daemon: its sessions, its per-file locks and its
// review store. A daemon started by a forwarder shuts itself down once no
// client has been connected for sharedIdleExit. When the daemon goes away
// under a forwarder, the forwarder says so on stderr and exits 1, so its
// client sees the connection end instead of waiting forever.

// sharedIdleExit is how long a daemon a forwarder started stays up with no
// client connected.
const sharedIdleExit = 60 * time.Second

// sharedStartTimeout bounds how long a forwarder waits for the daemon it
// started to listen.
const sharedStartTimeout = 15 * time.Second

// errDaemonGone: the shared daemon closed the connection while the client
// was still talking to it.
var errDaemonGone = errors.New("the shared hostd closed the connection")

// forwardStdio relays std to the shared daemon on cfg.Socket until the
// client closes stdin (and every answer has come back), the daemon goes
// away, or ctx ends.
func forwardStdio(ctx context.Context, cfg config.Config, std stdio) error {
	conn, started, err := connectShared(ctx, cfg, std.err)
	if err != nil {
		return err
	}
	defer conn.Close()
	if started {
		fmt.Fprintf(std.err, "hostd %s: started the shared daemon on %s (it stops %s after its last client)\n", version(), cfg.Socket, sharedIdleExit)
	}
	fmt.Fprintf(std.err, "hostd %s forwarding stdin/stdout to the shared daemon on %s (pid %d)\n", version(), cfg.Socket, os.Getpid())

	clientDone := make(chan struct{})
	daemonDone := make(chan struct{})
	go func() {
		io.Copy(conn, std.in)
		conn.CloseWrite() // the daemon answers what is in flight, then closes
		close(clientDone)
	}()
	go func() {
		io.Copy(std.out, conn)
		close(daemonDone)
	}()
	select {
	case <-daemonDone:
		select {
		case <-clientDone:
			return nil // the client hung up and the daemon finished answering
		default:
		}
		std.out.Close()
		return fmt.Errorf("%w (socket %s): it was stopped or it crashed; the sessions it held are gone, but its review history is kept: restart this client to start a new daemon and re-create the session with the same sessionId", errDaemonGone, cfg.Socket)
	case <-ctx.Done():
		return nil
	}
}

// sharedInfoTimeout bounds how long a forwarder waits for the shared
// daemon's host.info before it relays anything.
const sharedInfoTimeout = 10 * time.Second

// connectShared connects to the daemon on cfg.Socket, starting one when
// nobody listens there, and checks on that connection that it speaks
// this hostd's protocol (checkShared). started reports that this call
// started it.
//
// A daemon that has just died can still take a connection: its socket
// listens until the last of its threads has exited, then the connection
// is reset. The check is made before anything of the client's is sent,
// so a connection that breaks during it is dialed again, a few times,
// and a new daemon started if none listens by then.
func connectShared(ctx context.Context, cfg config.Config, stderr io.Writer) (*sharedConn, bool, error) {
	var err error
	for attempt := range sharedCheckAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, false, ctx.Err()
			case <-time.After(sharedCheckRetry):
			}
		}
		var uc net.Conn
		var started bool
		if uc, started, err = dialOrStartShared(ctx, cfg); err != nil {
			return nil, false, err
		}
		var c *sharedConn
		if c, err = checkShared(uc, cfg.Socket, cfg.Limits.MaxFrameBytes, stderr); err == nil {
			return c, started, nil
		}
		uc.Close()
		if !errors.Is(err, errCheckBroken) {
			return nil, false, err
		}
	}
	return nil, false, err
}

// sharedCheckAttempts and sharedCheckRetry bound connectShared's retries
// of a connection that broke during the check.
const (
	sharedCheckAttempts = 5
	sharedCheckRetry    = 200 * time.Millisecond
)

// errCheckBroken marks a check whose connection broke (closed or reset)
// before the daemon answered.
var errCheckBroken = errors.New("the connection broke")

// sharedConn is a connection to the shared daemon whose first answer
// checkShared has read; the notifications that came before it, and what
// was read ahead, are read first.
type sharedConn struct {
	c net.Conn
	r io.Reader
}

func (c *sharedConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *sharedConn) Write(p []byte) (int, error) { return c.c.Write(p) }
func (c *sharedConn) Close() error                { return c.c.Close() }

// CloseWrite half-closes the connection: the daemon answers what is in
// flight, then closes.
func (c *sharedConn) CloseWrite() error {
	if cw, ok := c.c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.c.Close()
}

// sharedCheckID is the id of the forwarder's own host.info, sent before
// any of the client's frames, so no client id can collide with it.
const sharedCheckID = "hostd-forwarder-check"

// maxSharedCheckFrames bounds the notifications checkShared keeps for the
// client while it waits for its answer.
const maxSharedCheckFrames = 64

// checkShared asks the daemon for its host.info on uc, the connection it
// will relay, before anything of the client's is sent, and returns the
// connection to relay. A daemon of another protocol is refused: after an
// upgrade the old daemon lingers while its own clients are open, and a
// client of this build must not talk to it. A daemon of another build of
// the same protocol serves this client too, with a note on stderr saying
// which build answers. Notifications the daemon sends meanwhile (every
// connection gets review.recorded) are kept for the client, in order.
func checkShared(uc net.Conn, path string, maxFrame int64, stderr io.Writer) (*sharedConn, error) {
	fail := func(err error) error {
		if client.HungUp(err) {
			err = fmt.Errorf("%w: %w", errCheckBroken, err)
		}
		return fmt.Errorf("the shared daemon on %s did not answer host.info (%w); nothing was relayed to it: stop it (hostctl --socket %s shutdown) or give this hostd its own --state-dir", path, err, path)
	}
	uc.SetDeadline(time.Now().Add(sharedInfoTimeout))
	defer uc.SetDeadline(time.Time{})
	check := client.NewHandoff(uc, maxFrame, sharedCheckID, maxSharedCheckFrames)
	in, err := client.Typed(check).HostInfo(context.Background())
	if err != nil {
		return nil, fail(err)
	}
	self := buildinfo.Read()
	if in.ProtocolVersion != wire.ProtocolVersion {
		return nil, fmt.Errorf("the shared daemon on %s is hostd %s (pid %d) and speaks protocol %d; this hostd %s speaks protocol %d, so nothing was relayed to it. Started by a client, it exits %s after its last client; to replace it now, close its clients and run hostctl --socket %s shutdown, or give this hostd its own --state-dir",
			path, in.Version, in.PID, in.ProtocolVersion, self.Version, wire.ProtocolVersion, sharedIdleExit, path)
	}
	if in.Version != self.Version || in.Commit != self.CommitLabel() {
		fmt.Fprintf(stderr, "hostd %s: the shared daemon on %s is another build, hostd %s (pid %d), of the same protocol %d; it serves this client (started by a client, it exits %s after its last one)\n",
			self.Version, path, describeBuild(in.Version, in.Commit), in.PID, in.ProtocolVersion, sharedIdleExit)
	}
	return &sharedConn{c: uc, r: check.Rest()}, nil
}

// describeBuild is a version with its commit, when known.
func describeBuild(version, commit string) string {
	if commit == "" {
		return version
	}
	return version + " (commit " + commit + ")"
}

// dialOrStartShared connects to the daemon on cfg.Socket, starting one
// when nobody listens there. started reports that this call started it.
func dialOrStartShared(ctx context.Context, cfg config.Config) (c net.Conn, started bool, err error) {
	if c, err := dialShared(cfg.Socket); err == nil {
		return c, false, nil
	} else if !noListener(err) {
		return nil, false, err
	}
	logFrom := logSize(sharedLogPath(cfg))
	exited, err := startSharedDaemon(cfg)
	if err != nil {
		return nil, false, err
	}
	deadline := time.Now().Add(sharedStartTimeout)
	for {
		c, err := dialShared(cfg.Socket)
		if err == nil {
			return c, exited != nil, nil
		}
		if !noListener(err) {
			return nil, false, err
		}
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case res := <-exited:
			if res.live {
				// Another forwarder's daemon won the address. It holds
				// the lock and listens once its store is open, which may
				// take a while: dial it until the deadline.
				exited = nil
				continue
			}
			if c, err := dialShared(cfg.Socket); err == nil {
				return c, false, nil
			}
			cause := res.err.Error()
			if logged := lastFailure(sharedLogPath(cfg), logFrom); logged != "" {
				cause = logged
			}
			return nil, false, fmt.Errorf("the shared daemon it started exited: %s (its log: %s)", cause, sharedLogPath(cfg))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, false, fmt.Errorf("the shared daemon did not listen on %s within %s; see %s", cfg.Socket, sharedStartTimeout, sharedLogPath(cfg))
		}
	}
}

// daemonExit is how a started daemon ended: live when it found another
// daemon on its address (exit status exitLive).
type daemonExit struct {
	live bool
	err  error
}

// startSharedDaemon starts the shared daemon (startShared; a test stands in
// for it) and reports its exit on the channel.
var startSharedDaemon = startShared

// dialShared connects to the shared daemon once endpoint.Dial has found
// that it runs as this user; nothing is sent before.
func dialShared(path string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	return endpoint.Dial(ctx, path)
}

// probeTimeout bounds one connect attempt to the shared daemon.
const probeTimeout = time.Second

// noListener reports a dial that found no daemon: no socket (or pipe),
// or a stale socket file.
func noListener(err error) bool { return errors.Is(err, endpoint.ErrNoListener) }

// sharedLogPath is where a started daemon logs: its state directory.
func sharedLogPath(cfg config.Config) string { return filepath.Join(cfg.StateDir, "hostd.log") }

// logSize is the size of the log file now: where the lines of a daemon
// started next begin.
func logSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// maxLogTail bounds how much of the log lastFailure reads.
const maxLogTail = 1 << 20

// lastFailure is the error of the last logStartFailed line the log holds
// past offset from (at most its last maxLogTail bytes), or "".
func lastFailure(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if size := logSize(path); size-from > maxLogTail {
		from = size - maxLogTail
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return ""
	}
	var cause string
	lines := bufio.NewScanner(io.LimitReader(f, maxLogTail))
	lines.Buffer(make([]byte, 0, 64<<10), maxLogTail)
	for lines.Scan() {
		var entry struct {
			Msg   string `json:"msg"`
			Error string `json:"error"`
		}
		if json.Unmarshal(lines.Bytes(), &entry) == nil && entry.Msg == logStartFailed && entry.Error != "" {
			cause = entry.Error
		}
	}
	return cause
}

// startShared starts the shared daemon as a process of its own session, so
// it outlives the forwarder and the window that spawned it. It logs to
// its state directory. The returned channel receives its exit.
func startShared(cfg config.Config) (<-chan daemonExit, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the hostd binary to start the shared daemon: %w", err)
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("create the state directory %s: %w", cfg.StateDir, err)
	}
	args := []string{"--socket", cfg.Socket, "--log-file", sharedLogPath(cfg), "--log-level", cfg.LogLevel, "--idle-exit", sharedIdleExit.String()}
	if cfg.ConfigFile != "" {
		args = append(args, "--config", cfg.ConfigFile)
	}
	if cfg.RPCTrace {
		args = append(args, "--rpc-trace")
	}
	cmd, err := startDetached(self, args) // the log file has its story
	if err != nil {
		return nil, fmt.Errorf("start the shared daemon: %w", err)
	}
	exited := make(chan daemonExit, 1)
	go func() {
		err := cmd.Wait()
		var exit *exec.ExitError
		exited <- daemonExit{live: errors.As(err, &exit) && exit.ExitCode() == exitLive, err: err}
	}()
	return exited, nil
}

// idleListener counts a listener's open connections and reports when none
// has been open for the idle bound, for a daemon that should go away once
// its last client has.
type idleListener struct {
	net.Listener
	idle  time.Duration
	mu    sync.Mutex
	open  int
	timer *time.Timer
	fired chan struct{}
}

func newIdleListener(l net.Listener, idle time.Duration) *idleListener {
	il := &idleListener{Listener: l, idle: idle, fired: make(chan struct{})}
	il.timer = time.AfterFunc(idle, il.fire)
	return il
}

func (l *idleListener) fire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open == 0 {
		select {
		case <-l.fired:
		default:
			close(l.fired)
		}
	}
}

// Idle is closed once no connection has been open for the idle bound.
func (l *idleListener) Idle() <-chan struct{} { return l.fired }

// Accept implements net.Listener.
func (l *idleListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.timer.Stop()
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

func (l *idleListener) closed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open--; l.open == 0 {
		l.timer.Reset(l.idle)
	}
}

// countedConn tells its listener when it closes, once.
type countedConn struct {
	net.Conn
	l    *idleListener
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.l.closed)
	return err
}

// CloseWrite passes a half-close through to the Unix connection.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
