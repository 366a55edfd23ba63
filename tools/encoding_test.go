package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rollback"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// newEncodedEnv is newProdEnv whose workspace takes its files' encodings
// from rules, with a review store so that rollback can be tried.
func newEncodedEnv(t *testing.T, rules []config.EncodingRule) (*prodEnv, *review.Store) {
	t.Helper()
	e := newProdEnv(t, config.DefaultLimits())
	enc, err := workspace.CompileEncodings(rules)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(e.root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.m = session.NewManager(e.lim)
	if e.s, err = e.m.Create("", ws.WithEncodings(enc)); err != nil {
		t.Fatal(err)
	}
	var store *review.Store
	e.x, store = reviewedExecutor(t, e.m, e.lim)
	return e, store
}

// encodeAs is text (UTF-8) in enc after enc's mark when bom is set.
func encodeAs(t *testing.T, enc textenc.Encoding, bom bool, text string) string {
	t.Helper()
	b, err := enc.NewEncoder().Append(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	if bom {
		return string(enc.BOM()) + string(b)
	}
	return string(b)
}

// Every supported kind of encoding survives read, edit, write, MV and
// rollback: the model sees the decoded lines under the tag the same text
// has in UTF-8, every write is in the file's own encoding with its mark
// and line endings, and rollback restores the exact bytes (issue 27).
func TestEncodingsRoundTrip(t *testing.T) {
	cases := []roundTripCase{
		{name: "UTF-16LE mark CRLF", file: "a.rc", encoding: "utf-16le", bom: true, text: "hello\r\nwörld\r\nend\r\n", line2: "wörld ☃"},
		{name: "UTF-16BE mark", file: "a.txt", encoding: "utf-16be", bom: true, text: "hello\nwörld\nend\n", line2: "wörld 😀"},
		{name: "UTF-32LE mark", file: "a.txt", encoding: "utf-32le", bom: true, text: "hello\nwörld\nend\n", line2: "wörld 😀"},
		{name: "UTF-32BE mark", file: "a.txt", encoding: "utf-32be", bom: true, text: "hello\nwörld\nend\n", line2: "WÖRLD"},
		{name: "windows-1252 by setting", file: "legacy/a.txt", encoding: "windows-1252",
			rules: []config.EncodingRule{{Glob: "legacy/**", Encoding: "windows-1252"}},
			text:  "café\nnaïve\n€ end\n", line2: "naïve – done"},
		{name: "shift_jis by setting", file: "a.sjis", encoding: "shift_jis",
			rules: []config.EncodingRule{{Glob: "*.sjis", Encoding: "shift_jis"}},
			text:  "こんにちは\r\n世界\r\n終わり\r\n", line2: "せかい"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			enc, err := textenc.Lookup(c.encoding)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, enc, c)
		})
	}
}

// roundTripCase is a file in an encoding, named by a mark or a setting,
// and the line an edit puts in for its line 2.
type roundTripCase struct {
	name, file, encoding string
	bom                  bool
	rules                []config.EncodingRule
	text, line2          string // line2 replaces line 2
}

// roundTrip reads, edits, writes, moves and rolls back c's file in enc,
// checking its bytes after each step.
func roundTrip(t *testing.T, enc textenc.Encoding, c roundTripCase) {
	t.Helper()
	e, store := newEncodedEnv(t, c.rules)
	before := encodeAs(t, enc, c.bom, c.text)
	e.put(c.file, before)
	norm := strings.ReplaceAll(c.text, "\r\n", "\n")
	e.put("plain.txt", norm)

	r := e.read(map[string]any{"path": c.file})
	if !strings.Contains(r.Content, strings.Split(norm, "\n")[1]) {
		t.Fatalf("read shows\n%s\nwithout the decoded line 2", r.Content)
	}
	if plain := e.read(map[string]any{"path": "plain.txt"}); r.Tag != plain.Tag {
		t.Fatalf("tag %s, the same text in UTF-8 has %s: the tag must be of the decoded text", r.Tag, plain.Tag)
	}

	ed, ok := e.call("edit", map[string]string{"path": c.file, "tag": r.Tag, "ops": "PUT 2.=2:\n+" + c.line2}).(*wire.EditResult)
	if !ok || !ed.OK {
		t.Fatalf("edit failed: %+v", ed)
	}
	lines := strings.SplitAfter(c.text, "\n")
	end := lines[1][strings.IndexAny(lines[1], "\r\n"):]
	lines[1] = c.line2 + end
	edited := encodeAs(t, enc, c.bom, strings.Join(lines, ""))
	if got := e.cat(c.file); got != edited {
		t.Fatalf("after the edit the file is\n%q\nwant\n%q", got, edited)
	}

	w := e.write(map[string]string{"path": c.file, "content": "new\n" + c.line2 + "\n"})
	wantEnd := "\n"
	if strings.Contains(c.text, "\r\n") {
		wantEnd = "\r\n"
	}
	written := encodeAs(t, enc, c.bom, "new"+wantEnd+c.line2+wantEnd)
	if got := e.cat(c.file); got != written {
		t.Fatalf("after the write the file is\n%q\nwant\n%q", got, written)
	}

	dest := filepath.Join(filepath.Dir(c.file), "moved"+filepath.Ext(c.file))
	if mv, ok := e.call("edit", map[string]string{"path": c.file, "tag": w.Tag, "ops": "MV " + filepath.ToSlash(dest)}).(*wire.EditResult); !ok || !mv.OK {
		t.Fatalf("MV failed: %+v", mv)
	}
	if got := e.cat(dest); got != written {
		t.Fatalf("MV changed the bytes:\n%q\nwant\n%q", got, written)
	}

	// tc-1 and tc-2 are the reads; tc-3, tc-4 and tc-5 the edit,
	// write and MV. Roll them back newest first.
	for _, id := range []string{"tc-5", "tc-4", "tc-3"} {
		if _, err := rollback.Rollback(context.Background(), store, e.s.ID, id); err != nil {
			t.Fatalf("rollback %s: %v", id, err)
		}
	}
	if got := e.cat(c.file); got != before {
		t.Fatalf("after rollback the file is\n%q\nwant its first bytes\n%q", got, before)
	}
	if _, err := os.Stat(filepath.Join(e.root, dest)); !os.IsNotExist(err) {
		t.Fatalf("the MV's destination survived its rollback: %v", err)
	}
}

// A character the file's encoding cannot represent refuses the edit with
// its line, and nothing is written.
func TestEncodingRefusesUnrepresentable(t *testing.T) {
	e, _ := newEncodedEnv(t, []config.EncodingRule{{Glob: "*.txt", Encoding: "iso-8859-1"}})
	before := "caf\xe9\nna\xefve\n"
	e.put("a.txt", before)
	r := e.read(map[string]any{"path": "a.txt"})
	if !strings.Contains(r.Content, "café") {
		t.Fatalf("read shows\n%s", r.Content)
	}
	msg := e.failure("edit", map[string]string{"path": "a.txt", "tag": r.Tag, "ops": "PUT 2.=2:\n+5 €"}, wire.ToolInvalidArgument)
	if !strings.Contains(msg, "ISO-8859-1") || !strings.Contains(msg, "line 2") || !strings.Contains(msg, "€") {
		t.Fatalf("the refusal does not name the encoding, the line and the character: %s", msg)
	}
	if got := e.cat("a.txt"); got != before {
		t.Fatalf("a refused edit changed the file: %q", got)
	}
	e.failure("write", map[string]string{"path": "a.txt", "content": "ok\n€\n"}, wire.ToolInvalidArgument)
	if got := e.cat("a.txt"); got != before {
		t.Fatalf("a refused write changed the file: %q", got)
	}
}

// grep searches a UTF-16 file's decoded text, with its line numbers.
func TestGrepFindsTextInUTF16(t *testing.T) {
	e, _ := newEncodedEnv(t, nil)
	e.put("win.csv", encodeAs(t, textenc.UTF16LE, true, "name,city\r\nzoë,Zürich\r\n"))
	g := e.grep(map[string]any{"pattern": "Zürich", "outputMode": "content"})
	if len(g.Matches) != 1 || g.Matches[0].Line != 2 || g.Matches[0].Text != "zoë,Zürich" {
		t.Fatalf("grep matches %+v, want line 2 of win.csv", g.Matches)
	}
}

// A file with no mark that is not valid UTF-8 is never decoded by a
// guess: read refuses it as NOT_TEXT, and the refusal names the encodings
// setting that would make it text; when a rule of that setting gives the
// file an encoding its bytes are not valid in, it names that rule.
func TestNotTextNamesTheEncodingsSetting(t *testing.T) {
	e, _ := newEncodedEnv(t, []config.EncodingRule{{Glob: "*.sjis", Encoding: "shift_jis"}})
	e.put("latin1.txt", "caf\xe9\nna\xefve\n")
	msg := e.failure("read", map[string]any{"path": "latin1.txt"}, wire.ToolNotText)
	for _, want := range []string{"encodings setting", `"encoding": "windows-1252"`, "never guesses"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal of a Latin-1 file does not say %q: %s", want, msg)
		}
	}
	e.put("bad.sjis", "ok\n\x81\n")
	msg = e.failure("read", map[string]any{"path": "bad.sjis"}, wire.ToolNotText)
	for _, want := range []string{"Shift_JIS", `"*.sjis"`, "correct that setting"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal of a file its rule misnames does not say %q: %s", want, msg)
		}
	}
}

// A file in UTF-16 or UTF-32 with no byte-order mark holds NUL bytes, so
// it is not text as hostd reads it; the refusal says which encoding it
// looks like and gives the encodings rule that makes it text, and that
// rule, once in the setting, does. Binary bytes get no such hint.
func TestNotTextSaysAFileLooksLikeUTF16(t *testing.T) {
	text := "hello\nwörld\n"
	cases := []struct{ file, encoding string }{
		{"le.txt", "utf-16le"},
		{"src/be.rc", "utf-16be"},
		{"wide.dat", "utf-32le"},
		{"README", "utf-32be"},
	}
	rule := regexp.MustCompile(`\{"encodings": (\[[^]]*\])\}`)
	for _, c := range cases {
		t.Run(c.encoding, func(t *testing.T) {
			enc, err := textenc.Lookup(c.encoding)
			if err != nil {
				t.Fatal(err)
			}
			e, _ := newEncodedEnv(t, nil)
			e.put(c.file, encodeAs(t, enc, false, text))
			var msg string
			for _, call := range []struct {
				tool string
				args map[string]any
			}{
				{"read", map[string]any{"path": c.file}},
				{"edit", map[string]any{"path": c.file, "tag": "0000", "ops": "CUT 1.=1"}},
			} {
				msg = e.failure(call.tool, call.args, wire.ToolNotText)
				for _, want := range []string{"looks like " + enc.Name(), "encodings setting", "byte-order mark"} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s's refusal does not say %q: %s", call.tool, want, msg)
					}
				}
			}
			m := rule.FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("the refusal gives no encodings rule: %s", msg)
			}
			var rules []config.EncodingRule
			if err := json.Unmarshal([]byte(m[1]), &rules); err != nil {
				t.Fatalf("the rule %s: %v", m[1], err)
			}
			e, _ = newEncodedEnv(t, rules)
			e.put(c.file, encodeAs(t, enc, false, text))
			if got := e.read(map[string]any{"path": c.file}).Content; !strings.Contains(got, "wörld") {
				t.Errorf("with the rule %s, read gives %q", m[1], got)
			}
		})
	}
	e, _ := newEncodedEnv(t, nil)
	e.put("a.bin", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00")
	msg := e.failure("read", map[string]any{"path": "a.bin"}, wire.ToolNotText)
	if strings.Contains(msg, "looks like") || !strings.Contains(msg, "utf-16le, utf-16be, utf-32le or utf-32be") {
		t.Errorf("the refusal of a binary file: %s", msg)
	}
}
