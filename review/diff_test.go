package review

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

func diffOf(display, before, after string, beforeExists, afterExists bool) string {
	b := factsOf(beforeExists, []byte(before), 0o644)
	a := factsOf(afterExists, []byte(after), 0o644)
	return renderDiff(display, b, a, []byte(before), []byte(after), textenc.UTF8)
}

// A file in another encoding is diffed as its text: UTF-16 by its mark,
// a legacy encoding by the workspace's setting for the path.
func TestDiffShowsTheTextOfEncodedFiles(t *testing.T) {
	latin1, err := textenc.Lookup("iso-8859-1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		before, after string
		enc           textenc.Encoding
		want          string
	}{
		{"UTF-16LE", "\xff\xfea\x00\n\x00", "\xff\xfeb\x00\n\x00", textenc.UTF8, "-a\n+b\n"},
		{"ISO-8859-1 by the setting", "caf\xe9\n", "caf\xe8\n", latin1, "-café\n+cafè\n"},
		{"ISO-8859-1 without it", "caf\xe9\n", "caf\xe8\n", textenc.UTF8, "Binary files"},
	} {
		b, a := factsOf(true, []byte(c.before), 0o644), factsOf(true, []byte(c.after), 0o644)
		if got := renderDiff("p", b, a, []byte(c.before), []byte(c.after), c.enc); !strings.Contains(got, c.want) {
			t.Errorf("%s: diff %q, want it to hold %q", c.name, got, c.want)
		}
	}
}

func TestDiffSummarizesBinaryAndHugeContent(t *testing.T) {
	huge := strings.Repeat("line\n", MaxDiffInputBytes/5+1)
	tests := []struct {
		name          string
		before, after string
		want          string
	}{
		{"NUL byte", "text\n", "te\x00xt\n", "Binary files a/p and b/p differ (5 bytes before, 6 bytes after)\n"},
		{"invalid UTF-8", "\xff\xfd", "ok\n", "Binary files a/p and b/p differ (2 bytes before, 3 bytes after)\n"},
		{"huge", "small\n", huge, "diff omitted: p is too large to diff (6 bytes before, 4.0 MiB after; the bound is 4.0 MiB)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := diffOf("p", tc.before, tc.after, true, true); got != tc.want {
				t.Errorf("diff = %q, want %q", got, tc.want)
			}
		})
	}
}

// A diff longer than the bound is cut at a line and says so; it never
// carries megabytes into the store or onto the wire.
func TestDiffIsClippedAtALineAndSaysSo(t *testing.T) {
	var before, after strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&before, "old line %d\n", i)
		fmt.Fprintf(&after, "new line %d\n", i)
	}
	d := diffOf("big.txt", before.String(), after.String(), true, true)
	body, note, ok := strings.Cut(d, "... diff truncated: showing ")
	if !ok {
		t.Fatalf("no truncation note in a %d-byte diff", len(d))
	}
	if len(body) > MaxDiffBytes || !strings.HasSuffix(body, "\n") {
		t.Errorf("clipped body is %d bytes (bound %d), ends with %q", len(body), MaxDiffBytes, body[len(body)-10:])
	}
	if !strings.HasSuffix(note, "\n") || strings.Count(note, "\n") != 1 {
		t.Errorf("note %q is not one line", note)
	}
}

func TestDiffOfIdenticalContentIsEmpty(t *testing.T) {
	if d := diffOf("p", "same\n", "same\n", true, true); d != "" {
		t.Errorf("diff = %q", d)
	}
}

// Every fixture pair of the corpus: the entry's diff, applied by an
// independent patcher, turns the input into the expected file.
func TestDiffAppliesToCorpusFixtures(t *testing.T) {
	root := testenv.Corpus(t, "ts-edit-fixtures/fixtures")
	inputs, err := filepath.Glob(filepath.Join(root, "*", "input", "*"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no fixtures under %s: %v", root, err)
	}
	for _, in := range inputs {
		name, _ := filepath.Rel(root, in)
		want := strings.Replace(in, string(filepath.Separator)+"input"+string(filepath.Separator), string(filepath.Separator)+"expected"+string(filepath.Separator), 1)
		before, err1 := os.ReadFile(in)
		after, err2 := os.ReadFile(want)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", name, err1, err2)
		}
		d := diffOf(filepath.Base(in), string(before), string(after), true, true)
		got, err := applyUnified(string(before), d)
		if err != nil || got != string(after) {
			t.Errorf("%s: applying the diff: %v\n%s", name, err, d)
		}
	}
}

// FuzzDiff checks the diff against an independent patcher: within the
// bounds, applying the diff to before gives after; always, the diff stays
// within its size bound.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", true, true)
	f.Add("", "x\ny", false, true)
	f.Add("x\r\ny\r\n", "", true, false)
	f.Add("a\nb", "a\nb\n", true, true)
	f.Add("\n\n\n", "\n", true, true)
	f.Fuzz(func(t *testing.T, before, after string, beforeExists, afterExists bool) {
		if !beforeExists {
			before = ""
		}
		if !afterExists {
			after = ""
		}
		d := diffOf("f", before, after, beforeExists, afterExists)
		if len(d) > MaxDiffBytes+200 {
			t.Fatalf("diff of %d bytes", len(d))
		}
		// Begin's budget must cover what Commit will count, with a note.
		c := plannedChange{Path: "/w/f", Display: "f", Before: []byte(before), BeforeExists: beforeExists, After: []byte(after), AfterExists: afterExists}
		noted := d + driftNote(Facts{Exists: true, Size: 1 << 40, SHA256: strings.Repeat("f", 64)})
		if used := int64(len(before) + len(noted) + len(c.Path) + len(c.Display)); used > entryBudget(c) {
			t.Fatalf("entry counts %d bytes, Begin budgeted %d", used, entryBudget(c))
		}
		if strings.HasPrefix(d, "Binary files") || strings.Contains(d, "... diff truncated") {
			return
		}
		got, err := applyUnified(before, d)
		if err != nil || got != after {
			t.Fatalf("apply(%q, diff) = %q, %v; want %q\ndiff:\n%s", before, got, err, after, d)
		}
	})
}

// applyUnified is a deliberately small unified-diff patcher, written from
// the format's definition, used as the oracle for the diffs review stores.
func applyUnified(before, diff string) (string, error) {
	if diff == "" {
		return before, nil
	}
	src := strings.SplitAfter(before, "\n")
	if src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no header")
	}
	var out bytes.Buffer
	next := 0 // index into src of the first line not yet consumed
	i := 2
	for i < len(lines) && lines[i] != "" {
		var oldStart, oldLen int
		if _, err := parseHunk(lines[i], &oldStart, &oldLen); err != nil {
			return "", err
		}
		start := oldStart - 1
		if oldLen == 0 {
			start = oldStart
		}
		if start < next || start > len(src) {
			return "", fmt.Errorf("hunk %q out of order", lines[i])
		}
		for ; next < start; next++ {
			out.WriteString(src[next])
		}
		for i++; i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@"); i++ {
			text := lines[i][1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\`) {
				text = strings.TrimSuffix(text, "\n")
			}
			switch lines[i][0] {
			case ' ', '-':
				if next >= len(src) || src[next] != text {
					return "", fmt.Errorf("line %d is %q, diff says %q", next+1, src[min(next, len(src)-1)], text)
				}
				if lines[i][0] == ' ' {
					out.WriteString(text)
				}
				next++
			case '+':
				out.WriteString(text)
			case '\\':
			default:
				return "", fmt.Errorf("bad diff line %q", lines[i])
			}
		}
	}
	for ; next < len(src); next++ {
		out.WriteString(src[next])
	}
	return out.String(), nil
}

// parseHunk reads "@@ -a[,b] +c[,d] @@".
func parseHunk(line string, oldStart, oldLen *int) (bool, error) {
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" || !strings.HasPrefix(f[1], "-") {
		return false, fmt.Errorf("bad hunk header %q", line)
	}
	a, b, found := strings.Cut(f[1][1:], ",")
	var err error
	if *oldStart, err = strconv.Atoi(a); err != nil {
		return false, err
	}
	*oldLen = 1
	if found {
		if *oldLen, err = strconv.Atoi(b); err != nil {
			return false, err
		}
	}
	return true, nil
}

// forgedName is a file name that, printed raw in a diff header, would
// forge a hunk of its own.
const forgedName = "notes\n+++ b/fake\n@@ -1 +1 @@\n-harmless\n+INJECTED"

// Every path a record's diff prints is quoted as git quotes it, so no
// line of the diff comes from the file name (issue: a file name could
// forge diff lines).
func TestDiffQuotesAPathThatWouldForgeLines(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after string
		link          bool
	}{
		{"text", "a\n", "b\n", false},
		{"binary", "a\n", "b\x00\n", false},
		{"huge", "a\n", strings.Repeat("x\n", MaxDiffInputBytes/2+1), false},
		{"link", "target-a", "target-b", true},
	} {
		b := factsOf(true, []byte(tc.before), 0o644).asLink(tc.link)
		a := factsOf(true, []byte(tc.after), 0o644).asLink(tc.link)
		d := renderDiff(forgedName, b, a, []byte(tc.before), []byte(tc.after), textenc.UTF8)
		for line := range strings.SplitSeq(strings.TrimSuffix(d, "\n"), "\n") {
			if line == "+INJECTED" || line == "-harmless" || strings.HasPrefix(line, "+++ b/fake") {
				t.Errorf("%s: the file name forged the line %q in\n%s", tc.name, line, d)
			}
		}
		if !strings.Contains(d, `notes\n+++ b/fake\n@@ -1 +1 @@\n-harmless\n+INJECTED"`) {
			t.Errorf("%s: the path is not quoted C-style:\n%s", tc.name, d)
		}
	}
	d := diffOf(forgedName, "a\n", "b\n", true, true)
	if want := "--- \"a/notes\\n+++ b/fake\\n@@ -1 +1 @@\\n-harmless\\n+INJECTED\"\n+++ \"b/notes\\n+++ b/fake\\n@@ -1 +1 @@\\n-harmless\\n+INJECTED\"\n"; !strings.HasPrefix(d, want) {
		t.Errorf("headers:\n%s\nwant them to start\n%s", d, want)
	}
}
