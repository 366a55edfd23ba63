package workspace

import (
	"path"
	"strings"
)

// Glob is a shell pattern over '/'-separated paths, as grep's glob and
// the encodings setting take it: matched a segment at a time with
// path.Match, where a "**" segment matches any number of directories,
// including none. A pattern of one segment other than "**" matches a
// file's name alone, at any depth.
type Glob struct {
	segs []string
}

// ParseGlob returns the Glob of pattern, or path.Match's error for a
// malformed segment. A leading "./" is dropped.
func ParseGlob(pattern string) (*Glob, error) {
	segs := strings.Split(strings.TrimPrefix(pattern, "./"), "/")
	for _, s := range segs {
		if _, err := path.Match(s, ""); err != nil {
			return nil, err
		}
	}
	return &Glob{segs: segs}, nil
}

// Match reports whether the pattern matches a file named name whose path
// is any of paths ('/'-separated, below some directory).
func (g *Glob) Match(name string, paths ...string) bool {
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
