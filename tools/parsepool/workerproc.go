package parsepool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hostd-dev/hostd/internal/spawn"
)

// This file is one worker process as the daemon sees it: started with
// pipes for its stdin and stdout, configured, asked one request at a
// time, and ended when a request overruns, its call is cancelled, or the
// pool closes.

// killGrace is how long past a request's parse time the daemon waits for
// the worker's answer before it ends the worker. Within it the worker's
// own cut (the reader ending the text, tree-sitter's clock) nearly
// always stops the parse and the worker, with its trees, lives on.
const killGrace = 100 * time.Millisecond

// startTimeout bounds a worker's start: the process starting, reading its
// configuration and answering that it is ready.
const startTimeout = 10 * time.Second

// exitWait bounds how long ending a worker waits for the system to
// report it gone.
const exitWait = 5 * time.Second

// Why the daemon ended a worker.
const (
	endedNot    int32 = iota
	endedTime         // a request ran past its time and killGrace
	endedCancel       // the request's call was cancelled
	endedClose        // the pool closed
	endedBroken       // the worker broke the protocol or its pipes
)

// proc is one running worker.
type proc struct {
	kill1  func() error // sends the process SIGKILL (or ends it, on Windows)
	pid    int
	in     *os.File // the worker's stdin, our end
	out    *os.File // the worker's stdout, our end
	bw     *bufio.Writer
	enc    *gob.Encoder
	dec    *gob.Decoder
	stderr *tailBuffer
	ended  atomic.Int32  // endedTime, ...: why the daemon ended it
	done   chan struct{} // closed once the process has exited and been reaped
	exit   string        // how it exited, set before done closes
	limit  string        // the memory limit the worker reported
}

// procError is a request the worker did not answer.
type procError struct {
	ended  int32  // why the daemon ended it; endedNot: it died on its own
	exit   string // how it exited ("signal: aborted")
	stderr string // the start of what it wrote to stderr
}

func (e *procError) Error() string {
	switch e.ended {
	case endedTime:
		return "the parse worker overran its time and was ended"
	case endedCancel:
		return "the call was cancelled and its parse worker ended"
	case endedClose:
		return "the parse workers were shut down"
	}
	msg := "the parse worker ended (" + e.exit + ")"
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	return msg
}

// startProc starts a worker from cmd, through sp when it is not nil
// (spawn: the daemon then forks nothing itself), and waits until it is
// ready.
func startProc(cmd *exec.Cmd, sp *spawn.Spawner, cfg workerConfig, j *job) (*proc, error) {
	p := &proc{stderr: &tailBuffer{max: 4 << 10}, done: make(chan struct{})}
	var process *os.Process
	var err error
	if sp != nil {
		err = p.startSpawned(sp, cmd)
	} else {
		process, err = p.startDirect(cmd)
	}
	if err != nil {
		return nil, err
	}
	growPipe(p.in)
	if err := j.assign(process); err != nil {
		p.end(endedBroken)
		return nil, fmt.Errorf("putting the worker in its job object: %w", err)
	}
	p.bw = bufio.NewWriterSize(p.in, 64<<10)
	p.enc = gob.NewEncoder(p.bw)
	p.dec = gob.NewDecoder(bufio.NewReaderSize(p.out, 64<<10))
	timer := time.AfterFunc(startTimeout, func() { p.kill(endedTime) })
	var hello workerHello
	err = p.send(cfg)
	if err == nil {
		err = p.dec.Decode(&hello)
	}
	timer.Stop()
	switch {
	case err != nil:
		p.end(endedBroken)
		if p.ended.Load() == endedTime {
			return nil, fmt.Errorf("the worker did not answer within %v", startTimeout)
		}
		return nil, fmt.Errorf("the worker did not start (%s): %s", p.exitStatus(), firstLine(p.stderr.String()))
	case hello.Protocol != workerProtocol:
		p.end(endedBroken)
		return nil, fmt.Errorf("the worker speaks protocol %d, not %d: the program file was replaced since the daemon started; restart the daemon", hello.Protocol, workerProtocol)
	case hello.Err != "":
		p.end(endedBroken)
		return nil, fmt.Errorf("the worker cannot serve: %s", hello.Err)
	}
	p.limit = hello.Limit
	return p, nil
}

// startDirect starts cmd from this process.
func (p *proc) startDirect(cmd *exec.Cmd) (*os.Process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	setProcAttr(cmd)
	spawn.BeforeStart()
	err = startCmd(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	p.in, p.out, p.pid, p.kill1 = inW, outR, cmd.Process.Pid, cmd.Process.Kill
	go func() {
		err := cmd.Wait()
		p.exit = "exit status 0"
		if err != nil {
			p.exit = err.Error()
		}
		close(p.done)
	}()
	return cmd.Process, nil
}

// startSpawned starts cmd's program through the spawner.
func (p *proc) startSpawned(sp *spawn.Spawner, cmd *exec.Cmd) error {
	c, err := sp.Run(cmd.Path, cmd.Args)
	if err != nil {
		return err
	}
	p.in, p.out, p.pid, p.kill1 = c.Stdin, c.Stdout, c.PID, c.Kill
	go func() {
		p.exit = c.Wait(p.stderr)
		close(p.done)
	}()
	return nil
}

func (p *proc) send(v any) error {
	if err := p.enc.Encode(v); err != nil {
		return err
	}
	return p.bw.Flush()
}

// exchange sends rq and reads the answer, ending the worker when none
// comes within limit and killGrace, or when ctx is cancelled. On an error
// the worker is gone (waited for) and the error is a *procError.
func (p *proc) exchange(ctx context.Context, rq *workerRequest, limit time.Duration) (*workerResponse, error) {
	timer := time.AfterFunc(limit+killGrace, func() { p.kill(endedTime) })
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.Canceled) {
			p.kill(endedCancel)
		}
	})
	rs := &workerResponse{}
	err := p.send(rq)
	if err == nil {
		err = p.dec.Decode(rs)
	}
	timer.Stop()
	stop()
	if err == nil {
		return rs, nil
	}
	if p.ended.Load() == endedNot {
		// No answer and not ended by us: the worker died on its own (a
		// grammar's abort, its memory limit), or broke the protocol while
		// alive.
		select {
		case <-p.done:
		case <-time.After(time.Second):
			p.ended.CompareAndSwap(endedNot, endedBroken)
		}
	}
	p.end(endedNot)
	return nil, &procError{ended: p.ended.Load(), exit: p.exitStatus(), stderr: firstLine(p.stderr.String())}
}

// exitStatus is how the worker exited, "" while it has not.
func (p *proc) exitStatus() string {
	select {
	case <-p.done:
		return p.exit
	default:
		return ""
	}
}

// kill ends the worker, recording why unless it had been ended already.
func (p *proc) kill(why int32) {
	p.ended.CompareAndSwap(endedNot, why)
	_ = p.kill1()
}

// end makes sure the worker is gone: it kills it (recording why, unless
// why is endedNot or it had been ended already), waits until the system
// reports it gone (at most exitWait) and closes the pipes.
func (p *proc) end(why int32) {
	if why != endedNot {
		p.ended.CompareAndSwap(endedNot, why)
	}
	_ = p.kill1()
	select {
	case <-p.done:
	case <-time.After(exitWait):
	}
	p.in.Close()
	p.out.Close()
}

// tailBuffer keeps the first max bytes written to it: a grammar's
// assertion message comes first.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
