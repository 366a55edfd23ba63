package review

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
)

// The lock tests run on every platform the store is built for, Windows
// (LockFileEx) included, and under wine as well as natively.

// lockTestDir is a fresh directory for a lock test. It is removed file by
// file rather than by t.TempDir's cleanup, whose POSIX-semantics delete on
// Windows wine does not implement: the lock tests must run under wine.
func lockTestDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "review-lock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			paths = append(paths, p)
			return err
		})
		slices.Reverse(paths) // children before their directory
		for _, p := range paths {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("cleanup: %v", err)
			}
		}
	})
	return dir
}

// twoHandles opens one file twice, as two processes would.
func twoHandles(t *testing.T) (a, b *os.File) {
	t.Helper()
	path := filepath.Join(lockTestDir(t), FileName)
	if err := os.WriteFile(path, []byte("store"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, h := range []**os.File{&a, &b} {
		f, err := openLockable(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		*h = f
	}
	return a, b
}

// A held lock is waited for up to the given time, then refused.
func TestLockFileRefusesPastTheWait(t *testing.T) {
	a, b := twoHandles(t)
	if err := lockFile(a, 0); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := lockFile(b, 300*time.Millisecond)
	if !errors.Is(err, errLockTimeout) {
		t.Fatalf("second handle's lockFile = %v, want errLockTimeout", err)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond {
		t.Errorf("refused after %v, before the 300ms wait was over", waited)
	}
	if !errors.Is(refusal("review.db", err), ErrLocked) {
		t.Errorf("the timeout is not refused as ErrLocked: %v", refusal("review.db", err))
	}
}

// A lock let go of during the wait is taken.
func TestLockFileWaitsForTheHolder(t *testing.T) {
	a, b := twoHandles(t)
	if err := lockFile(a, 0); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	go func() {
		time.Sleep(300 * time.Millisecond)
		a.Close() // closing the handle releases its lock
	}()
	if err := lockFile(b, 20*time.Second); err != nil {
		t.Fatalf("lockFile after the holder let go = %v", err)
	}
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Errorf("took the lock after %v, while the holder still held it", waited)
	}
}

// envLockHolder, in the child, names the state directory whose store the
// child opens and holds until its stdin closes.
const envLockHolder = "REVIEW_LOCK_HOLDER"

func lockHolderChild(dir string) {
	s, err := Open(dir, config.DefaultLimits(), nil)
	must(err)
	os.Stdout.WriteString("held\n")
	bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes it
	must(s.Close())
}

// A store another process has open is refused as locked, damaged or not:
// its file is neither opened nor moved aside; once that process is gone,
// it opens.
func TestOpenRefusesAStoreLockedByAnotherProcess(t *testing.T) {
	dir := lockTestDir(t)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), envLockHolder+"="+dir)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); child.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "held\n" {
		t.Fatalf("the child did not open the store: %q, %v", line, err)
	}

	start := time.Now()
	_, err = Open(dir, config.DefaultLimits(), nil)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "another hostd") {
		t.Fatalf("Open while another process holds the store = %v, want ErrLocked", err)
	}
	// bbolt's own wait ends one poll early.
	if waited := time.Since(start); waited < lockTimeout-2*lockRetry {
		t.Errorf("refused after %v, without waiting the %v for the holder", waited, lockTimeout)
	}
	path := filepath.Join(dir, FileName)
	if _, err := moveAside(path, time.Now(), false); !errors.Is(err, ErrLocked) {
		t.Fatalf("moveAside of the file another process holds = %v, want ErrLocked", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the held file was moved: %v", err)
	}

	stdin.Close()
	if err := child.Wait(); err != nil {
		t.Fatalf("the child failed: %v", err)
	}
	s, err := Open(dir, config.DefaultLimits(), nil)
	if err != nil {
		t.Fatalf("Open once the other process is gone = %v", err)
	}
	s.Close()
}
