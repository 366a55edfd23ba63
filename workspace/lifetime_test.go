package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// lifetimeRoot is a canonical workspace root holding a.txt.
func lifetimeRoot(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(tempDir(t))
	must(t, err)
	root := filepath.Join(base, "ws")
	must(t, os.Mkdir(root, 0o755))
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644))
	return root
}

// The roots close when the last reference is let go, not when the garbage
// collector gets to them: Windows removes no directory a handle holds open,
// so a person could not delete a project an ended session had used. A call
// that holds them keeps them open past the owner's Close.
func TestRootsCloseWithTheLastReference(t *testing.T) {
	root := lifetimeRoot(t)
	w, err := New(root, "", nil)
	must(t, err)
	p, err := w.Resolve("a.txt", Read)
	must(t, err)
	if !w.Retain() {
		t.Fatal("Retain on an open workspace failed")
	}
	release, ok := w.Hold()
	if !ok {
		t.Fatal("Hold on an open workspace failed")
	}
	w.Close() // New's reference
	w.Close() // Retain's
	f, err := p.Open()
	if err != nil {
		t.Fatalf("a held workspace's root was closed under the call: %v", err)
	}
	f.Close()
	if n, ok := testenv.OpenUnder(os.Getpid(), root); ok && n == 0 {
		t.Error("no descriptor is open on the root while a call holds it")
	}

	release()
	release() // the second release lets go of nothing more
	if _, err := p.Open(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("open after the last reference was let go: %v, want os.ErrClosed", err)
	}
	if _, ok := w.Hold(); ok {
		t.Error("Hold succeeded on closed roots")
	}
	if w.Retain() {
		t.Error("Retain succeeded on closed roots")
	}
	if n, _ := testenv.OpenUnder(os.Getpid(), root); n > 0 {
		t.Errorf("%d descriptors still open under %s", n, root)
	}
	// No collection first: nothing may hold the directory now.
	if err := removeByPath(root); err != nil {
		t.Errorf("the workspace's directory cannot be removed after Close: %v", err)
	}
}

// A copy WithEncodings makes is the same roots under the same count.
func TestCopiesShareTheRoots(t *testing.T) {
	root := lifetimeRoot(t)
	w, err := New(root, "", nil)
	must(t, err)
	c := w.WithEncodings(nil)
	if !w.Shares(c) || !c.Shares(w) {
		t.Fatal("a copy does not share its roots")
	}
	other, err := New(root, "", nil)
	must(t, err)
	defer other.Close()
	if w.Shares(other) {
		t.Error("two workspaces made by New share their roots")
	}
	p, err := w.Resolve("a.txt", Read)
	must(t, err)
	c.Close() // the one reference, let go through the copy
	if _, err := p.Open(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("open after the copy let go of the last reference: %v, want os.ErrClosed", err)
	}
}

// New closes the roots it opened before one it refuses.
func TestNewClosesTheRootsOfAFailure(t *testing.T) {
	root := lifetimeRoot(t)
	before, _ := testenv.OpenUnder(os.Getpid(), root)
	if _, err := New(root, filepath.Join(root, "a.txt"), nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a file as the scratch root: %v", err)
	}
	if n, _ := testenv.OpenUnder(os.Getpid(), root); n != before {
		t.Errorf("%d descriptors open under the root after a refused New, %d before", n, before)
	}
	if err := removeByPath(root); err != nil {
		t.Errorf("the root of a refused New cannot be removed: %v", err)
	}
}
