// Package workspace owns where a session's tools may touch the filesystem
// and how file text is addressed: the roots of a session (workspace,
// scratch, approved external roots), the one path resolver every tool uses
// (edit-contract §13.8), the permission gate for writes, text normalization and
// tags (edit-contract §3), and the one atomic-write function (edit-contract §13.7).
// It holds no session state and knows nothing of tools or RPC.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Sentinel errors; callers match them with errors.Is and map them to wire
// codes in one place each.
var (
	// ErrInvalid: a root is missing, not a directory, or unreadable
	// (WORKSPACE_INVALID).
	ErrInvalid = errors.New("invalid workspace")
	// ErrOutside: the resolved path leaves every allowed root
	// (PATH_OUTSIDE_WORKSPACE).
	ErrOutside = errors.New("path is outside the workspace")
	// ErrDenied: the path is inside a root but may not be written
	// (TOOL_DENIED): a .git directory or a read-only external root.
	ErrDenied = errors.New("write denied")
	// ErrBadPath: the path itself is unusable (empty, NUL byte, or what
	// Windows' path rules refuse).
	ErrBadPath = errors.New("invalid path")
	// ErrBusy: another program holds the file open in a way that forbids
	// replacing or removing it (on Windows, open without FILE_SHARE_DELETE,
	// or locked); nothing was changed, and the same call succeeds once it
	// lets go (HOST_BUSY, retriable).
	ErrBusy = errors.New("the file is in use by another program")
)

// RootKind names which root a resolved path lies under, as read reports it.
type RootKind string

// The root kinds of wire-contract §4.
const (
	KindWorkspace RootKind = "workspace"
	KindScratch   RootKind = "scratch"
	KindExternal  RootKind = "external"
)

// Root is one directory a session may use. Path is canonical: absolute,
// clean and with every symlink resolved.
type Root struct {
	Path     string   `json:"path"`
	Kind     RootKind `json:"kind"`
	Writable bool     `json:"writable"`
}

// External is an approved root outside the workspace, as session.create
// names it.
type External struct {
	Path     string `json:"path"`
	Writable bool   `json:"writable"`
}

// Workspace is the set of roots of one session. It is immutable after New
// and safe for concurrent use.
//
// Its roots stay open while anyone holds a reference: New gives the caller
// one, Retain and Hold take more, Close lets one go, and the last one let
// go closes the roots. A directory held open cannot be deleted or renamed
// on Windows, so a session that ends lets go of its directories then, not
// when the garbage collector gets to them.
type Workspace struct {
	roots []Root // roots[0] is the workspace root; the rest in the order given
	dirs  []*Dir // dirs[i] is roots[i], open: every file operation goes through it
	// encodings give each path its charset (encodings.go); nil: UTF-8.
	encodings *Encodings
	open      *lifetime // shared with the copies WithEncodings makes
}

// lifetime counts the references to a workspace's open roots.
type lifetime struct {
	mu   sync.Mutex
	refs int  // references not yet let go
	shut bool // refs reached 0 and the roots are closed: no new reference
}

// New validates and canonicalizes the roots. The workspace and scratch
// roots are writable; external roots as approved. The caller holds the
// one reference to the roots and lets go of it with Close.
func New(root, scratch string, externals []External) (_ *Workspace, err error) {
	w := &Workspace{open: &lifetime{refs: 1}}
	defer func() {
		if err != nil {
			w.Close() // the roots opened before the one refused
		}
	}()
	add := func(p string, kind RootKind, writable bool) error {
		canon, err := canonicalDir(p)
		if err != nil {
			return fmt.Errorf("%w: %s root %q: %v", ErrInvalid, kind, p, err)
		}
		d, err := OpenDir(canon)
		if err != nil {
			return fmt.Errorf("%w: %s root %q: %v", ErrInvalid, kind, p, err)
		}
		w.roots = append(w.roots, Root{Path: canon, Kind: kind, Writable: writable})
		w.dirs = append(w.dirs, d)
		return nil
	}
	if err := add(root, KindWorkspace, true); err != nil {
		return nil, err
	}
	if scratch != "" {
		if err := add(scratch, KindScratch, true); err != nil {
			return nil, err
		}
	}
	for _, e := range externals {
		if err := add(e.Path, KindExternal, e.Writable); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Retain takes a reference to the roots, for an owner that lets go of it
// with Close (a session holds one from its creation until it is deleted
// or switched); false when the last reference was let go already and the
// roots are closed.
func (w *Workspace) Retain() bool {
	l := w.open
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shut {
		return false
	}
	l.refs++
	return true
}

// Hold takes a reference for one call, let go of by release (a release
// after the first does nothing); ok is false as Retain's is.
func (w *Workspace) Hold() (release func(), ok bool) {
	if !w.Retain() {
		return nil, false
	}
	var once sync.Once
	return func() { once.Do(w.Close) }, true
}

// Close lets go of one reference, and closes the roots when it was the
// last: every operation through them fails after that, with os.ErrClosed.
// Each reference is let go of once.
func (w *Workspace) Close() {
	l := w.open
	l.mu.Lock()
	l.refs--
	shut := l.refs == 0 && !l.shut
	if shut {
		l.shut = true
	}
	l.mu.Unlock()
	if shut {
		for _, d := range w.dirs {
			d.Close()
		}
	}
}

// Shares reports whether w and o are the same roots (o may be a copy
// WithEncodings made), under one count of references.
func (w *Workspace) Shares(o *Workspace) bool { return w.open == o.open }

func canonicalDir(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if windowsRules {
		var err error
		if p, err = windowsPath(p); err != nil {
			return "", err
		}
	}
	if !filepath.IsAbs(p) {
		return "", errors.New("must be an absolute path")
	}
	canon, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	canon = storedPath(canon)
	info, err := os.Stat(canon)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", errors.New("not a directory")
	}
	f, err := os.Open(canon)
	if err != nil {
		return "", err
	}
	f.Close()
	return canon, nil
}

// Root is the canonical workspace root.
func (w *Workspace) Root() string { return w.roots[0].Path }

// Roots lists every root, the workspace root first.
func (w *Workspace) Roots() []Root { return slices.Clone(w.roots) }

// Access is what a tool intends to do with a path.
type Access int

// Read access is allowed under every root; Write only under writable roots
// and never inside a .git directory.
const (
	Read Access = iota
	Write
)

// Path is a resolved tool path.
type Path struct {
	// Abs is canonical: absolute, clean, symlinks resolved as far as the
	// path exists. It is the key of the snapshot store.
	Abs string
	// Display is what the model sees: relative to the workspace root with
	// '/' separators, or absolute outside it.
	Display string
	Root    RootKind
	// Writable reports whether Write access would be granted.
	Writable bool
	// Charset is what the workspace's encodings setting says the file is
	// in when it has no byte-order mark (edit-contract §3.5).
	Charset Charset

	dir *Dir // the open root Abs lies under; every file operation goes through it
}

// Dir is the open root the path lies under; nil for a Path that was not
// made by Resolve.
func (p Path) Dir() *Dir { return p.dir }

var errUnresolved = errors.New("path was not resolved by a workspace")

// Open opens the file for reading through its root (Dir.Open).
func (p Path) Open() (*os.File, error) {
	if p.dir == nil {
		return nil, errUnresolved
	}
	return p.dir.Open(p.Abs)
}

// Stat stats the file through its root, following a final symlink that
// stays inside it.
func (p Path) Stat() (fs.FileInfo, error) {
	if p.dir == nil {
		return nil, errUnresolved
	}
	return p.dir.Stat(p.Abs)
}

// Lstat stats the path itself through its root.
func (p Path) Lstat() (fs.FileInfo, error) {
	if p.dir == nil {
		return nil, errUnresolved
	}
	return p.dir.Lstat(p.Abs)
}

// WriteFile atomically replaces the file through its root (Dir.WriteFile).
func (p Path) WriteFile(data []byte, perm fs.FileMode, want Expect) error {
	if p.dir == nil {
		return errUnresolved
	}
	return p.dir.WriteFile(p.Abs, data, perm, want)
}

// WriteFileSyncLater atomically replaces the file through its root and
// hands back the directory's fsync (Dir.WriteFileSyncLater).
func (p Path) WriteFileSyncLater(data []byte, perm fs.FileMode, want Expect) (*DirSync, error) {
	if p.dir == nil {
		return nil, errUnresolved
	}
	return p.dir.WriteFileSyncLater(p.Abs, data, perm, want)
}

// RemoveFile removes the path through its root (Dir.RemoveFile).
func (p Path) RemoveFile(want Expect) error {
	if p.dir == nil {
		return errUnresolved
	}
	return p.dir.RemoveFile(p.Abs, want)
}

// Symlink makes the path a symbolic link to target through its root
// (Dir.Symlink).
func (p Path) Symlink(target string, want Expect) error {
	if p.dir == nil {
		return errUnresolved
	}
	return p.dir.Symlink(target, p.Abs, want)
}

// Readlink returns the target of the symbolic link at the path.
func (p Path) Readlink() (string, error) {
	if p.dir == nil {
		return "", errUnresolved
	}
	return p.dir.Readlink(p.Abs)
}

// DirOf returns the open root a canonical path lies under.
func (w *Workspace) DirOf(abs string) (*Dir, bool) {
	i, ok := w.rootIndex(abs)
	if !ok {
		return nil, false
	}
	return w.dirs[i], true
}

func (w *Workspace) display(abs string) string {
	if within(w.Root(), abs) {
		rel, err := filepath.Rel(w.Root(), abs)
		if err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// Display is the model-facing spelling of a canonical path.
func (w *Workspace) Display(abs string) string { return w.display(abs) }
