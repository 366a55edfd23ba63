package blocks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"golang.org/x/tools/txtar"
)

// The cases live in testdata/*.txtar. Each archive holds source files and,
// in its comment, one expectation per line:
//
//	FILE LINE -> START-END                  the block at LINE spans START-END
//	FILE LINE -> no "REASON" [alt S-E|alt -] no block; the reason contains
//	                                         REASON; the plain-range
//	                                         alternative is S-E, or none
//
// Lines starting with # are commentary.
var caseLine = regexp.MustCompile(`^(\S+)\s+(\d+)\s+->\s+(?:(\d+)-(\d+)|no\s+"([^"]*)"(?:\s+alt\s+(?:(\d+)-(\d+)|(-)))?)\s*$`)

type blockCase struct {
	file       string
	line       int
	start, end int    // expected span, when want is ""
	want       string // expected reason substring for a decline
	altStart   int    // expected alternative; -1 for "none", 0 for unchecked
	altEnd     int
	where      string
}

func loadCases(t *testing.T, path string) (map[string]string, []blockCase) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	var cases []blockCase
	for i, l := range strings.Split(string(ar.Comment), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		m := caseLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("%s:%d: malformed expectation %q", path, i+1, l)
		}
		if _, ok := files[m[1]]; !ok {
			t.Fatalf("%s:%d: no file %q in the archive", path, i+1, m[1])
		}
		c := blockCase{file: m[1], line: atoi(m[2]), where: fmt.Sprintf("%s:%d", filepath.Base(path), i+1)}
		switch {
		case m[3] != "":
			c.start, c.end = atoi(m[3]), atoi(m[4])
		default:
			c.want = m[5]
			switch {
			case m[6] != "":
				c.altStart, c.altEnd = atoi(m[6]), atoi(m[7])
			case m[8] == "-":
				c.altStart = -1
			}
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no expectations", path)
	}
	return files, cases
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

func TestResolveCases(t *testing.T) {
	archives, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no testdata archives: %v", err)
	}
	limit := config.DefaultLimits().MaxBlockParseBytes
	for _, path := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			files, cases := loadCases(t, path)
			resolvers := map[string]*Resolver{}
			for name, text := range files {
				r, err := NewResolver(name, text, limit)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				resolvers[name] = r
			}
			for _, c := range cases {
				start, end, err := resolvers[c.file].Resolve(c.line)
				if c.want == "" {
					if err != nil || start != c.start || end != c.end {
						t.Errorf("%s: %s line %d: got %d-%d, %v; want %d-%d", c.where, c.file, c.line, start, end, err, c.start, c.end)
					}
					continue
				}
				var ue *UnresolvedError
				if !errors.As(err, &ue) {
					t.Errorf("%s: %s line %d: got %d-%d, %v; want a decline containing %q", c.where, c.file, c.line, start, end, err, c.want)
					continue
				}
				if !strings.Contains(ue.Error(), c.want) {
					t.Errorf("%s: %s line %d: reason %q does not contain %q", c.where, c.file, c.line, ue.Error(), c.want)
				}
				if ue.Line != c.line {
					t.Errorf("%s: %s line %d: error names line %d", c.where, c.file, c.line, ue.Line)
				}
				switch {
				case c.altStart == -1 && ue.Alternative != "":
					t.Errorf("%s: %s line %d: alternative %q, want none", c.where, c.file, c.line, ue.Alternative)
				case c.altStart > 0 && (ue.Start != c.altStart || ue.End != c.altEnd || ue.Alternative != fmt.Sprintf("PUT %d.=%d:", c.altStart, c.altEnd)):
					t.Errorf("%s: %s line %d: alternative %q (%d-%d), want %d-%d", c.where, c.file, c.line, ue.Alternative, ue.Start, ue.End, c.altStart, c.altEnd)
				}
			}
		})
	}
}

// TestDump prints every line's resolution of one file; run it by hand
// with BLOCKS_DUMP=path to see what the resolver makes of a file.
func TestDump(t *testing.T) {
	path := os.Getenv("BLOCKS_DUMP")
	if path == "" {
		t.Skip("set BLOCKS_DUMP=file to print every line's resolution")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(path, string(raw), config.DefaultLimits().MaxBlockParseBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		s, e, err := r.Resolve(i + 1)
		res := fmt.Sprintf("%d-%d", s, e)
		if err != nil {
			res = "no: " + err.Error()
		}
		t.Logf("%3d %-40.40s | %s", i+1, l, res)
	}
}
