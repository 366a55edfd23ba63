package grep

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// fileResult is what searching one file found, before the search's bounds
// are applied: take applies them, in walk order.
type fileResult struct {
	err      error // the search was cancelled before the file was searched
	searched bool  // the file was read: it counts in filesSearched
	skip     *Skip // it could not be searched, or is not text (NUL bytes, undecodable)
	count    int   // matching lines: all in count mode, the first in files mode, len(matches) in content mode
	// matches holds, in content mode, the file's first matches: every one
	// that a search with room for Options.Max results and an empty answer
	// could take, and the one past that, so take knows more exist.
	matches []Match
	notText *Skip  // set when the matches are in bytes that are not UTF-8
	file    *File  // set when count > 0; its digest and lines when the file is text
	text    string // the file's text for the caller, when small enough to retain
	hasText bool
}

// unbudgetedRead: a file this small is read without taking from the search's
// read budget, which would cost two lock operations per file of a tree of
// small files; what such files hold at once is at most this much per
// searcher.
const unbudgetedRead = 1 << 20

// bigReadBuffer is the largest read buffer a search goroutine keeps
// between files; a larger one, grown for a large file, is dropped after it.
const bigReadBuffer = 4 << 20

// readBuffers holds the read buffers of searches that are done (a
// *[]byte, each at most bigReadBuffer bytes), so that a call starts with
// the buffer an earlier one grew instead of growing its own from nothing:
// a tree's larger files cost allocations and clearing once, not per
// call. The pool is safe for concurrent use and the garbage collector
// empties it; a buffer is held by one goroutine at a time.
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// firstRead is how much of a file a search asks for before it knows the
// file's size: a file this large or larger is stat'ed and probed for the
// binary check before it is read further, so a large binary file costs one
// small read.
const firstRead = 64 << 10

// search reads and searches one file. It is safe to run on many goroutines
// at once: it reads the search's matcher and options and writes only
// its result and *buf, the caller's read buffer. f is the open file when
// the model named it; a file found by the walk is opened here, through the
// directory it was listed in, never following a link and never blocking.
// A file that cannot be opened is passed over: it is not searched.
func (s *search) search(ctx context.Context, cd candidate, f source, buf *[]byte) fileResult {
	if err := ctx.Err(); err != nil {
		if f == nil {
			cd.letGo()
		}
		return fileResult{err: err}
	}
	if f == nil {
		var err error
		if f, err = cd.openOnce(); err != nil {
			return fileResult{}
		}
		defer f.Close()
	}
	name := &fileName{cd: cd}
	fb, stop := s.readFile(ctx, f, buf, name)
	if fb.held > 0 {
		defer s.reads.Release(fb.held)
	}
	if stop != nil {
		return *stop
	}
	if fb.mapped {
		defer workspace.Unmap(fb.raw)
		var faulted bool
		r := guardFaults(func() fileResult { return s.searchBytes(name, f, fb) }, &faulted)
		if faulted {
			return fileResult{skip: cannotRead(name.path().Display, errChanged)}
		}
		return r
	}
	return s.searchBytes(name, f, fb)
}

// fileName is a searched file's paths, joined only once something is to
// be said of it.
type fileName struct {
	cd candidate
	p  workspace.Path
}

func (n *fileName) path() workspace.Path {
	if n.p.Abs == "" {
		n.p = workspace.Path{Abs: n.cd.abs(), Display: n.cd.display()}
	}
	return n.p
}

func (n *fileName) display() string { return n.path().Display }

// searchBytes searches a file's bytes, read or mapped.
func (s *search) searchBytes(name *fileName, f source, fb fileBytes) fileResult {
	cd, path := name.cd, name.path
	raw := fb.raw
	r := fileResult{searched: true}
	if !fb.enc.IsUTF8() {
		return s.searchEncoded(name, f, fb)
	}
	if cd.named == nil && s.m.pre != nil && s.m.pre.index(raw, 0) < 0 {
		// Most files a walk finds do not match: their bytes are searched
		// once, before the binary check and the line-ending check look at
		// them. Decoding only deletes a BOM and the CR of a CRLF, which
		// never joins two bytes a run could span (no run holds a newline),
		// so a run the raw bytes lack the text lacks too. A file the model
		// named still has its binary and decoding checks first: it is
		// told why a file that cannot match is not text.
		return r
	}
	if bytes.IndexByte(raw[:min(len(raw), workspace.NULScanBytes)], 0) >= 0 {
		r.skip = notText(path().Display, &workspace.NotTextError{NUL: true})
		return r
	}

	// Most files need no normalization, and most files do not match: search
	// the bytes as they are and decode only what will be shown.
	body, text, decoded := raw, "", false
	if bytes.HasPrefix(raw, []byte("\xEF\xBB\xBF")) || bytes.IndexByte(raw, '\r') >= 0 {
		t, derr := workspace.Decode(raw)
		if derr != nil {
			r.skip = notText(path().Display, derr)
			return r
		}
		body, text, decoded = []byte(t.Body), t.Body, true
	}
	return s.searchText(name, f, fb, r, body, text, decoded)
}

// searchText searches body, a file's text (decoded when decoded says so,
// then text is body as a string; else its bytes as they are), and
// collects what the result needs of the file.
func (s *search) searchText(name *fileName, f source, fb fileBytes, r fileResult, body []byte, text string, decoded bool) fileResult {
	path := name.path
	raw, stated := fb.raw, fb.stated
	var cost int64 // what the matches collected would add to an empty answer
	s.m.each(body, func(n int, line []byte) bool {
		r.count++
		switch s.opt.Mode {
		case FilesWithMatches:
			return false
		case Content:
			shown, clipped := s.clip(line)
			display := path().Display
			r.matches = append(r.matches, Match{Line: n, Text: shown, Clipped: clipped})
			cost += MatchCost(display, shown)
			if r.count == 1 {
				cost += FileCost(display)
			}
			return r.count <= s.opt.Max && cost <= s.opt.MaxAnswerBytes
		}
		return true
	})
	if r.count == 0 {
		return r
	}
	if !stated {
		// What is shown is a regular file's: one swapped for something
		// else since the walk listed it is not recorded.
		if _, regular, err := f.Stat(); err != nil || !regular {
			return fileResult{skip: notAFile(path().Display)}
		}
	}
	gf := &File{Abs: path().Abs, Display: path().Display, Bytes: int64(len(raw))}
	r.file = gf
	if !decoded && !utf8.Valid(raw) {
		r.notText = notText(path().Display, nil)
		return r
	}
	if !decoded {
		text = string(body)
	}
	gf.Digest = workspace.Sum(text)
	gf.Lines = bytes.Count(body, []byte{'\n'})
	if len(body) > 0 && body[len(body)-1] != '\n' {
		gf.Lines++
	}
	if int64(len(text)) <= s.opt.RetainFileBytes {
		r.text, r.hasText = text, true
	}
	return r
}

// readWeight is what reading a file of size bytes holds of the read budget.
func readWeight(size, limit int64) int64 { return min(size, limit) + 512 }

var errTooLarge = errors.New("file too large")

// fileBytes is a file read, or mapped, for a search.
type fileBytes struct {
	raw    []byte
	stated bool  // the file was stat'ed, and is a regular file
	held   int64 // what the file holds of the search's read budget until it is searched
	// enc is the file's encoding: UTF-8 unless a byte-order mark or the
	// workspace's setting names another (encoding.go).
	enc textenc.Encoding
	// mapped says raw is the file mapped into memory, not read: it must
	// be unmapped once the search is done, and touched only under
	// guardFaults.
	mapped bool
}

// readFile reads f whole into *buf, which it keeps for the next file
// unless it grew past bigReadBuffer, or maps it when it is mapMin bytes or
// more. stop, when set, is the result to give instead of a search: the
// file is not a regular file, too large, binary by its first bytes, or
// unreadable.
//
// A file is first asked for firstRead bytes, without a stat: most files
// are smaller, and a regular file reads short only at its end, so they
// cost one read. fb.stated says whether the file was stat'ed, which only a
// longer file needs, for its size: it is checked against the limit and the
// budget before it is read further, and is not read further when the
// binary check already finds a NUL byte. A file the walk listed as
// regular and replaced since by a FIFO (the open never blocks) may
// have its pending bytes read; search stats every file it is about to
// show, so nothing that is not a regular file is ever recorded.
func (s *search) readFile(ctx context.Context, f source, buf *[]byte, name *fileName) (fb fileBytes, stop *fileResult) {
	display := name.display
	limit := s.opt.MaxFileBytes
	ask := int(min(firstRead, limit+1))
	raw := slices.Grow((*buf)[:0], ask)[:ask]
	defer func() {
		if cap(raw) <= bigReadBuffer {
			*buf = raw[:0]
		} else {
			*buf = nil
		}
	}()
	n, err := f.Read(raw)
	raw = raw[:max(n, 0)]
	fb.raw = raw
	if err != nil && err != io.EOF {
		return fb, &fileResult{skip: cannotRead(display(), err)}
	}
	fb.enc = s.encodingOf(name, raw)
	if n < ask {
		return fb, nil
	}
	size, regular, err := f.Stat()
	fb.stated = true
	switch {
	case err != nil || !regular:
		return fb, &fileResult{skip: notAFile(display())}
	case size > limit:
		return fb, &fileResult{skip: tooLarge(display(), size, limit)}
	case fb.enc.IsUTF8() && bytes.IndexByte(raw[:min(len(raw), workspace.NULScanBytes)], 0) >= 0:
		return fb, &fileResult{searched: true, skip: notText(display(), &workspace.NotTextError{NUL: true})}
	}
	if s.reads != nil && size > unbudgetedRead {
		// The bytes being searched at once stay within the search's read
		// budget however many goroutines search.
		fb.held = encodedWeight(readWeight(size, limit), fb.enc, limit)
		if err := s.reads.Acquire(ctx, fb.held); err != nil {
			fb.held = 0
			return fb, &fileResult{err: err}
		}
	}
	if size >= mapMin {
		if m, err := f.Map(size); err == nil {
			fb.raw, fb.mapped = m, true
			return fb, nil
		}
		// Not mappable here: read it.
	}
	raw, err = readRest(f, raw, size, limit)
	fb.raw = raw
	switch {
	case errors.Is(err, errTooLarge):
		return fb, &fileResult{skip: tooLarge(display(), int64(len(raw)), limit)}
	case err != nil:
		return fb, &fileResult{skip: cannotRead(display(), err)}
	}
	return fb, nil
}

// readRest reads the rest of f after buf, which holds its start, growing
// buf to the file's size as needed, and fails with errTooLarge past limit
// bytes: a file may grow after its stat. A read that returns less than it
// was asked for once size bytes are in is the end of the file: a regular
// file reads short only there, and this saves the call that would return
// nothing.
func readRest(f io.Reader, buf []byte, size, limit int64) ([]byte, error) {
	if more := int(min(size, limit)) + 512 - len(buf); more > 0 {
		buf = slices.Grow(buf, more)
	}
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf))
		}
		want := cap(buf) - len(buf)
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+max(n, 0)]
		if int64(len(buf)) > limit {
			return buf, errTooLarge
		}
		if err == io.EOF || (err == nil && n < want && int64(len(buf)) >= size) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// notText is the skip of a file that is not text; err is why, when
// decoding said so (a *workspace.NotTextError), for the message.
func notText(display string, err error) *Skip {
	return &Skip{Reason: NotText, Display: display, Err: err}
}

func notAFile(display string) *Skip { return &Skip{Reason: NotAFile, Display: display} }

func cannotRead(display string, err error) *Skip {
	return &Skip{Reason: Unreadable, Display: display, Err: err}
}

func tooLarge(display string, size, limit int64) *Skip {
	return &Skip{Reason: TooLarge, Display: display, Size: size, Limit: limit}
}

// source is a file open for searching: a workspace.File, opened
// through the walk's directory or the root of the path the model named.
type source interface {
	io.Reader
	io.Closer
	// Stat returns the file's size and whether it is a regular file.
	Stat() (size int64, regular bool, err error)
	// Map maps the file's first size bytes into memory, read-only.
	Map(size int64) ([]byte, error)
}
