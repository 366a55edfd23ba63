// Package ignore owns which files a walk of a tree leaves out as git
// would: it finds and reads the ignore files git reads (each directory's
// .gitignore, a repository's .git/info/exclude, the user's global excludes
// file) and orders their patterns so that, as in git, a .gitignore beats
// info/exclude, which beats the global file, and a deeper .gitignore
// beats a shallower one. The package reads only these files and git's
// configuration; it never reads a file a walk would show.
//
// Matching itself is go-git's gitignore matcher (plumbing/format/gitignore),
// chosen over a lighter library or our own: it is maintained with go-git,
// it was already the dependency, and checked against git itself (tools'
// TestGrepIgnoresWhatGitIgnores, over git ls-files) it agreed on every
// pattern form tried but one, [!...], which Parse rewrites for it. The
// small gitignore libraries (sabhiram/go-gitignore, monochromegane's,
// denormal's) are unmaintained; writing a matcher would add code to keep
// right where a maintained one does the job. Its cost is the go-git module
// in go.sum; what links into the binary is that package and the config
// readers it imports (go-billy, gcfg). git's configuration files, for the
// excludes file, are read with that same gcfg (global.go).
package ignore

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Pattern is one ignore pattern, anchored at the directory of its file.
type Pattern = gitignore.Pattern

// Matcher reports whether a path (its components below the walk's root)
// is ignored.
type Matcher = gitignore.Matcher

// NewMatcher returns the matcher of ps, where a later pattern beats an
// earlier one.
func NewMatcher(ps []Pattern) Matcher { return gitignore.NewMatcher(ps) }

// maxLine bounds one pattern line; a longer line ends the file's patterns.
const maxLine = 64 << 10

// Parse reads the patterns of an ignore file, at most limit bytes of it,
// anchored at domain: the path, in components below the walk's root, of
// the directory the file applies to. Blank lines and comments are skipped
// and a CR before the newline is dropped.
func Parse(r io.Reader, domain []string, limit int64) []Pattern {
	var ps []Pattern
	sc := bufio.NewScanner(io.LimitReader(r, limit))
	sc.Buffer(nil, maxLine)
	for sc.Scan() {
		line := string(bytes.TrimSuffix(sc.Bytes(), []byte{'\r'}))
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = bracketNegation(line)
		if runtime.GOOS == "windows" {
			line = escapesAsClasses(line)
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// bracketNegation spells git's negated bracket expression [!...] as
// [^...], the only spelling path/filepath.Match (which go-git matches
// with) knows: there [!b] is a set of ! and b.
func bracketNegation(p string) string {
	if !strings.Contains(p, "[!") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i++
			continue
		case p[i] == '[' && i+1 < len(p) && p[i+1] == '!':
			b.WriteString("[^")
			i++
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// escapesAsClasses spells each backslash escape of a pattern as a bracket
// expression holding the escaped byte (\# as [#], \* as [*]):
// on Windows path/filepath.Match, which go-git matches with, takes a
// backslash for a separator, not an escape. Inside a bracket expression
// the backslash is dropped (an escaped "]" there is not expressible and
// ends the expression early). A "^" is literal outside a bracket
// expression and stays bare, so as not to start a negated one.
func escapesAsClasses(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	class := -1 // offset in b where the current bracket expression's members start, or -1
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			switch e := p[i]; {
			case class >= 0 || e == '^':
				b.WriteByte(e)
			default:
				b.WriteString("[" + string(e) + "]")
			}
			continue
		case c == '[' && class < 0:
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			class = b.Len()
			continue
		case c == ']' && class >= 0 && b.Len() > class:
			class = -1
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ReadFile parses the ignore file at path, if it is a regular file.
func ReadFile(path string, domain []string, limit int64) []Pattern {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	return Parse(f, domain, limit)
}

// InfoExclude is the path of the info/exclude file of the repository
// whose .git entry is at gitPath: .git/info/exclude for a repository's
// own .git directory; for a worktree or submodule, whose .git is a file
// naming its git directory ("gitdir: ..."), the exclude file of that
// directory's common directory, as git reads it. "" when gitPath names
// neither.
func InfoExclude(gitPath string) string {
	if dir := commonDir(gitPath); dir != "" {
		return filepath.Join(dir, "info", "exclude")
	}
	return ""
}

// RepoConfig is the path of the configuration file of the repository
// whose .git entry is at gitPath, found as InfoExclude finds its exclude
// file; "" when gitPath names neither.
func RepoConfig(gitPath string) string {
	if dir := commonDir(gitPath); dir != "" {
		return filepath.Join(dir, "config")
	}
	return ""
}

// commonDir is the git directory holding the shared files (config,
// info/exclude) of the repository whose .git entry is at gitPath.
func commonDir(gitPath string) string {
	info, err := os.Stat(gitPath)
	switch {
	case err != nil:
		return ""
	case info.IsDir():
		return gitPath
	case !info.Mode().IsRegular() || info.Size() > maxLine:
		return ""
	}
	data, err := os.ReadFile(gitPath)
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(gitPath), dir)
	}
	if common, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil && len(common) <= maxLine {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		dir = c
	}
	return dir
}

// Repository is the .git entry of the innermost repository holding dir
// (in dir or a directory above it), or "" outside any: where git would
// apply the excludes files to dir, and which repository's.
func Repository(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		git := filepath.Join(d, ".git")
		if _, err := os.Lstat(git); err == nil {
			return git
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
