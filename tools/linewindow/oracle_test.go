package linewindow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/workspace"
)

// oracle is the whole-input definition Read must match: workspace.Decode,
// Lines and Sum over all the bytes at once, and a clip by runes.
func oracle(raw []byte, opt Options) (*Window, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	t, err := workspace.Decode(raw)
	if err != nil {
		return nil, err
	}
	lines := workspace.Lines(t.Body)
	w := &Window{
		TotalLines: len(lines),
		Digest:     workspace.Sum(t.Body),
		BOM:        t.BOM,
		CRLF:       t.CRLF,
		FileBytes:  int64(len(raw)),
	}
	var windowBytes int64
	for n := opt.Offset; n <= len(lines) && n-opt.Offset < opt.Limit; n++ {
		runes := []rune(lines[n-1])
		l := Line{N: n, Text: lines[n-1]}
		if len(runes) > opt.MaxLineChars {
			l.Text, l.Clipped = string(runes[:opt.MaxLineChars]), true
		}
		w.Lines = append(w.Lines, l)
		if windowBytes += int64(len(l.Text)); opt.MaxWindowBytes > 0 && windowBytes >= opt.MaxWindowBytes {
			break
		}
	}
	if int64(len(raw)) <= opt.RetainBytes {
		w.Body, w.Retained = t.Body, true
	}
	return w, nil
}

// diffWindows describes how got differs from want, or returns "".
func diffWindows(got, want *Window, gotErr, wantErr error) string {
	switch {
	case wantErr != nil || gotErr != nil:
		if wantErr == nil || gotErr == nil {
			return fmt.Sprintf("error: got %v, want %v", gotErr, wantErr)
		}
		for _, sentinel := range []error{workspace.ErrNotText, ErrInvalidOptions} {
			if errors.Is(wantErr, sentinel) != errors.Is(gotErr, sentinel) {
				return fmt.Sprintf("error: got %v, want %v", gotErr, wantErr)
			}
		}
		return ""
	}
	var b strings.Builder
	check := func(name string, g, w any) {
		if fmt.Sprint(g) != fmt.Sprint(w) {
			fmt.Fprintf(&b, "%s: got %q, want %q\n", name, fmt.Sprint(g), fmt.Sprint(w))
		}
	}
	check("TotalLines", got.TotalLines, want.TotalLines)
	check("Tag", got.Digest.Tag(), want.Digest.Tag())
	check("Digest", got.Digest, want.Digest)
	check("BOM", got.BOM, want.BOM)
	check("CRLF", got.CRLF, want.CRLF)
	check("FileBytes", got.FileBytes, want.FileBytes)
	check("Retained", got.Retained, want.Retained)
	check("Body", got.Body, want.Body)
	check("len(Lines)", len(got.Lines), len(want.Lines))
	for i := range min(len(got.Lines), len(want.Lines)) {
		check(fmt.Sprintf("Lines[%d]", i), got.Lines[i], want.Lines[i])
	}
	return b.String()
}

// nReader returns at most n bytes per Read, so chunk boundaries fall at
// every n-th byte whatever the internal chunk size.
type nReader struct {
	r io.Reader
	n int
}

func (r nReader) Read(p []byte) (int, error) {
	return r.r.Read(p[:min(len(p), r.n)])
}

// readers are the ways a test feeds one input: whole, and cut at every
// position by the reader, by the chunk size, or both.
var readers = []struct {
	name  string
	chunk int
	wrap  func(io.Reader) io.Reader
}{
	{"whole", DefaultChunkBytes, func(r io.Reader) io.Reader { return r }},
	{"onebyte", DefaultChunkBytes, iotest.OneByteReader},
	{"2bytes", DefaultChunkBytes, func(r io.Reader) io.Reader { return nReader{r, 2} }},
	{"3bytes", DefaultChunkBytes, func(r io.Reader) io.Reader { return nReader{r, 3} }},
	{"7bytes", DefaultChunkBytes, func(r io.Reader) io.Reader { return nReader{r, 7} }},
	{"half", DefaultChunkBytes, iotest.HalfReader},
	{"dataerr", DefaultChunkBytes, iotest.DataErrReader},
	{"chunk1", 1, func(r io.Reader) io.Reader { return r }},
	{"chunk4", 4, func(r io.Reader) io.Reader { return r }},
	{"chunk5+3bytes", 5, func(r io.Reader) io.Reader { return nReader{r, 3} }},
	{"chunk64", 64, func(r io.Reader) io.Reader { return r }},
}

// checkAllReaders runs raw through every reader and compares with the oracle.
func checkAllReaders(t *testing.T, name string, raw []byte, opt Options) {
	t.Helper()
	want, wantErr := oracle(raw, opt)
	for _, rd := range readers {
		got, err := read(context.Background(), rd.wrap(bytes.NewReader(raw)), opt, rd.chunk)
		if d := diffWindows(got, want, err, wantErr); d != "" {
			t.Errorf("%s, reader %s, %+v:\n%s", name, rd.name, opt, d)
		}
	}
}

// tricky inputs put every rule next to every other and to chunk edges.
var tricky = []string{
	"", "\n", "\n\n", "\r", "\r\n", "\r\r\n", "\n\r", "a", "a\n", "a\nb", "a\nb\n",
	"\xEF\xBB\xBF", "\xEF\xBB\xBFa\r\nb\r\n", "\xEF\xBB", "\xEF\xBBx", "a\xEF\xBB\xBF\n",
	"a \t\nb  \n", "a\n  ", "  ", " \t \r", "x \r\ny\t\r\n", "x\r \n", "\t\t\n\t\n",
	"a\rb\rc", "a\r\nb\nc\r\n", "a\r\nb\n", "mixed\r\n\n\r\n\r\n\n",
	"h\u00e9llo w\u00f6rld\n", "\u20ac\u20ac\u20ac\u20ac\n\u20ac", "\U0001F600\U0001F600\r\n\U0001F600",
	"\u00e9\r\n", "line1\nline2 \nline3\t\n\nline5",
	strings.Repeat("ab \n", 40), strings.Repeat(" ", 70) + "\n" + strings.Repeat("\t", 70) + "x",
	strings.Repeat("\u00e9", 50) + "\r\n" + strings.Repeat("\U0001F600", 30),
	strings.Repeat("word  \r\n", 30) + "end   ",
	"bad\xff\n", "abc\xe2\x82", "\xe2\x82\xac\xe2\x82", "\xc0\xaf", "a\x00b", "\xed\xa0\x80",
}

var optionSets = []Options{
	{Offset: 1, Limit: 2000, MaxLineChars: 16384, RetainBytes: 2 << 20},
	{Offset: 1, Limit: 1, MaxLineChars: 3, RetainBytes: 0},
	{Offset: 2, Limit: 2, MaxLineChars: 1, RetainBytes: 8},
	{Offset: 3, Limit: 100, MaxLineChars: 5, RetainBytes: 1 << 20},
	{Offset: 1, Limit: 0, MaxLineChars: 10, RetainBytes: 1 << 20},
	{Offset: 40, Limit: 5, MaxLineChars: 2, RetainBytes: 30},
	{Offset: 2, Limit: 100, MaxLineChars: 4, RetainBytes: 100, MaxWindowBytes: 5},
}

func TestChunkBoundariesEverywhere(t *testing.T) {
	for _, in := range tricky {
		for _, opt := range optionSets {
			checkAllReaders(t, fmt.Sprintf("%q", in), []byte(in), opt)
		}
	}
}

// TestCorpusFiles runs the real source files of the shared corpus through
// every reader, each also re-encoded with CRLF and a BOM.
func TestCorpusFiles(t *testing.T) {
	root := testenv.Corpus(t, "")
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && len(files) < 40 {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("walking %s: %v (%d files)", root, err, len(files))
	}
	opt := Options{Offset: 7, Limit: 30, MaxLineChars: 40, RetainBytes: 4 << 10}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		crlf := append([]byte("\xEF\xBB\xBF"), bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n"))...)
		for _, in := range [][]byte{raw, crlf} {
			checkAllReaders(t, path, in, opt)
		}
	}
}
