package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/workspace/textenc"
)

// A SIGKILL during a write or an edit of a file that is not in UTF-8
// leaves it in its before or its after bytes, each in the file's own
// encoding (edit-contract §3.5): the crash promise of
// TestCrashSafetyUnderSIGKILL holds in every kind of encoding, those a
// byte-order mark names and one the config file's encodings setting gives.
func TestCrashSafetyInEveryEncoding(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the real hostd many times; skipped under -short")
	}
	cfg := filepath.Join(t.TempDir(), "hostd.json")
	if err := os.WriteFile(cfg, []byte(`{"encodings": [{"glob": "*.w1252", "encoding": "windows-1252"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newCrashRigWith(t, "--config", cfg)
	start := time.Now()
	var scs []crashScenario
	for _, fe := range []fileEncoding{
		{"utf-16le", textenc.UTF16LE, true, ".txt"},
		{"utf-16be", textenc.UTF16BE, true, ".txt"},
		{"utf-32le", textenc.UTF32LE, true, ".txt"},
		{"windows-1252", mustLookup(t, "windows-1252"), false, ".w1252"},
	} {
		scs = append(scs,
			crashScenario{"write-" + fe.name, 4, 0, timed, fe.buildWrite},
			crashScenario{"edit-" + fe.name, 4, 0, timed, fe.buildEdit},
			crashScenario{"edit-" + fe.name + "@temp", 3, 0, tempFile, fe.buildEdit},
		)
	}
	total := r.runScenarios(scs)
	if left := tempFiles(t, r.ws); len(left) > 0 {
		t.Errorf("temporary files left in the workspace: %v", left)
	}
	t.Logf("total in %v: %v", time.Since(start).Round(time.Millisecond), total)
}

func mustLookup(t *testing.T, name string) textenc.Encoding {
	t.Helper()
	e, err := textenc.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// fileEncoding is how a scenario's files are stored: in enc, after its
// byte-order mark when bom is set, named with ext.
type fileEncoding struct {
	name string
	enc  textenc.Encoding
	bom  bool
	ext  string
}

// bytes is s (UTF-8, every character one enc represents) as the file
// holds it.
func (fe fileEncoding) bytes(r *crashRig, s string) []byte {
	b, err := fe.enc.NewEncoder().Append(nil, s)
	if err != nil {
		r.t.Fatal(err)
	}
	if fe.bom {
		b = append(append([]byte(nil), fe.enc.BOM()...), b...)
	}
	return b
}

// encodedText is text's lines with a character outside ASCII in each, so a
// file written as UTF-8 by mistake differs from the one expected.
func encodedText(seed string) string {
	return strings.ReplaceAll(string(text(0, seed)), "line", "lïne")
}

// buildWrite: write replaces a file in fe's encoding, which keeps it.
func (fe fileEncoding) buildWrite(r *crashRig, n string, _ int) crashCase {
	rel := "enc/" + n + fe.ext
	p := filepath.Join(r.ws, rel)
	before := present(fe.bytes(r, encodedText("old "+n)), 0o644)
	put(r.t, p, before)
	content := encodedText("new " + n)
	return crashCase{
		method: "tools.execute", params: r.toolCall("write", n, map[string]any{"path": rel, "content": content}),
		callID: n, entries: 1, watch: p,
		before: map[string]fileState{p: before},
		after:  map[string]fileState{p: present(fe.bytes(r, content), 0o644)},
	}
}

// buildEdit: edit replaces two lines of a file in fe's encoding in CRLF.
func (fe fileEncoding) buildEdit(r *crashRig, n string, _ int) crashCase {
	rel := "enc/" + n + fe.ext
	p := filepath.Join(r.ws, rel)
	orig := strings.ReplaceAll(encodedText("orig "+n), "\n", "\r\n")
	before := present(fe.bytes(r, orig), 0o644)
	put(r.t, p, before)
	ops := fmt.Sprintf("PUT 3.=4:\n+changed Ä %s\n+changed B %s", n, n)
	rows := strings.SplitAfter(orig, "\n")
	after := strings.Join(rows[:2], "") + fmt.Sprintf("changed Ä %s\r\nchanged B %s\r\n", n, n) + strings.Join(rows[4:], "")
	return crashCase{
		method: "tools.execute", params: r.toolCall("edit", n, map[string]any{"path": rel, "tag": r.readTag(rel), "ops": ops}),
		callID: n, entries: 1, watch: p,
		before: map[string]fileState{p: before},
		after:  map[string]fileState{p: present(fe.bytes(r, after), 0o644)},
	}
}
