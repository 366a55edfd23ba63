// Package spawn owns starting the daemon's child processes (its parse
// workers and language servers) from a spawner: a small process of this
// program, started before the daemon claims its socket, that forks every
// child on the daemon's behalf and hands back its end of the child's
// pipes.
//
// Why. Between fork and execve a child holds a copy of every descriptor
// of the process that forked it: close-on-exec closes them at execve, not
// at fork. A child forked by the daemon itself holds, for that moment,
// the socket's lock file and the listening socket. If the daemon is
// killed then, and the child is left unscheduled (a busy machine: over a
// second was seen), the lock stays held and the socket keeps listening
// with nobody to answer: a daemon started at once is refused (the lock
// is held, or the probe of the socket connects), and a client connects
// to a listener that will never answer. A spawner holds no such
// descriptor (it was started before the daemon opened them), so neither
// does any child it forks, at any moment: the daemon's lock and listener
// are held by the daemon process alone and the kernel releases them when
// it dies. The daemon forks nothing after it claims its address.
//
// The spawner dies with the daemon (Linux: the parent-death signal of
// the thread that started it, and in any case the end of its socket),
// and its children with it (the same signal, tied to the spawner's own
// thread). On platforms without it (Start returns nil), the daemon
// starts its children itself.
//
// Concurrency: a Spawner is safe for concurrent use; a start holds wmu
// only to send its request.
package spawn

import (
	"errors"
	"io"
	"os"
	"time"
)

// Command is the first argument that makes this program a spawner
// (Serve): the daemon starts itself again with it. It is not for people.
const Command = "process-spawner"

// ErrGone is a request to a spawner that has ended.
var ErrGone = errors.New("spawn: the process spawner has ended")

// Process is a child started through a spawner.
type Process struct {
	PID    int
	Stdin  *os.File // our end of the child's stdin
	Stdout *os.File // our end of the child's stdout
	Stderr *os.File // our end of the child's stderr

	s      *Spawner
	done   chan struct{}
	status string // how it exited, set before done closes
}

// Done is closed once the child has exited and its parent reaped it, or
// once the spawner itself has ended: the child was then sent its
// parent-death signal, and ends as soon as the kernel runs it.
func (p *Process) Done() <-chan struct{} { return p.done }

// Status is how the child exited ("signal: killed"), "" before Done.
func (p *Process) Status() string {
	select {
	case <-p.done:
		return p.status
	default:
		return ""
	}
}

// Wait copies the child's stderr to stderr until the child ends, and
// returns how it exited (Status) once it has: what it wrote last is kept
// as exec.Cmd's Wait keeps it, though a grandchild that holds its stderr
// open is not waited for more than a second after the child's exit.
func (p *Process) Wait(stderr io.Writer) string {
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(stderr, p.Stderr)
		p.Stderr.Close()
		close(copied)
	}()
	<-p.done
	select {
	case <-copied:
	case <-time.After(time.Second):
	}
	return p.status
}

// beforeStart, when set, runs just before each child starts: a test hook
// (hook_tagged.go), never set in a release build.
var beforeStart func()

// BeforeStart runs the test hook of a child's start, if any: every
// starter of a daemon's children calls it (Serve, and a daemon that
// starts its children itself).
func BeforeStart() {
	if beforeStart != nil {
		beforeStart()
	}
}

// HoldEnv is the environment variable that, in a build with the
// hostdtesthooks tag, makes every child start of the process also start
// a holder: a process given a copy of every descriptor the starter has,
// which keeps them for the duration the variable names ("1.5s") and is
// not tied to its parent's life. It is what a child forked and not yet
// exec'd is, on a busy machine that leaves it unscheduled: the restart
// tests widen that window with it.
const HoldEnv = "HOSTD_TEST_START_HOLD"
