package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/benchkit"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// The text path is what an edit does between the bytes it read and the
// bytes it writes: decode (validate, BOM, line endings), index the lines,
// run the edit language's pipeline, and encode the new lines with each
// untouched line's own bytes: EditPath, the functions the edit tool runs.
// cmd/hostbench times it beside the reference implementation; these
// benchmarks let a change to one step be measured alone:
//
//	go test ./tools -run '^$' -bench 'TextPath|WholeBodyPath' -benchmem
//
// BenchmarkTextPathSingleOp5kLinesUTF16 is the single-op edit of a file
// in UTF-16, to set against BenchmarkTextPathSingleOp5kLines.

func textPathFile(n int, eol string) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\tvalue%d := compute(%d, \"line\") // %d%s", i, i*7, i, eol)
	}
	return []byte(b.String())
}

// splitPath is the text path with the lines split into strings and the
// new lines built, as the edit tool does because it keeps them.
func splitPath(raw []byte, ops string, env hashline.Env) ([]byte, error) {
	t, err := workspace.DecodeOwned(raw)
	if err != nil {
		return nil, err
	}
	old := workspace.Lines(t.Body)
	res, err := hashline.Run(old, ops, env)
	if err != nil {
		return nil, err
	}
	return t.EncodeEdit(raw, old, res.Lines, copiesOf(res.Copies), true), nil
}

// TestTextPathsAgree: the edit tool's text path (EditPath, on the line
// index) writes the bytes the split path writes, on LF, CRLF and mixed
// files with a BOM.
func TestTextPathsAgree(t *testing.T) {
	env := hashline.Env{Limits: hashline.DefaultLimits()}
	mixed := append([]byte("\xEF\xBB\xBF"), textPathFile(40, "\r\n")...)
	mixed = append(mixed, textPathFile(60, "\n")...)
	for _, raw := range [][]byte{textPathFile(200, "\n"), textPathFile(200, "\r\n"), mixed} {
		for _, ops := range []string{singleOp100, benchkit.SpreadOps(20, 100), "CUT 3.=5\nPUT >90:\n+x", "CUT 1.=2 @a\nPUT >$ @a"} {
			want, err := splitPath(raw, ops, hashline.Env{Limits: env.Limits, Registers: regs{session.NewRegisters(4)}})
			if err != nil {
				t.Fatalf("%q: %v", ops, err)
			}
			got, err := EditPath(raw, ops, hashline.Env{Limits: env.Limits, Registers: regs{session.NewRegisters(4)}})
			if err != nil {
				t.Fatalf("%q: %v", ops, err)
			}
			if string(got) != string(want) {
				t.Errorf("%q on %.20q...: the indexed path wrote %d bytes that differ from the split path's %d", ops, raw, len(got), len(want))
			}
		}
	}
}

const singleOp100 = "PUT 50.=51:\n+\tvalue := replaced()\n+\tuse(value)\n"

func benchTextPath(b *testing.B, raw []byte, ops string) {
	env := hashline.Env{Limits: hashline.DefaultLimits()}
	if _, err := EditPath(raw, ops, env); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		EditPath(raw, ops, env)
	}
}

// wholeBodyPath is the path edits took before EncodeEdit, kept as the
// benchmarks' point of comparison: the body copied out of the bytes,
// the new lines joined into a new body, and that body encoded line by
// line (which also gave every line the dominant ending).
func wholeBodyPath(raw []byte, ops string, env hashline.Env) ([]byte, error) {
	t, err := workspace.Decode(raw)
	if err != nil {
		return nil, err
	}
	res, err := hashline.Run(workspace.Lines(t.Body), ops, env)
	if err != nil {
		return nil, err
	}
	return t.Encode(workspace.Join(res.Lines, true))
}

func benchWholeBody(b *testing.B, raw []byte, ops string) {
	env := hashline.Env{Limits: hashline.DefaultLimits()}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		wholeBodyPath(raw, ops, env)
	}
}

func BenchmarkWholeBodyPathSingleOp5kLines(b *testing.B) {
	benchWholeBody(b, textPathFile(5000, "\n"), singleOp)
}

func BenchmarkWholeBodyPath50Ops5kLines(b *testing.B) {
	benchWholeBody(b, textPathFile(5000, "\n"), benchkit.SpreadOps(50, 5000))
}

func BenchmarkWholeBodyPathSingleOp5kLinesCRLF(b *testing.B) {
	benchWholeBody(b, textPathFile(5000, "\r\n"), singleOp)
}

const singleOp = "PUT 2500.=2501:\n+\tvalue := replaced()\n+\tuse(value)\n"

func BenchmarkTextPathSingleOp5kLines(b *testing.B) {
	benchTextPath(b, textPathFile(5000, "\n"), singleOp)
}

func BenchmarkTextPath50Ops5kLines(b *testing.B) {
	benchTextPath(b, textPathFile(5000, "\n"), benchkit.SpreadOps(50, 5000))
}

func BenchmarkTextPathSingleOp5kLinesCRLF(b *testing.B) {
	benchTextPath(b, textPathFile(5000, "\r\n"), singleOp)
}

// The same edit of the same text stored in UTF-16LE with its mark: the
// cost of decoding the file and encoding it again, against the UTF-8
// benchmarks above (edit-contract §3.5).
func BenchmarkTextPathSingleOp5kLinesUTF16(b *testing.B) {
	benchTextPath(b, utf16File(b, textPathFile(5000, "\n")), singleOp)
}

func BenchmarkTextPathSingleOp5kLinesUTF16CRLF(b *testing.B) {
	benchTextPath(b, utf16File(b, textPathFile(5000, "\r\n")), singleOp)
}

// utf16File is text in UTF-16LE after its byte-order mark.
func utf16File(tb testing.TB, text []byte) []byte {
	raw, err := textenc.UTF16LE.NewEncoder().Append(textenc.UTF16LE.BOM(), string(text))
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

func BenchmarkSplitPathSingleOp5kLines(b *testing.B) {
	raw, env := textPathFile(5000, "\n"), hashline.Env{Limits: hashline.DefaultLimits()}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		splitPath(raw, singleOp, env)
	}
}

// BenchmarkTextPathSteps times each step alone on the 5,000-line file.
func BenchmarkTextPathSteps(b *testing.B) {
	raw := textPathFile(5000, "\n")
	t, _ := workspace.Decode(raw)
	old := workspace.Lines(t.Body)
	env := hashline.Env{Limits: hashline.DefaultLimits()}
	res, _ := hashline.Run(old, singleOp, env)
	copies := copiesOf(res.Copies)
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			workspace.DecodeOwned(raw)
		}
	})
	b.Run("decode with a copy", func(b *testing.B) {
		for b.Loop() {
			workspace.Decode(raw)
		}
	})
	b.Run("split", func(b *testing.B) {
		for b.Loop() {
			workspace.Lines(t.Body)
		}
	})
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			t.Index(raw)
		}
	})
	b.Run("run", func(b *testing.B) {
		for b.Loop() {
			hashline.Run(old, singleOp, env)
		}
	})
	x, _ := t.Index(raw)
	b.Run("run text", func(b *testing.B) {
		for b.Loop() {
			hashline.RunText(x, singleOp, env)
		}
	})
	b.Run("encode rows", func(b *testing.B) {
		for b.Loop() {
			t.EncodeRows(x, res.Rows, copies, true)
		}
	})
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			t.EncodeEdit(raw, old, res.Lines, copies, true)
		}
	})
	b.Run("join+encode (whole body)", func(b *testing.B) {
		for b.Loop() {
			t.Encode(workspace.Join(res.Lines, true))
		}
	})
}
