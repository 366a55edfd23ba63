package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// corpusDir is rel inside the shared corpus beside the checkout.
func corpusDir(t *testing.T, rel string) string {
	t.Helper()
	return testenv.Corpus(t, rel)
}

var patchHeader = regexp.MustCompile(`^\[([^\]#]+)#[0-9A-F]{4}\]\n`)

// fixtureFix is one of the 106 real fixes of ts-edit-fixtures: the file
// it edits and its ops, under a [PATH#TAG] line.
type fixtureFix struct{ ID, File, Patch string }

// loadFixtureFixes reads the fixes and returns the corpus directory
// their files are under.
func loadFixtureFixes(t *testing.T) (string, []fixtureFix) {
	t.Helper()
	dir := corpusDir(t, "ts-edit-fixtures")
	raw, err := os.ReadFile(filepath.Join(dir, "roundtrip-patches.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []fixtureFix
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c fixtureFix
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	if len(cases) != 106 {
		t.Fatalf("read %d fixtures, want 106", len(cases))
	}
	return dir, cases
}

// TestTSFixturesRoundTrip drives every fixture of the real-TypeScript
// corpus through the real tool path: read the input over tools.execute,
// then edit it with the fixture's patch under the tag that read minted, and
// compare the file with expected/ byte for byte.
func TestTSFixturesRoundTrip(t *testing.T) {
	dir, cases := loadFixtureFixes(t)
	passed := 0
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			e := newEditEnv(t)
			e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin()})
			input, err := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "input", c.File))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "fixtures", c.ID, "expected", c.File))
			if err != nil {
				t.Fatal(err)
			}
			e.write(c.File, string(input))
			args, _ := json.Marshal(map[string]any{"path": c.File})
			out, err := e.x.Execute(context.Background(), Request{SessionID: e.s.ID, Tool: "read", Args: args})
			if err != nil {
				t.Fatal(err)
			}
			rr := out.(*wire.ReadResult)
			if !rr.OK || rr.Truncated {
				t.Fatalf("read: %s", rr.Content)
			}
			// The patch carries the reference's own tag; swap in ours.
			ops := patchHeader.ReplaceAllString(c.Patch, "["+c.File+"#"+rr.Tag+"]\n")
			r := e.edit(c.File, rr.Tag, ops)
			wantOK(t, r)
			if got := e.file(c.File); got != string(want) {
				t.Fatalf("result differs from expected/%s", c.File)
			}
			if !strings.HasPrefix(r.Content, "["+c.File+"#") {
				t.Fatalf("content: %s", r.Content)
			}
			passed++
		})
	}
	t.Logf("%d of %d fixtures produce expected/ byte for byte", passed, len(cases))
}
