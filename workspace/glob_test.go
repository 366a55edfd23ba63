package workspace

import (
	"path/filepath"
	"strings"
	"testing"
)

// naiveGlob is the oracle for matchSegments: plain recursion.
func naiveGlob(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if naiveGlob(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, _ := filepath.Match(pat[0], segs[0])
	return ok && naiveGlob(pat[1:], segs[1:])
}

func FuzzGlobSegments(f *testing.F) {
	f.Add("src/**/*.go", "src/a/b/c.go")
	f.Add("**/**/x", "x")
	f.Add("a/**", "a")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 40 || len(path) > 40 {
			return
		}
		pat, segs := strings.Split(pattern, "/"), strings.Split(path, "/")
		if got, want := matchSegments(pat, segs), naiveGlob(pat, segs); got != want {
			t.Fatalf("matchSegments(%q, %q) = %v, oracle %v", pattern, path, got, want)
		}
	})
}
