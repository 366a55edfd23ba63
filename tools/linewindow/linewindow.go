// Package linewindow owns the one streaming pass the read tool makes over a
// file: it validates the bytes as text, mints the snapshot digest of the
// whole normalized file (edit-contract §3), counts its addressable lines and
// dominant line ending, and keeps only the requested window of lines plus,
// for small files, the full normalized body the snapshot store retains
// (edit-contract §4.4).
//
// Its results are defined to equal the whole-input definitions in package
// workspace (Decode, Lines, Sum) on the same bytes; it exists because those
// need the whole file in memory and a read of the last 50 lines of a 2 GiB
// file must cost memory for 50 lines. A pass holds at most three chunk
// buffers with their hash plans (about 2 MiB at the default chunk size),
// the window (Limit lines of at most MaxLineChars runes, 4 bytes each at
// worst, or MaxWindowBytes plus one line) and, until the file proves
// larger, a body of up to RetainBytes,
// whatever the input: one endless line and an endless run of whitespace
// cost the same as any other file. SHA-256 runs in a goroutine of its own
// beside the scan (digest.go).
//
// It reads from an io.Reader and nothing else: opening files, resolving
// paths, rendering the window and recording snapshots belong to the read
// tool and the session store.
package linewindow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// ErrInvalidOptions reports Options no window can satisfy. Clamping client
// input to valid values is the caller's job; this package refuses rather
// than guess.
var ErrInvalidOptions = errors.New("linewindow: invalid options")

// DefaultChunkBytes is how much Read asks of the reader at a time: large
// enough that per-chunk work vanishes next to hashing, small enough to stay
// in cache.
const DefaultChunkBytes = 256 << 10

// maxCarry is the most bytes one chunk hands to the next: an incomplete
// UTF-8 sequence (at most 3 bytes) or a CR whose partner may be the next
// chunk's first byte.
const maxCarry = 3

// maxStalls bounds how many empty reads without an error Read tolerates
// before it gives up with io.ErrNoProgress, as bufio does.
const maxStalls = 100

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// jobPool recycles chunk buffers: the read tool reads many small files,
// and fresh buffers per read would be most of their cost. Nothing read from
// a buffer outlives the pass (lines and body are copies).
var jobPool = sync.Pool{New: func() any { return newChunkJob(DefaultChunkBytes) }}

// Options selects the window.
type Options struct {
	Offset       int   // 1-based first line of the window
	Limit        int   // lines in the window; 0 reads only the tag and counts
	MaxLineChars int   // characters (runes) kept per line; longer lines are clipped
	RetainBytes  int64 // keep the full normalized body when the file is at most this many bytes
	// MaxWindowBytes ends the window early, after the line that brings
	// the window's text past this many bytes (0: no bound), so a window of
	// many long lines cannot grow without bound. Lines past it are left
	// out as if the window ended there.
	MaxWindowBytes int64
	// Encoding is what the input is in when it starts with no byte-order
	// mark: the charset the workspace gives the file (zero: UTF-8). A
	// mark wins, as in workspace.DecodeAs (encoded.go).
	Encoding textenc.Encoding
}

// Line is one line of the window.
type Line struct {
	N       int    // absolute 1-based line number in the file
	Text    string // the normalized line (no LF, no CR of a CRLF), at most MaxLineChars runes
	Clipped bool   // the line has more than MaxLineChars runes; Text is its head
}

// Window is the result of one pass over a file.
type Window struct {
	Lines      []Line           // the window, ascending; empty when Offset is past the end
	TotalLines int              // addressable lines (edit-contract §3.1)
	Digest     workspace.Digest // equals workspace.Sum(workspace.DecodeAs(all bytes, Options.Encoding).Body)
	BOM, CRLF  bool             // as workspace.DecodeAs reports them
	Encoding   textenc.Encoding // the input's encoding, as workspace.DecodeAs reports it
	FileBytes  int64            // raw bytes read, BOM included
	// Unterminated reports that the last line has no newline after it
	// (false for an empty file).
	Unterminated bool
	Body         string // full normalized body; only when Retained
	Retained     bool   // the file had at most RetainBytes bytes
}

// Read makes one pass over r and returns the window opt selects. It fails
// with a *workspace.NotTextError (wrapping workspace.ErrNotText) when the
// bytes are not valid in their encoding anywhere or the text holds a NUL
// in its first 8 KiB, stopping at the first offending chunk; with ErrInvalidOptions for a non-positive Offset or
// MaxLineChars or a negative Limit or RetainBytes; and with the reader's
// error wrapped otherwise.
func Read(r io.Reader, opt Options) (*Window, error) {
	return ReadContext(context.Background(), r, opt)
}

// ReadContext is Read that gives up between chunks once ctx is done, so a
// cancelled request does not keep hashing a huge file.
func ReadContext(ctx context.Context, r io.Reader, opt Options) (*Window, error) {
	return read(ctx, r, opt, DefaultChunkBytes)
}

func (o Options) validate() error {
	switch {
	case o.Offset < 1:
		return fmt.Errorf("%w: offset %d is not a 1-based line number", ErrInvalidOptions, o.Offset)
	case o.Limit < 0:
		return fmt.Errorf("%w: negative limit %d", ErrInvalidOptions, o.Limit)
	case o.MaxLineChars < 1:
		return fmt.Errorf("%w: maxLineChars %d must be positive", ErrInvalidOptions, o.MaxLineChars)
	case o.RetainBytes < 0:
		return fmt.Errorf("%w: negative retainBytes %d", ErrInvalidOptions, o.RetainBytes)
	}
	return nil
}

// read is Read with the chunk size as a parameter, so tests can put chunk
// boundaries everywhere.
func read(ctx context.Context, r io.Reader, opt Options, chunk int) (*Window, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	if chunk < 1 {
		chunk = DefaultChunkBytes
	}
	newJob, free := func() *chunkJob { return newChunkJob(chunk) }, func(*chunkJob) {}
	if chunk == DefaultChunkBytes {
		newJob = func() *chunkJob { return jobPool.Get().(*chunkJob) }
		free = func(j *chunkJob) { jobPool.Put(j) }
	}
	pipe := startDigest(newJob, free)
	defer pipe.release()
	defer pipe.finish() // before release: the digest may still read a buffer
	s := newScanner(opt, chunk)
	in, err := s.decoding(r)
	if err == nil {
		err = s.scan(ctx, in, chunk, pipe)
	}
	if err != nil {
		return nil, s.notText(err)
	}
	d, err := pipe.finish()
	if err != nil {
		return nil, err
	}
	return s.result(d), nil
}

// scan reads r to the end, handing each chunk to the digest after
// scanning it.
func (s *scanner) scan(ctx context.Context, r io.Reader, chunk int, pipe *digestPipe) error {
	job := pipe.next()
	carry, stalls := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf := job.buf
		n, rerr := r.Read(buf[carry : carry+chunk])
		if n < 0 || n > chunk {
			return fmt.Errorf("linewindow: reader returned %d bytes for a %d-byte buffer", n, chunk)
		}
		if n > 0 {
			stalls = 0
			if err := s.admitRaw(buf[carry : carry+n]); err != nil {
				return err
			}
		} else if rerr == nil {
			if stalls++; stalls >= maxStalls {
				return fmt.Errorf("linewindow: read: %w", io.ErrNoProgress)
			}
		}
		eof := errors.Is(rerr, io.EOF)
		if rerr != nil && !eof {
			return fmt.Errorf("linewindow: read: %w", rerr)
		}
		data := buf[:carry+n]
		hold := 0
		if !eof {
			hold = s.holdBack(data)
		}
		s.trim.reset(job.ops, job.stage)
		err := s.process(s.stripBOM(data[:len(data)-hold], eof), eof)
		job.ops, job.stage = s.trim.ops, s.trim.stage
		if err != nil {
			return err
		}
		pipe.submit(job)
		if eof {
			return nil
		}
		job = pipe.next()
		carry = copy(job.buf, data[len(data)-hold:])
	}
}

// admitRaw sees every byte once, in file order, before any is processed:
// the NUL scan and the retention decision are about raw file offsets.
func (s *scanner) admitRaw(b []byte) error {
	if s.rawBytes < workspace.NULScanBytes {
		head := b[:min(int64(len(b)), workspace.NULScanBytes-s.rawBytes)]
		if i := bytes.IndexByte(head, 0); i >= 0 {
			return &workspace.NotTextError{Enc: s.enc, NUL: true, Offset: s.rawBytes + int64(i)}
		}
	}
	s.rawBytes += int64(len(b))
	if s.retain && s.rawBytes > s.opt.RetainBytes {
		// Past the retention limit the body is useless: free it now
		// rather than carry it to the end of a huge file.
		s.retain = false
		s.body = nil
	}
	return nil
}

// holdBack returns how many bytes at the end of data must wait for the next
// read: an incomplete UTF-8 sequence (validation and rune counting need
// whole runes; a BOM is one rune, so it is never split either), or a final
// CR (whether it ends a CRLF decides line text, counts and the hash input).
func (s *scanner) holdBack(data []byte) int {
	if k := incompleteRune(data); k > 0 {
		return k
	}
	if len(data) > 0 && data[len(data)-1] == '\r' {
		return 1
	}
	return 0
}

// stripBOM decides the BOM on the first bytes that are processed. holdBack
// never splits the BOM, a three-byte rune, so p holds all of it or none;
// an empty p before the end (everything held back) decides nothing.
func (s *scanner) stripBOM(p []byte, final bool) []byte {
	if s.bomDone || s.decoded || (len(p) == 0 && !final) {
		return p
	}
	s.bomDone = true
	if bytes.HasPrefix(p, utf8BOM) {
		s.bomLen = int64(len(utf8BOM))
		return p[len(utf8BOM):]
	}
	return p
}

// incompleteRune returns the length of a UTF-8 sequence that starts within
// the last three bytes of b and is not complete yet, or 0. An invalid
// sequence is not held: validation reports it now.
func incompleteRune(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		switch {
		case c < 0x80:
			return 0
		case c >= 0xC0:
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

// windowBounds returns the inclusive line range of the window, empty
// (hi < lo) for a zero limit, without overflowing on huge values.
func windowBounds(o Options) (lo, hi int) {
	if o.Limit == 0 {
		return o.Offset, o.Offset - 1
	}
	if o.Limit-1 > math.MaxInt-o.Offset {
		return o.Offset, math.MaxInt
	}
	return o.Offset, o.Offset + o.Limit - 1
}
