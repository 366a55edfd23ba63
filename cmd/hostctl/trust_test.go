//go:build unix

package main

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// otherUID is a uid no test process runs as.
const otherUID = 4242

func needRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("creating files owned by another user needs root")
	}
}

// impostor listens on socket like a daemon would and counts the bytes any
// client sends it; hostctl must refuse before sending one.
func impostor(t *testing.T, socket string) *atomic.Int64 {
	t.Helper()
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			n, _ := io.Copy(io.Discard, c)
			got.Add(n)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return &got
}

// The attack on a shared /tmp: another user got to create hostd-$UID/
// first and serves a socket in it. hostctl refuses before sending a byte.
func TestAPlantedSocketDirectoryIsRefused(t *testing.T) {
	needRoot(t)
	dir := filepath.Join(shortSocketDir(t), "hostd-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "hostd.sock")
	got := impostor(t, socket)
	for _, p := range []string{dir, socket} {
		if err := os.Chown(p, otherUID, otherUID); err != nil {
			t.Fatal(err)
		}
	}

	code, out, errOut := runCLI(t, nil, "", "--socket", socket, "info")
	want := "another user (uid 4242) owns " + dir
	if code != exitFailed || out != "" || !strings.Contains(errOut, want) || !strings.Contains(errOut, "private directory of your own") {
		t.Errorf("exit %d, stdout %q, stderr lacks %q and the way out:\n%s", code, out, want, errOut)
	}
	time.Sleep(50 * time.Millisecond)
	if n := got.Load(); n != 0 {
		t.Errorf("hostctl sent %d bytes to a socket another user owns", n)
	}
}

func TestUntrustedSocketsAreRefused(t *testing.T) {
	type setup func(t *testing.T, base string) (socket string)
	inDir := func(mode os.FileMode, chown bool) setup {
		return func(t *testing.T, base string) string {
			dir := filepath.Join(base, "run")
			os.Mkdir(dir, 0o700)
			socket := filepath.Join(dir, "hostd.sock")
			impostor(t, socket)
			if err := os.Chmod(dir, mode); err != nil {
				t.Fatal(err)
			}
			if chown {
				if err := os.Chown(socket, otherUID, otherUID); err != nil {
					t.Fatal(err)
				}
			}
			return socket
		}
	}
	tests := []struct {
		name  string
		root  bool
		setup setup
		want  string
	}{
		{"group-writable directory", false, inDir(0o770, false), "has mode 0770, so other users can replace the socket"},
		{"world-writable sticky directory", false, inDir(0o777|os.ModeSticky, false), "has mode 0777, so other users can replace the socket"},
		{"socket of another user", true, inDir(0o700, true), "the socket belongs to uid 4242, not to you"},
		{"directory is a symlink", false, func(t *testing.T, base string) string {
			real := filepath.Join(base, "real")
			os.Mkdir(real, 0o700)
			impostor(t, filepath.Join(real, "hostd.sock"))
			os.Symlink(real, filepath.Join(base, "link"))
			return filepath.Join(base, "link", "hostd.sock")
		}, "is a symbolic link"},
		{"not a socket", false, func(t *testing.T, base string) string {
			p := filepath.Join(base, "hostd.sock")
			os.WriteFile(p, nil, 0o600)
			return p
		}, "it is not a socket (a regular file)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root {
				needRoot(t)
			}
			socket := tt.setup(t, shortSocketDir(t))
			code, _, errOut := runCLI(t, nil, "", "--socket", socket, "info")
			if code != exitFailed || !strings.Contains(errOut, "refusing "+socket) || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr lacks %q:\n%s", code, tt.want, errOut)
			}
		})
	}
}

// The peer check end to end: a process running as another user listens,
// its socket sits in our private directory (as if planted by a path trick
// the directory checks cannot see), and hostctl still refuses it because
// the kernel says who listens.
func TestADaemonOfAnotherUserIsRefused(t *testing.T) {
	needRoot(t)
	if runtime.GOOS != "linux" {
		t.Skip("SO_PEERCRED is Linux's")
	}
	const nobody = 65534
	// The child runs this test binary as nobody, so it must be where
	// nobody can reach it.
	shared := shortSocketDir(t)
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(shared, "impostor")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	bound := filepath.Join(shared, "bound.sock")
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), impostorEnv+"="+bound)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var childErr strings.Builder
	cmd.Stderr = &childErr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "listening" {
		t.Fatalf("the impostor did not start: %q", lines.Text())
	}

	private := shortSocketDir(t)
	socket := filepath.Join(private, "hostd.sock")
	if err := os.Rename(bound, socket); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(socket, 0, 0); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, nil, "", "--socket", socket, "info")
	want := "the process listening on it runs as uid 65534, not as you (uid 0), so nothing was sent"
	if code != exitFailed || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stderr lacks %q:\n%s", code, want, errOut)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if lines.Scan(); lines.Text() != "received 0 bytes" {
		cmd.Wait()
		t.Errorf("the impostor reports %q (%v); its stderr:\n%s", lines.Text(), lines.Err(), childErr.String())
	}
}

// impostorEnv makes the test binary an impostor daemon (see TestMain).
const impostorEnv = "HOSTCTL_TEST_IMPOSTOR"

func TestMain(m *testing.M) {
	if socket := os.Getenv(impostorEnv); socket != "" {
		runImpostor(socket)
		return
	}
	code := m.Run()
	testenv.RemoveBinaries()
	os.Exit(code)
}

// runImpostor listens on socket, says so, and on SIGTERM reports how many
// bytes its clients sent.
func runImpostor(socket string) {
	ln, err := net.Listen("unix", socket)
	if err != nil {
		os.Stdout.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	var got atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				n, _ := io.Copy(io.Discard, c)
				got.Add(n)
			}()
		}
	}()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	os.Stdout.WriteString("listening\n")
	<-term
	time.Sleep(50 * time.Millisecond)
	os.Stdout.WriteString("received " + strconv.FormatInt(got.Load(), 10) + " bytes\n")
	os.Exit(0)
}

// `--socket DIR` is a person naming where the socket lives: hostctl says it
// is a directory and what to pass, and never to remove it.
func TestASocketFlagNamingADirectorySaysWhatToPass(t *testing.T) {
	dir := shortSocketDir(t)
	code, _, errOut := runCLI(t, nil, "", "--socket", dir, "info")
	if code != exitFailed || !strings.Contains(errOut, dir+" is a directory") || !strings.Contains(errOut, filepath.Join(dir, "hostd.sock")) || strings.Contains(errOut, "remove") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}
