package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/hostd-dev/hostd/workspace"
)

// errStop ends a walk early; it is not a failure.
var errStop = errors.New("stop walking")

// candidate is a regular file a walk offers for searching.
type candidate struct {
	abs     string // canonical path: the snapshot store's key
	display string // as the model sees it
	link    bool   // reached through a symlink (already resolved into a root)
}

// walker visits the files under a directory depth-first, entries of each
// directory in byte order, so the same tree always gives the same order.
// It honours every .gitignore from the root the directory lies under down
// to each file, skips .git, never follows a symlinked directory, and
// follows a symlinked file only when it resolves into the session's roots.
// Devices, FIFOs and sockets are never opened.
type walker struct {
	ctx   context.Context
	ws    *workspace.Workspace
	glob  *globPattern // nil: every file
	limit int64        // .gitignore files larger than this are not read
	visit func(candidate) error

	// ignore holds the patterns of every .gitignore between the root and
	// the directory being walked, least specific first, as the matcher
	// wants them.
	ignore []gitignore.Pattern
}

// walk visits the files under dir (a canonical directory under root).
func (w *walker) walk(root, dir, display string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return err
	}
	parts := []string{}
	if rel != "." {
		parts = strings.Split(filepath.ToSlash(rel), "/")
	}
	// The .gitignore files above dir apply to it, unless they ignore dir
	// itself: then the model asked for an ignored directory by name, and
	// gets its files.
	for i := range parts {
		w.ignore = append(w.ignore, w.readIgnore(filepath.Join(root, filepath.Join(parts[:i]...)), parts[:i])...)
		if gitignore.NewMatcher(w.ignore).Match(parts[:i+1], true) {
			w.ignore = nil
			break
		}
	}
	return w.dir(dir, display, "", parts)
}

// dir walks one directory. rel is the path below the walk's start (for the
// glob), parts the path below the root (for .gitignore).
func (w *walker) dir(abs, display, rel string, parts []string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil // an unreadable directory holds nothing we can search
	}
	depth := len(w.ignore)
	w.ignore = append(w.ignore, w.readIgnore(abs, parts)...)
	defer func() { w.ignore = w.ignore[:depth] }()
	matcher := gitignore.NewMatcher(w.ignore)

	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		childParts := append(parts[:len(parts):len(parts)], name)
		c := candidate{abs: filepath.Join(abs, name), display: joinDisplay(display, name)}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		switch t := e.Type(); {
		case t.IsDir():
			if matcher.Match(childParts, true) {
				continue
			}
			if err := w.dir(c.abs, c.display, childRel, childParts); err != nil {
				return err
			}
			continue
		case t&fs.ModeSymlink != 0:
			p, err := w.ws.Resolve(c.abs, workspace.Read)
			if err != nil {
				continue // out of the roots, dangling or a cycle
			}
			if info, err := os.Stat(p.Abs); err != nil || !info.Mode().IsRegular() {
				continue // directories behind links are not followed
			}
			c.abs, c.link = p.Abs, true
		case !t.IsRegular():
			continue
		}
		if matcher.Match(childParts, false) || !w.glob.match(name, c.display, childRel) {
			continue
		}
		if err := w.visit(c); err != nil {
			return err
		}
	}
	return nil
}

func joinDisplay(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// readIgnore parses dir/.gitignore, if there is one, with the domain the
// library needs to anchor its patterns.
func (w *walker) readIgnore(dir string, parts []string) []gitignore.Pattern {
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(io.LimitReader(f, w.limit))
	sc.Buffer(nil, 64<<10)
	for sc.Scan() {
		line := string(bytes.TrimSuffix(sc.Bytes(), []byte{'\r'}))
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, parts))
	}
	return ps
}

// globPattern filters the files a walk searches. A pattern is matched, a
// '/'-separated segment at a time with path.Match, against the file's
// name, its path as displayed, and its path below the searched directory;
// any match selects the file. A "**" segment matches any number of
// directories, including none.
type globPattern struct {
	segs []string
}

func newGlob(pattern string) (*globPattern, error) {
	if pattern == "" {
		return nil, nil
	}
	segs := strings.Split(strings.TrimPrefix(pattern, "./"), "/")
	for _, s := range segs {
		if _, err := path.Match(s, ""); err != nil {
			return nil, err
		}
	}
	return &globPattern{segs: segs}, nil
}

func (g *globPattern) match(name string, paths ...string) bool {
	if g == nil {
		return true
	}
	if len(g.segs) == 1 && g.segs[0] != "**" {
		ok, _ := path.Match(g.segs[0], name)
		return ok
	}
	for _, p := range paths {
		if matchSegments(g.segs, strings.Split(p, "/")) {
			return true
		}
	}
	return false
}

// matchSegments matches pattern segments against path segments. It fills
// a table of which pattern suffix matches which path suffix, so repeated
// "**" cost pattern x path steps, never exponential time.
func matchSegments(pat, segs []string) bool {
	// ok[i][j]: pat[i:] matches segs[j:].
	ok := make([][]bool, len(pat)+1)
	for i := range ok {
		ok[i] = make([]bool, len(segs)+1)
	}
	ok[len(pat)][len(segs)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		for j := len(segs); j >= 0; j-- {
			if pat[i] == "**" {
				ok[i][j] = ok[i+1][j] || (j < len(segs) && ok[i][j+1])
				continue
			}
			if j < len(segs) {
				m, _ := path.Match(pat[i], segs[j])
				ok[i][j] = m && ok[i+1][j+1]
			}
		}
	}
	return ok[0][0]
}
