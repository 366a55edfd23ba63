package spawn

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// message is one packet on the spawner's socket (SOCK_SEQPACKET: one
// message a packet, the child's descriptors attached to its "started").
type message struct {
	Op     string   `json:"op"` // to the spawner: start, kill; from it: started, exit
	ID     uint64   `json:"id,omitempty"`
	Path   string   `json:"path,omitempty"`
	Args   []string `json:"args,omitempty"` // Args[0] is what a process list shows
	Dir    string   `json:"dir,omitempty"`  // the child's working directory; "" the spawner's
	PID    int      `json:"pid,omitempty"`
	Err    string   `json:"err,omitempty"`
	Status string   `json:"status,omitempty"`
}

// maxMessage bounds one packet; a start's command line is far below it.
const maxMessage = 64 << 10

// exitWait bounds how long Close waits for the spawner to exit.
const exitWait = 5 * time.Second

// Spawner is the daemon's side of a spawner process.
type Spawner struct {
	conn   *net.UnixConn
	pid    int
	exited chan struct{} // closed once the spawner process has exited

	wmu sync.Mutex // one packet written at a time

	mu     sync.Mutex // guards the fields below; a leaf lock
	nextID uint64
	starts map[uint64]chan startReply // starts waiting for their answer
	procs  map[int]*Process           // children that have not exited
	gone   bool
}

type startReply struct {
	p   *Process
	err error
}

// Start starts path with args as a spawner (the program's Command mode,
// which calls Serve). Call it before opening any descriptor a child must
// never hold: the spawner holds what this process had then.
func Start(path string, args ...string) (*Spawner, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("spawn: socketpair: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "spawner")
	theirs := os.NewFile(uintptr(fds[1]), "spawner-peer")
	cmd := exec.Command(path, args...)
	if name, err := os.Executable(); err == nil {
		cmd.Args[0] = name
	}
	cmd.ExtraFiles = []*os.File{theirs} // fd 3
	cmd.Stderr = os.Stderr              // its own failures, which are rare
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	s := &Spawner{exited: make(chan struct{}), starts: map[uint64]chan startReply{}, procs: map[int]*Process{}}
	started := make(chan error, 1)
	go func() {
		// The parent-death signal is tied to the thread that starts the
		// spawner: this goroutine keeps that thread, never unlocked,
		// until the spawner has exited (Go may otherwise end a thread).
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(s.exited)
	}()
	err = <-started
	theirs.Close()
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("spawn: starting the process spawner: %w", err)
	}
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("spawn: %w", err)
	}
	s.conn, s.pid = c.(*net.UnixConn), cmd.Process.Pid
	go s.read()
	return s, nil
}

// PID is the spawner process's id.
func (s *Spawner) PID() int { return s.pid }

// Run starts path with args (args[0] is the name a process list shows)
// through the spawner, with pipes for its stdin, stdout and stderr, in a
// process group of its own, and returns once it has started.
func (s *Spawner) Run(path string, args []string) (*Process, error) {
	return s.RunIn("", path, args)
}

// RunIn is Run with dir as the child's working directory.
func (s *Spawner) RunIn(dir, path string, args []string) (*Process, error) {
	s.mu.Lock()
	if s.gone {
		s.mu.Unlock()
		return nil, ErrGone
	}
	s.nextID++
	id := s.nextID
	ch := make(chan startReply, 1)
	s.starts[id] = ch
	s.mu.Unlock()
	if err := s.send(message{Op: "start", ID: id, Path: path, Args: args, Dir: dir}); err != nil {
		s.mu.Lock()
		delete(s.starts, id)
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %v", ErrGone, err)
	}
	r := <-ch // read answers every start: its reply, or the spawner's end
	return r.p, r.err
}

// Kill asks the spawner to send the child SIGKILL. A child that has
// exited, or whose spawner has (it took its children with it), is left.
func (p *Process) Kill() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := p.s.send(message{Op: "kill", PID: p.PID}); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// Close ends the spawner, and with it every child it started, and waits
// (at most exitWait) until it has exited.
func (s *Spawner) Close() {
	s.conn.Close()
	select {
	case <-s.exited:
	case <-time.After(exitWait):
	}
}

func (s *Spawner) send(m message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, _, err = s.conn.WriteMsgUnix(b, nil, nil)
	return err
}

// read hands the spawner's answers to their starts and its exit reports
// to their processes, until the socket ends; then every start waiting
// and every child not reported is answered as gone.
func (s *Spawner) read() {
	buf := make([]byte, maxMessage)
	oob := make([]byte, syscall.CmsgSpace(3*4))
	for {
		n, oobn, _, _, err := s.conn.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			s.fail()
			return
		}
		files := receivedFiles(oob[:oobn])
		var m message
		if json.Unmarshal(buf[:n], &m) != nil {
			closeAll(files)
			continue
		}
		switch m.Op {
		case "started":
			s.mu.Lock()
			ch := s.starts[m.ID]
			delete(s.starts, m.ID)
			var r startReply
			switch {
			case m.Err != "":
				r.err = errors.New(m.Err)
			case len(files) != 3:
				r.err = fmt.Errorf("spawn: the spawner sent %d descriptors with a start, not 3", len(files))
			default:
				r.p = &Process{PID: m.PID, Stdin: files[0], Stdout: files[1], Stderr: files[2], s: s, done: make(chan struct{})}
				s.procs[m.PID] = r.p
			}
			s.mu.Unlock()
			if r.p == nil {
				closeAll(files)
			}
			if ch != nil {
				ch <- r
			} else if r.p != nil {
				_ = r.p.Kill() // no one asked for it
			}
		case "exit":
			closeAll(files)
			s.mu.Lock()
			p := s.procs[m.PID]
			delete(s.procs, m.PID)
			s.mu.Unlock()
			if p != nil {
				p.status = m.Status
				close(p.done)
			}
		default:
			closeAll(files)
		}
	}
}

// fail answers everything waiting once the spawner's socket has ended.
func (s *Spawner) fail() {
	s.conn.Close()
	s.mu.Lock()
	s.gone = true
	starts, procs := s.starts, s.procs
	s.starts, s.procs = map[uint64]chan startReply{}, map[int]*Process{}
	s.mu.Unlock()
	for _, ch := range starts {
		ch <- startReply{err: ErrGone}
	}
	if len(procs) > 0 {
		// The spawner's end is its children's (the parent-death signal,
		// or its own kill on the socket's end): wait for it, so that
		// holds when Done closes.
		select {
		case <-s.exited:
		case <-time.After(exitWait):
		}
	}
	for _, p := range procs {
		p.status = "the process spawner ended"
		close(p.done)
	}
}

func receivedFiles(oob []byte) []*os.File {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			syscall.CloseOnExec(fd)
			files = append(files, os.NewFile(uintptr(fd), "child-pipe"))
		}
	}
	return files
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// Serve is the spawner: it reads start and kill requests from the socket
// its daemon passed as descriptor 3, starts each child with new pipes for
// its stdio (sending the daemon its ends), reports each child's exit, and
// when the socket ends (the daemon closed it or died) kills its children
// and returns.
func Serve() error {
	// Every child's parent-death signal is tied to the thread that
	// started it: this one, locked for the process's life, starts them
	// all.
	runtime.LockOSThread()
	f := os.NewFile(3, "spawner")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("spawn: descriptor 3 is not the daemon's socket (this mode is started by the daemon only): %w", err)
	}
	conn, ok := c.(*net.UnixConn)
	if !ok {
		return errors.New("spawn: descriptor 3 is not a Unix socket")
	}
	sv := &server{conn: conn, procs: map[int]*exec.Cmd{}}
	defer sv.killAll()
	buf := make([]byte, maxMessage)
	for {
		n, _, _, _, err := conn.ReadMsgUnix(buf, nil)
		if err != nil || n == 0 {
			return nil
		}
		var m message
		if json.Unmarshal(buf[:n], &m) != nil {
			continue
		}
		switch m.Op {
		case "start":
			sv.start(m)
		case "kill":
			sv.mu.Lock()
			cmd := sv.procs[m.PID]
			sv.mu.Unlock()
			if cmd != nil {
				_ = cmd.Process.Kill()
			}
		}
	}
}

// server is the spawner's state.
type server struct {
	conn *net.UnixConn
	wmu  sync.Mutex
	mu   sync.Mutex
	// procs are the children not yet reaped. Kill after the reap is
	// safe: os.Process refuses it rather than signal a reused pid.
	procs map[int]*exec.Cmd
}

func (sv *server) send(m message, files []*os.File) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		oob = syscall.UnixRights(fds...)
	}
	sv.wmu.Lock()
	defer sv.wmu.Unlock()
	_, _, err = sv.conn.WriteMsgUnix(b, oob, nil)
	return err
}

// start starts one child and answers the daemon.
func (sv *server) start(m message) {
	cmd, ends, err := startChild(m.Dir, m.Path, m.Args)
	if err != nil {
		_ = sv.send(message{Op: "started", ID: m.ID, Err: err.Error()}, nil)
		return
	}
	pid := cmd.Process.Pid
	sv.mu.Lock()
	sv.procs[pid] = cmd
	sv.mu.Unlock()
	err = sv.send(message{Op: "started", ID: m.ID, PID: pid}, ends)
	closeAll(ends)
	if err != nil {
		_ = cmd.Process.Kill()
	}
	go func() {
		status := "exit status 0"
		if err := cmd.Wait(); err != nil {
			status = err.Error()
		}
		sv.mu.Lock()
		delete(sv.procs, pid)
		sv.mu.Unlock()
		_ = sv.send(message{Op: "exit", PID: pid, Status: status}, nil)
	}()
}

func (sv *server) killAll() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	for _, cmd := range sv.procs {
		_ = cmd.Process.Kill()
	}
}

// startChild starts path in dir with pipes for its stdio and returns our
// ends: its stdin's write end, its stdout's and stderr's read ends.
func startChild(dir, path string, args []string) (*exec.Cmd, []*os.File, error) {
	var ours, theirs []*os.File
	fail := func(err error) (*exec.Cmd, []*os.File, error) {
		closeAll(ours)
		closeAll(theirs)
		return nil, nil, err
	}
	if dir != "" {
		// A start in a missing directory fails naming the program
		// (fork/exec path: no such file), which says the wrong thing.
		if info, err := os.Stat(dir); err != nil {
			return fail(fmt.Errorf("cannot start %s in %s: %w", filepath.Base(path), dir, err))
		} else if !info.IsDir() {
			return fail(fmt.Errorf("cannot start %s in %s: not a directory", filepath.Base(path), dir))
		}
	}
	for i := 0; i < 3; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		if i == 0 {
			ours, theirs = append(ours, w), append(theirs, r)
		} else {
			ours, theirs = append(ours, r), append(theirs, w)
		}
	}
	cmd := exec.Command(path)
	cmd.Dir = dir
	if len(args) > 0 {
		cmd.Args = args
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs[0], theirs[1], theirs[2]
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	BeforeStart()
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	closeAll(theirs)
	return cmd, ours, nil
}
