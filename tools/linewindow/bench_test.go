package linewindow

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// The 1 GiB file is shared by the benchmarks that compare against it, so it
// lives in a directory of its own that TestMain removes: b.TempDir is
// emptied after every round of a benchmark and would mean writing it again.
var bigFile struct {
	once  sync.Once
	dir   string
	path  string
	lines int
	size  int64
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bigFile.dir != "" {
		os.RemoveAll(bigFile.dir)
	}
	os.Exit(code)
}

// sourceLines are the material of the big file: Go-like code with tabs,
// blank lines, comments with non-ASCII text and a few trailing blanks.
var sourceLines = []string{
	"package server", "", "import (", "\t\"context\"", "\t\"fmt\"", ")", "",
	"// Handler serves one request; the caller owns ctx — résumé, naïve.",
	"func (s *Server) Handle(ctx context.Context, req *Request) (*Response, error) {",
	"\tif err := req.Validate(); err != nil {", "\t\treturn nil, fmt.Errorf(\"handle %s: %w\", req.ID, err)", "\t}",
	"\tfor i, item := range req.Items {", "\t\tif item.Size > s.limits.MaxItemBytes {",
	"\t\t\treturn nil, fmt.Errorf(\"item %d: %w\", i, ErrTooLarge)", "\t\t}", "\t\ts.total += item.Size ",
	"\t}", "\tresp := &Response{ID: req.ID, Count: len(req.Items)}", "\treturn resp, nil", "}", "",
	"type Request struct {", "\tID    string `json:\"id\"`", "\tItems []Item  `json:\"items\"`", "}",
	"\t// TODO(owner): bound this loop; see the design note.\t", "\tvar buf [64]byte",
	"\tn := copy(buf[:], name)", "\tswitch kind {", "\tcase kindFile, kindDir:", "\tdefault:",
	"\t\tlog.Printf(\"unexpected kind %v for %q\", kind, name)",
}

func makeBigFile(b *testing.B) (path string, lines int, size int64) {
	bigFile.once.Do(func() {
		dir, err := os.MkdirTemp("", "linewindow-bench-")
		if err != nil {
			bigFile.err = err
			return
		}
		bigFile.dir, bigFile.path = dir, filepath.Join(dir, "big.go")
		f, err := os.Create(bigFile.path)
		if err != nil {
			bigFile.err = err
			return
		}
		w := bufio.NewWriterSize(f, 1<<20)
		x := uint64(88172645463325252)
		for bigFile.size < 1<<30 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			l := sourceLines[x%uint64(len(sourceLines))]
			w.WriteString(l)
			w.WriteByte('\n')
			bigFile.size += int64(len(l) + 1)
			bigFile.lines++
		}
		if err := w.Flush(); err != nil {
			bigFile.err = err
		}
		if err := f.Close(); err != nil && bigFile.err == nil {
			bigFile.err = err
		}
	})
	if bigFile.err != nil {
		b.Fatal(bigFile.err)
	}
	return bigFile.path, bigFile.lines, bigFile.size
}

// peakHeap samples live heap objects while a benchmark runs; the runtime
// metric is read without stopping the world.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); <-finished; return peak }
}

// BenchmarkReadTail1GiB reads the last 50 lines of a 1 GiB source-like
// file: the whole file is hashed and validated, 50 lines are kept.
func BenchmarkReadTail1GiB(b *testing.B) {
	path, lines, size := makeBigFile(b)
	opt := defaults()
	opt.Offset, opt.Limit = lines-49, 50
	b.SetBytes(size)
	b.ReportAllocs()
	runtime.GC()
	stop := peakHeap()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		w, err := ReadContext(context.Background(), f, opt)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if len(w.Lines) != 50 || w.Lines[49].N != lines || w.FileBytes != size || w.Retained {
			b.Fatalf("window %d lines ending at %d, FileBytes %d, retained %v", len(w.Lines), w.Lines[len(w.Lines)-1].N, w.FileBytes, w.Retained)
		}
	}
	b.ReportMetric(float64(stop()), "peak-heap-B")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys), "sys-B")
}

// BenchmarkOpensslSHA256 is the bar BenchmarkReadTail1GiB is held to: the
// plain digest of the same file by openssl, whose SHA-256 uses the CPU's
// SHA extensions as Go's does.
func BenchmarkOpensslSHA256(b *testing.B) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		b.Skip("openssl not installed")
	}
	path, _, size := makeBigFile(b)
	b.SetBytes(size)
	for b.Loop() {
		if out, err := exec.Command(bin, "dgst", "-sha256", path).CombinedOutput(); err != nil {
			b.Fatalf("openssl: %v: %s", err, out)
		}
	}
}

// BenchmarkSHA256File is the in-process floor: plain crypto/sha256 of the
// file in chunks of the same size, with no text work at all.
func BenchmarkSHA256File(b *testing.B) {
	path, _, size := makeBigFile(b)
	b.SetBytes(size)
	buf := make([]byte, DefaultChunkBytes)
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		h := sha256.New()
		_, err = io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		_ = fmt.Sprintf("%x", h.Sum(nil))
	}
}

// BenchmarkNextTrailing is the trailing-blank search alone over one chunk
// of source-like text.
func BenchmarkNextTrailing(b *testing.B) {
	var p []byte
	for x := uint64(88172645463325252); len(p) < DefaultChunkBytes; {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		p = append(append(p, sourceLines[x%uint64(len(sourceLines))]...), '\n')
	}
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		for from := 0; ; {
			j := nextTrailing(p, from)
			if j < 0 {
				break
			}
			from = j + 1
		}
	}
}

// BenchmarkGenerated256MiB compares, without the file system, the pass over
// LF and CRLF source text with plain SHA-256 of the same bytes: CRLF puts a
// trimmed span on every line, the worst realistic case for the hash plan.
func BenchmarkGenerated256MiB(b *testing.B) {
	const size = 256 << 20
	lf := strings.Join(sourceLines, "\n") + "\n"
	for _, bc := range []struct {
		name string
		run  func(r io.Reader) error
		body string
	}{
		{"lf", func(r io.Reader) error { _, err := Read(r, defaults()); return err }, lf},
		{"crlf", func(r io.Reader) error { _, err := Read(r, defaults()); return err }, strings.ReplaceAll(lf, "\n", "\r\n")},
		{"sha256", func(r io.Reader) error {
			_, err := io.CopyBuffer(sha256.New(), r, make([]byte, DefaultChunkBytes))
			return err
		}, lf},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				if err := bc.run(&patternReader{body: bc.body, size: size}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadSmall is a whole read of a 40-line source file, the most
// common read, beside plain crypto/sha256 of the same bytes (sha-ns/op):
// on a file this small the fixed cost of a pass is what shows.
func BenchmarkReadSmall(b *testing.B) {
	var sb strings.Builder
	for i := range 40 {
		fmt.Fprintf(&sb, "\tvalue%d := compute(input, %d) // a line of source\n", i, i)
	}
	text := sb.String()
	opt := Options{Offset: 1, Limit: 2000, MaxLineChars: 2000, RetainBytes: 1 << 20}
	b.SetBytes(int64(len(text)))
	var sha time.Duration
	for b.Loop() {
		if _, err := Read(struct{ io.Reader }{strings.NewReader(text)}, opt); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		_ = sha256.Sum256([]byte(text))
		sha += time.Since(start)
	}
	b.ReportMetric(float64(sha.Nanoseconds())/float64(b.N), "sha-ns/op")
}
