package grep

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hostd-dev/hostd/tools/ignore"
	"github.com/hostd-dev/hostd/workspace"
)

// candidate is a regular file a walk offers for searching. Its paths are
// joined only when asked for (abs, display): most files searched never
// show.
type candidate struct {
	dirAbs, dirDisplay string // the directory it was listed in: canonical, and as the model sees it
	// named is the file the model named, for a grep of one file.
	named *workspace.Path
	// name is its name in dir, the directory it was listed in, which it is
	// opened through (workspace.WalkDir: never by its path from "/", so a
	// directory swapped for a link since it was listed cannot lead the
	// search outside the roots). dir stays open until then, which may be
	// after the walk has left it.
	name string
	dir  *dirRef
	// link, for a file reached through a symlink, is its target, already
	// resolved into a root; dir is nil.
	link *workspace.Path
}

// abs is the file's canonical path, the snapshot store's key: for a file
// reached through a symlink, its target's.
func (c candidate) abs() string {
	switch {
	case c.named != nil:
		return c.named.Abs
	case c.link != nil:
		return c.link.Abs
	}
	return joinAbs(c.dirAbs, c.name)
}

// display is the file's path as the model sees it.
func (c candidate) display() string {
	if c.named != nil {
		return c.named.Display
	}
	return joinDisplay(c.dirDisplay, c.name)
}

// openOnce opens the candidate for reading, never following a link and
// never blocking, and lets go of its directory. It is called at most once
// per candidate, and letGo instead when the file will not be opened.
func (c candidate) openOnce() (source, error) {
	if c.link != nil {
		f, err := c.link.Open()
		if err != nil {
			return nil, err
		}
		wf, err := workspace.FileOf(f)
		if err != nil {
			return nil, err
		}
		return wf, nil
	}
	defer c.letGo()
	f, err := c.dir.dir.OpenFile(c.name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (c candidate) letGo() {
	if c.dir != nil {
		c.dir.release()
	}
}

// dirRef is an open directory shared by the walk and the files listed in
// it that wait to be opened: the last of them to let go closes it.
type dirRef struct {
	dir  *workspace.WalkDir // which its files and subdirectories are opened from
	refs atomic.Int64
}

func newDirRef(dir *workspace.WalkDir) *dirRef {
	d := &dirRef{dir: dir}
	d.refs.Store(1)
	return d
}

func (d *dirRef) hold() *dirRef {
	d.refs.Add(1)
	return d
}

func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 {
		d.dir.Close()
	}
}

// walker visits the files under a directory depth-first, entries of each
// directory in byte order, so the same tree always gives the same order.
// Every directory and file is opened through workspace.WalkDir: the walk's
// first directory through the workspace's open root, every one below it
// through its parent, one component at a time without following links,
// so a directory renamed and replaced by a link to elsewhere mid-walk is
// refused rather than followed.
// It leaves out what git would ignore (package ignore), skips .git, never follows a symlinked directory, and
// follows a symlinked file only when it resolves into the session's roots.
// Devices, FIFOs and sockets are never opened.
type walker struct {
	ctx   context.Context
	ws    *workspace.Workspace
	glob  *Glob // nil: every file
	limit int64 // .gitignore files larger than this are not read
	// visit is offered every file in walk order, on the walk's goroutine.
	// It owns the candidate: it calls its openOnce or its letGo exactly
	// once, at once or later on any goroutine, whatever it returns.
	visit func(candidate) error

	// scratch is List's memory, reused by every directory of the walk.
	scratch workspace.ListBuffer

	// user is git's system and global configuration of the excludes
	// file; excludes holds the patterns of each excludes file read so far
	// (a repository's own configuration may name another), which apply
	// inside a git repository. Only the walk's goroutine uses them.
	user     ignore.UserConfig
	excludes map[string][]ignore.Pattern
	// ignore holds the patterns that apply in the directory being walked,
	// weakest first, as the matcher wants them: the global excludes and
	// the innermost repository's info/exclude, then every .gitignore from
	// that repository's top (or from the root) down. A nested repository
	// starts afresh, as in git.
	ignore []ignore.Pattern
}

// newWalker returns a walker of the session's workspace with git's user
// configuration read.
func newWalker(ws *workspace.Workspace, glob *Glob, limit int64) *walker {
	return &walker{ws: ws, glob: glob, limit: limit,
		user: ignore.ReadUserConfig(os.LookupEnv), excludes: map[string][]ignore.Pattern{}}
}

// excludesOf returns the patterns of the excludes file git applies in
// the repository whose .git entry is gitPath: the one its configuration
// names, or the user's.
func (w *walker) excludesOf(gitPath string) []ignore.Pattern {
	file := w.user.ExcludesFile(ignore.RepoConfig(gitPath))
	ps, ok := w.excludes[file]
	if !ok {
		ps = ignore.ReadFile(file, nil, w.limit)
		w.excludes[file] = ps
	}
	return slices.Clip(ps)
}

// enter adds the ignore files of the directory abs, open as dir, to
// w.ignore. A directory holding .git is a repository's top: what applied
// above it no longer does, and its info/exclude and the excludes file
// its configuration names (or the user's) do. parts is abs below the
// root, where the patterns anchor.
func (w *walker) enter(dir *workspace.WalkDir, abs string, parts []string, hasGit, hasIgnore bool) {
	if hasGit {
		git := filepath.Join(abs, ".git")
		exclude := ignore.ReadFile(ignore.InfoExclude(git), parts, w.limit)
		w.ignore = append(w.excludesOf(git), exclude...)
	}
	if hasIgnore {
		w.ignore = append(w.ignore, w.readIgnore(dir, parts)...)
	}
}

// walk visits the files under dir (a canonical directory under the open
// root d).
func (w *walker) walk(d *workspace.Dir, dir, display string) error {
	root := d.Path()
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return err
	}
	parts := []string{}
	if rel != "." {
		parts = strings.Split(filepath.ToSlash(rel), "/")
	}
	// The ignore files above dir apply to it, unless they ignore dir
	// itself: then the model asked for an ignored directory by name, and
	// gets its files.
	if git := ignore.Repository(root); git != "" {
		w.ignore = w.excludesOf(git)
	}
	for i := range parts {
		above := filepath.Join(root, filepath.Join(parts[:i]...))
		if ad, err := d.OpenWalkDir(above); err == nil {
			w.enter(ad, above, parts[:i], ad.Has(".git"), ad.Has(".gitignore"))
			ad.Close()
		}
		if ignore.NewMatcher(w.ignore).Match(parts[:i+1], true) {
			w.ignore = nil
			break
		}
	}
	wd, err := d.OpenWalkDir(dir)
	if err != nil {
		return nil // gone, or no longer inside the root: nothing to search
	}
	return w.dir(wd, dir, display, "", parts)
}

// dir walks one directory, open as wd, and closes wd once every file it
// offered has been opened. rel is the path below the walk's start (for the
// glob), parts the path below the root (for .gitignore).
func (w *walker) dir(wd *workspace.WalkDir, abs, display, rel string, parts []string) error {
	ref := newDirRef(wd)
	defer ref.release()
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := wd.List(&w.scratch)
	if err != nil {
		return nil // an unreadable directory holds nothing we can search
	}
	outer := w.ignore
	w.enter(wd, abs, parts, hasEntry(entries, ".git"), hasEntry(entries, ".gitignore"))
	defer func() { w.ignore = outer }()
	matcher := ignore.NewMatcher(w.ignore)

	for _, e := range entries {
		name := e.Name
		if name == ".git" {
			continue
		}
		c := candidate{dirAbs: abs, dirDisplay: display, name: name}
		// The path below the root (for the ignore patterns) and below the
		// walk's start (for the glob) are built only when they are used.
		var childParts []string
		if len(w.ignore) > 0 || e.Type.IsDir() {
			childParts = append(parts[:len(parts):len(parts)], name)
		}
		childRel := name
		if rel != "" && (w.glob != nil || e.Type.IsDir()) {
			childRel = rel + "/" + name
		}
		switch t := e.Type; {
		case t.IsDir():
			if matcher.Match(childParts, true) {
				continue
			}
			sub, err := wd.OpenDir(name)
			if err != nil {
				continue // gone, or replaced by a link since it was listed
			}
			if err := w.dir(sub, c.abs(), c.display(), childRel, childParts); err != nil {
				return err
			}
			continue
		case t&fs.ModeSymlink != 0:
			p, err := w.ws.Resolve(c.abs(), workspace.Read)
			if err != nil {
				continue // out of the roots, dangling or a cycle
			}
			if info, err := p.Stat(); err != nil || !info.Mode().IsRegular() {
				continue // directories behind links are not followed
			}
			c.link = &p
		case !t.IsRegular():
			continue
		}
		if (childParts != nil && matcher.Match(childParts, false)) || (w.glob != nil && !w.glob.match(name, c.display(), childRel)) {
			continue
		}
		if c.link == nil {
			c.dir = ref.hold()
		}
		if err := w.visit(c); err != nil {
			return err
		}
	}
	return nil
}

// joinAbs joins a canonical directory and a name it lists, with the
// system's separator, as canonical paths are spelled: no cleaning is
// needed.
func joinAbs(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// hasEntry reports whether the sorted entries hold name.
func hasEntry(entries []workspace.DirEntry, name string) bool {
	_, ok := slices.BinarySearchFunc(entries, name, func(e workspace.DirEntry, name string) int { return strings.Compare(e.Name, name) })
	return ok
}

// joinDisplay joins a directory as the model sees it and a name it lists:
// with '/' below the workspace root, and as a canonical path outside it,
// as workspace.Display spells each.
func joinDisplay(dir, name string) string {
	switch {
	case dir == ".":
		return name
	case filepath.IsAbs(dir):
		return joinAbs(dir, name)
	}
	return dir + "/" + name
}

// readIgnore parses the .gitignore of the directory open as dir, if there
// is one, anchored at parts.
// A .gitignore that is a symlink is not followed, as git does not.
func (w *walker) readIgnore(dir *workspace.WalkDir, parts []string) []ignore.Pattern {
	f, err := dir.OpenFile(".gitignore")
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, regular, err := f.Stat(); err != nil || !regular {
		return nil
	}
	return ignore.Parse(f, parts, w.limit)
}
