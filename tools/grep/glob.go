package grep

import (
	"path"
	"strings"
)

// Glob selects the files a directory search searches. A pattern is
// matched, a '/'-separated segment at a time with path.Match, against the
// file's name, its path as displayed, and its path below the searched
// directory; any match selects the file. A "**" segment matches any
// number of directories, including none. A pattern of one segment other
// than "**" is matched against the name alone.
type Glob struct {
	segs []string
}

// ParseGlob returns the Glob of pattern (nil for "", which selects every
// file), or path.Match's error for a malformed segment.
func ParseGlob(pattern string) (*Glob, error) {
	if pattern == "" {
		return nil, nil
	}
	segs := strings.Split(strings.TrimPrefix(pattern, "./"), "/")
	for _, s := range segs {
		if _, err := path.Match(s, ""); err != nil {
			return nil, err
		}
	}
	return &Glob{segs: segs}, nil
}

func (g *Glob) match(name string, paths ...string) bool {
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
