package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Resolve maps a tool's path argument (relative to the workspace root, or
// absolute) to a canonical path under one of the roots. Symlinks are
// resolved before the root check, so a link that points outside every
// root is ErrOutside however it is spelled. Each existing element is
// spelled as its directory stores it (names.go), so every spelling of a
// file resolves to one canonical path. A path that does not exist yet
// resolves through its deepest existing ancestor and keeps the rest as
// given.
func (w *Workspace) Resolve(p string, access Access) (Path, error) {
	p, err := w.argPath(p)
	if err != nil {
		return Path{}, err
	}
	abs, err := w.canonicalPath(p)
	if err != nil {
		return Path{}, err
	}
	i, ok := w.rootIndex(abs)
	if !ok {
		return Path{}, fmt.Errorf("%w: %s resolves to %s", ErrOutside, p, abs)
	}
	root := w.roots[i]
	res := Path{Abs: abs, Root: root.Kind, Display: w.display(abs), dir: w.dirs[i]}
	res.Charset = w.encodings.of(root.Path, abs)
	git := inGitDir(root.Path, abs)
	res.Writable = root.Writable && !git
	if access == Write && !res.Writable {
		if git {
			return res, fmt.Errorf("%w: %s is inside a .git directory", ErrDenied, res.Display)
		}
		return res, fmt.Errorf("%w: %s is under a read-only root", ErrDenied, res.Display)
	}
	return res, nil
}

// argPath turns a tool's path argument into an absolute clean path,
// refusing one that names no file anywhere (ErrBadPath) and, on Windows,
// what its rules refuse (windowsArg) before anything touches the disk.
func (w *Workspace) argPath(p string) (string, error) {
	if strings.TrimSpace(p) == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: %q", ErrBadPath, p)
	}
	if windowsRules {
		var err error
		if p, err = windowsArg(p, w.roots); err != nil {
			return "", err
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Root(), p)
	}
	return filepath.Clean(p), nil
}

// ResolveLink is Resolve of a path whose last element is a symbolic link
// inside a root, when the caller acts on the link itself (REM and MV move
// or delete the link, never its target): the directories are resolved,
// the link is not. ok is false when the last element is not a symlink;
// the caller then uses Resolve.
func (w *Workspace) ResolveLink(p string, access Access) (res Path, ok bool, err error) {
	p, err = w.argPath(p)
	if err != nil {
		return Path{}, false, err
	}
	parent, err := w.canonicalPath(filepath.Dir(p))
	if err != nil {
		return Path{}, false, err
	}
	abs := filepath.Join(parent, filepath.Base(p))
	i, in := w.rootIndex(abs)
	if !in || abs == w.roots[i].Path {
		return Path{}, false, nil
	}
	info, err := w.dirs[i].Lstat(abs)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return Path{}, false, nil
	}
	abs = filepath.Join(parent, storedName(parent, filepath.Base(p)))
	root := w.roots[i]
	res = Path{Abs: abs, Root: root.Kind, Display: w.display(abs), dir: w.dirs[i]}
	git := inGitDir(root.Path, abs)
	res.Writable = root.Writable && !git
	if access == Write && !res.Writable {
		if git {
			return res, true, fmt.Errorf("%w: %s is inside a .git directory", ErrDenied, res.Display)
		}
		return res, true, fmt.Errorf("%w: %s is under a read-only root", ErrDenied, res.Display)
	}
	return res, true, nil
}

// maxLinkHops bounds the symlinks one resolution follows by hand, as the
// kernel bounds them, so a cycle of links is an error and not a runaway
// recursion.
const maxLinkHops = 40

// canonicalPath resolves symlinks in the longest existing prefix of p,
// spells it as stored, and appends the rest.
func (w *Workspace) canonicalPath(p string) (string, error) { return w.canonicalPathHops(p, 0) }

func (w *Workspace) canonicalPathHops(p string, hops int) (string, error) {
	if real, rest, ok := w.belowRoot(p); ok {
		return filepath.Join(w.stored(real), rest), nil
	}
	rest := ""
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(w.stored(real), rest), nil
		}
		// A dangling symlink (EvalSymlinks reports its missing target as
		// ErrNotExist) or a loop: resolve what the link says, so a link out
		// of the roots is caught whether or not its target exists.
		if info, lerr := os.Lstat(cur); lerr == nil && info.Mode()&os.ModeSymlink != 0 {
			target, rerr := os.Readlink(cur)
			if rerr != nil || hops >= maxLinkHops {
				return "", fmt.Errorf("%w: %s: too many levels of symbolic links", ErrBadPath, cur)
			}
			if !filepath.IsAbs(target) {
				// The link's directory exists (Lstat saw the link), so it
				// resolves; a relative target is relative to it.
				dir, derr := filepath.EvalSymlinks(filepath.Dir(cur))
				if derr != nil {
					return "", fmt.Errorf("%w: %v", ErrBadPath, derr)
				}
				target = filepath.Join(dir, target)
			}
			return w.canonicalPathHops(filepath.Join(filepath.Clean(target), rest), hops+1)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%w: %v", ErrBadPath, err)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Join(cur, rest), nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// belowRoot resolves p, a clean absolute path, by looking only at its
// elements below the root it lies under: a root was resolved when the
// workspace was made (New), and filepath.EvalSymlinks would look at each
// of its elements again on every call (four of the read tool's ten system
// calls on a small file). It returns the deepest existing prefix of p,
// which holds no symbolic link, and the rest, which does not exist. ok is
// false when p is under no root, when an element below the root is a
// symbolic link, or when one cannot be looked at (a file where a directory
// should be, no permission): the caller then resolves p from "/", which
// follows links and reports errors. Every file operation goes through the
// open root all the same (Dir). Not on Windows, where resolving also
// spells each element through the system (short names, junctions).
func (w *Workspace) belowRoot(p string) (real, rest string, ok bool) {
	if windowsRules {
		return "", "", false
	}
	i, in := w.rootIndex(p)
	if !in {
		return "", "", false
	}
	sep := string(filepath.Separator)
	cur := w.roots[i].Path
	below := strings.TrimPrefix(p[len(cur):], sep)
	for below != "" {
		name, more, _ := strings.Cut(below, sep)
		next := filepath.Join(cur, name)
		info, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return cur, below, true
		case err != nil || info.Mode()&fs.ModeSymlink != 0:
			return "", "", false
		}
		cur, below = next, more
	}
	return cur, "", true
}

// stored is storedPath of p, an existing path without symbolic links,
// skipping the elements of the root it lies under: a root is spelled as
// stored already (New), and on a desktop's case-insensitive disk its
// ancestors would each cost a listing on every call.
func (w *Workspace) stored(p string) string {
	from := 0
	if i, ok := w.rootIndex(p); ok {
		from = len(w.roots[i].Path)
	}
	return storedPathFrom(p, from)
}

// rootIndex returns the index of the most specific root containing abs.
func (w *Workspace) rootIndex(abs string) (int, bool) {
	best := -1
	for i, r := range w.roots {
		if within(r.Path, abs) && (best < 0 || len(r.Path) > len(w.roots[best].Path)) {
			best = i
		}
	}
	return best, best >= 0
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(p, root)
	}
	// Compared in place: this runs for every root on every resolution.
	return len(p) > len(root) && p[len(root)] == filepath.Separator && strings.HasPrefix(p, root)
}

// inGitDir reports whether abs lies in a .git directory below root. The
// name is compared without case: on the case-insensitive filesystems most
// desktops use, .GIT and .Git are the same directory as .git.
func inGitDir(root, abs string) bool {
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return false
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}
