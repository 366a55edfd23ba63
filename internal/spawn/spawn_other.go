//go:build !linux

package spawn

// Spawner is the daemon's side of a spawner process; there is none here.
type Spawner struct{}

// Start returns nil: this platform has no spawner, and the daemon starts
// its children itself. On Windows a child inherits only the handles it
// is given, so it never holds the daemon's pipe; elsewhere the window
// between fork and exec stays (see the package comment).
func Start(string, ...string) (*Spawner, error) { return nil, nil }

// Run is never reached: Start made no spawner.
func (*Spawner) Run(string, []string) (*Process, error) { return nil, ErrGone }

// RunIn is never reached: Start made no spawner.
func (*Spawner) RunIn(string, string, []string) (*Process, error) { return nil, ErrGone }

// Close does nothing.
func (*Spawner) Close() {}

// PID is 0.
func (*Spawner) PID() int { return 0 }

// Kill does nothing: no process is started through a spawner here.
func (*Process) Kill() error { return nil }

// Serve refuses: there is no spawner mode here.
func Serve() error { return ErrGone }
