package grep

import "github.com/hostd-dev/hostd/workspace"

// Glob selects the files a directory search searches: workspace.Glob
// matched against the file's name, its path as displayed, and its path
// below the searched directory; any match selects the file.
type Glob struct {
	g *workspace.Glob
}

// ParseGlob returns the Glob of pattern (nil for "", which selects every
// file), or path.Match's error for a malformed segment.
func ParseGlob(pattern string) (*Glob, error) {
	if pattern == "" {
		return nil, nil
	}
	g, err := workspace.ParseGlob(pattern)
	if err != nil {
		return nil, err
	}
	return &Glob{g: g}, nil
}

func (g *Glob) match(name string, paths ...string) bool {
	return g == nil || g.g.Match(name, paths...)
}
