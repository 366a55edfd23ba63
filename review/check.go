package review

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// checkFile reads the database file through ordinary reads, never through
// bbolt's memory map, and checks everything bbolt would later trust
// without checking: the meta pages, that the file holds every page the
// meta page counts, and the whole page tree (every page id in range, no
// page reached twice, every element inside its page, keys in order, every
// free page unused). bbolt panics or faults on a damaged page, and may do
// so lazily, long after Open; a file that passes this check cannot make
// it do either. Memory is one page (with its overflow) at a time plus a
// bit per page.
//
// It returns a *corruptError for a damaged file, and a plain error when
// the file could not be read at all. An absent file passes.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	c := &checker{f: f, size: info.Size()}
	return c.run()
}

// corruptError says why a database file cannot be used.
type corruptError struct {
	reason string
	// lockHeld: bbolt panicked inside Open, after it took the file's
	// lock and mapped the file, and never returned the DB that would
	// release them. The mapping keeps the lock held by this process
	// until it exits, so no other process can hold it.
	lockHeld bool
}

func (e *corruptError) Error() string { return e.reason }

func corrupt(format string, args ...any) error {
	return &corruptError{reason: fmt.Sprintf(format, args...)}
}

// bbolt's on-disk layout (format version 2), as far as the check needs it.
const (
	pageHeaderSize = 16 // id u64, flags u16, count u16, overflow u32
	elementSize    = 16 // branch: pos, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	bucketHeader   = 16 // root pgid u64, sequence u64

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagFreelist = 0x10
	leafIsBucket = 0x01

	boltMagic   = 0xED0CDAED
	boltVersion = 2
	noFreelist  = ^uint64(0)

	// maxKeySize is bbolt's own limit on a key; a longer one is damage,
	// and reading it could cost as much memory as the file is large.
	maxKeySize = 32768
	// maxTreeDepth bounds the page tree's depth: a B+tree of 2^64 keys
	// is far shallower, so anything deeper is a loop.
	maxTreeDepth = 64
	// wholePageRead is the largest page (with its overflow) read in one
	// piece; a larger one, which holds a few large values, is read
	// element by element and its values are never read.
	wholePageRead = 64 << 10
)

var le = binary.LittleEndian

type meta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	hwm      uint64 // pages in use: every page id is below it
	txid     uint64
}

// parseMeta reads the meta page whose header starts at b[0].
func parseMeta(b []byte) (meta, bool) {
	if len(b) < pageHeaderSize+64 {
		return meta{}, false
	}
	m := b[pageHeaderSize:]
	// bbolt checks only these three, so this must not check more: it
	// must choose the same meta page bbolt will.
	if le.Uint32(m[0:]) != boltMagic || le.Uint32(m[4:]) != boltVersion {
		return meta{}, false
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != le.Uint64(m[56:]) {
		return meta{}, false
	}
	return meta{pageSize: le.Uint32(m[8:]), root: le.Uint64(m[16:]), freelist: le.Uint64(m[32:]), hwm: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, true
}

type checker struct {
	f    *os.File
	size int64
	m    meta
	seen []uint64 // a bit per page below the high-water mark
	// bufs holds one page buffer per tree depth, reused: a branch page's
	// buffer must outlive the walk of its children.
	bufs [][]byte
}

// buf returns a buffer of n bytes for a page read at depth.
func (c *checker) buf(depth int, n int64) []byte {
	for len(c.bufs) <= depth {
		c.bufs = append(c.bufs, nil)
	}
	if int64(cap(c.bufs[depth])) < n {
		c.bufs[depth] = make([]byte, n)
	}
	return c.bufs[depth][:n]
}

func (c *checker) run() error {
	if c.size == 0 {
		return corrupt("the file is empty (0 bytes): it was truncated, since even an empty store has its meta pages")
	}
	if err := c.readMeta(); err != nil {
		return err
	}
	c.seen = make([]uint64, (c.m.hwm+63)/64)
	c.mark(0, 0)
	c.mark(1, 0)
	if err := c.walk(c.m.root, 0); err != nil {
		return err
	}
	return c.checkFreelist()
}

// readMeta finds the meta page bbolt will use: of the two that are
// intact, the one with the higher transaction id.
func (c *checker) readMeta() error {
	var first [4096]byte
	n, err := c.f.ReadAt(first[:], 0)
	if err != nil && err != io.EOF {
		return err
	}
	m0, ok0 := parseMeta(first[:n])
	var m1 meta
	var ok1 bool
	sizes := []uint32{m0.pageSize}
	if !ok0 {
		sizes = sizes[:0]
		for i := range 15 {
			sizes = append(sizes, 1024<<i)
		}
	}
	for _, at := range sizes {
		if int64(at)+pageHeaderSize+64 > c.size {
			break
		}
		var buf [pageHeaderSize + 64]byte
		if _, err := c.f.ReadAt(buf[:], int64(at)); err != nil && err != io.EOF {
			return err
		}
		if m, ok := parseMeta(buf[:]); ok {
			// bbolt then reads the second meta page at the page size
			// it records; one that records another size is not where
			// bbolt will look.
			if m.pageSize != at {
				return corrupt("the two meta pages disagree about the page size")
			}
			m1, ok1 = m, true
			break
		}
	}
	switch {
	case ok0 && ok1 && m1.txid > m0.txid, !ok0 && ok1:
		c.m = m1
	case ok0:
		c.m = m0
	default:
		return corrupt("neither meta page is intact (the file is damaged, or is not a review store)")
	}
	ps := c.m.pageSize
	switch {
	case ps < 512 || ps > 1<<24 || ps&(ps-1) != 0:
		return corrupt("the meta page records an impossible page size %d", ps)
	case c.m.hwm < 3:
		return corrupt("the meta page records %d pages, fewer than any store has", c.m.hwm)
	case c.m.hwm > uint64(c.size)/uint64(ps):
		return corrupt("the file is truncated: %d bytes, but its meta page counts %d pages of %d bytes", c.size, c.m.hwm, ps)
	case c.m.root < 2 || c.m.root >= c.m.hwm:
		return corrupt("the meta page's root page %d is out of range", c.m.root)
	case c.m.freelist != noFreelist && (c.m.freelist < 2 || c.m.freelist >= c.m.hwm):
		return corrupt("the meta page's freelist page %d is out of range", c.m.freelist)
	}
	return nil
}

// mark records that pages id..id+overflow are in use, and fails when one
// of them already was or lies past the high-water mark.
func (c *checker) mark(id uint64, overflow uint32) error {
	end := id + uint64(overflow)
	if end < id || end >= c.m.hwm {
		return corrupt("page %d (+%d overflow) is past the last page %d", id, overflow, c.m.hwm-1)
	}
	for p := id; p <= end; p++ {
		if c.seen[p/64]&(1<<(p%64)) != 0 {
			return corrupt("page %d is used twice", p)
		}
		c.seen[p/64] |= 1 << (p % 64)
	}
	return nil
}

// page is one page with its overflow, read whole, or only its header when
// it is too large to read at once.
type page struct {
	id       uint64
	flags    uint16
	count    int
	overflow uint32
	span     int64  // bytes, header included
	data     []byte // the whole span, or nil
	off      int64  // its offset in the file
}

func (c *checker) readPage(id uint64, depth int) (*page, error) {
	if id >= c.m.hwm {
		return nil, corrupt("a page refers to page %d, past the last page %d", id, c.m.hwm-1)
	}
	off := int64(id) * int64(c.m.pageSize)
	var hdr [pageHeaderSize]byte
	if _, err := c.f.ReadAt(hdr[:], off); err != nil {
		return nil, fmt.Errorf("read page %d: %w", id, err)
	}
	p := &page{id: le.Uint64(hdr[0:]), flags: le.Uint16(hdr[8:]), count: int(le.Uint16(hdr[10:])), overflow: le.Uint32(hdr[12:]), off: off}
	if p.id != id {
		return nil, corrupt("page %d says it is page %d", id, p.id)
	}
	if err := c.mark(id, p.overflow); err != nil {
		return nil, err
	}
	p.span = int64(p.overflow+1) * int64(c.m.pageSize)
	if p.span <= wholePageRead {
		p.data = c.buf(depth, p.span)
		if _, err := c.f.ReadAt(p.data, off); err != nil {
			return nil, fmt.Errorf("read page %d: %w", id, err)
		}
	}
	return p, nil
}

// bytes returns n bytes at offset at within the page, or a corruption
// when they do not lie inside it.
func (c *checker) bytes(p *page, at, n int64) ([]byte, error) {
	if at < 0 || n < 0 || at+n > p.span || at+n < at {
		return nil, corrupt("page %d: an element points outside the page", p.id)
	}
	if p.data != nil {
		return p.data[at : at+n], nil
	}
	b := make([]byte, n)
	if _, err := c.f.ReadAt(b, p.off+at); err != nil {
		return nil, fmt.Errorf("read page %d: %w", p.id, err)
	}
	return b, nil
}

// walk checks the page tree rooted at id.
func (c *checker) walk(id uint64, depth int) error {
	if depth > maxTreeDepth {
		return corrupt("page %d: the page tree is deeper than any real one (a loop)", id)
	}
	p, err := c.readPage(id, depth)
	if err != nil {
		return err
	}
	return c.walkElements(p, depth)
}

// walkElements checks the elements of a branch or leaf page (which may be
// a bucket's inline page, with id 0) and walks what they point to.
func (c *checker) walkElements(p *page, depth int) error {
	// bbolt compares the flags whole, so must this.
	isBranch := p.flags == flagBranch
	if !isBranch && p.flags != flagLeaf {
		return corrupt("page %d is neither a branch nor a leaf page (flags %#x)", p.id, p.flags)
	}
	if isBranch && p.count == 0 {
		return corrupt("page %d: an empty branch page", p.id)
	}
	elems, err := c.bytes(p, pageHeaderSize, int64(p.count)*elementSize)
	if err != nil {
		return err
	}
	var prev []byte
	for i := range p.count {
		e := elems[i*elementSize:]
		at := pageHeaderSize + int64(i)*elementSize
		var key []byte
		if isBranch {
			pos, ksize, child := le.Uint32(e[0:]), le.Uint32(e[4:]), le.Uint64(e[8:])
			if ksize > maxKeySize {
				return corrupt("page %d: a key of %d bytes, more than bbolt allows", p.id, ksize)
			}
			if key, err = c.bytes(p, at+int64(pos), int64(ksize)); err != nil {
				return err
			}
			if err := c.walk(child, depth+1); err != nil {
				return err
			}
		} else {
			flags, pos, ksize, vsize := le.Uint32(e[0:]), le.Uint32(e[4:]), le.Uint32(e[8:]), le.Uint32(e[12:])
			if ksize > maxKeySize {
				return corrupt("page %d: a key of %d bytes, more than bbolt allows", p.id, ksize)
			}
			if key, err = c.bytes(p, at+int64(pos), int64(ksize)); err != nil {
				return err
			}
			valueAt := at + int64(pos) + int64(ksize)
			if flags&leafIsBucket != 0 {
				if err := c.walkBucket(p, valueAt, int64(vsize), depth); err != nil {
					return err
				}
			} else if valueAt+int64(vsize) > p.span {
				return corrupt("page %d: a value runs past the end of its page", p.id)
			}
		}
		if i > 0 && bytes.Compare(prev, key) >= 0 {
			return corrupt("page %d: keys out of order", p.id)
		}
		prev = key
	}
	return nil
}

// walkBucket checks a nested bucket: its header, then its inline page or
// its own page tree.
func (c *checker) walkBucket(p *page, at, n int64, depth int) error {
	if n < bucketHeader {
		return corrupt("page %d: a bucket value is too short", p.id)
	}
	v, err := c.bytes(p, at, n)
	if err != nil {
		return err
	}
	if root := le.Uint64(v); root != 0 {
		return c.walk(root, depth+1)
	}
	inline := v[bucketHeader:]
	if len(inline) < pageHeaderSize {
		return corrupt("page %d: an inline bucket is too short", p.id)
	}
	ip := &page{id: 0, flags: le.Uint16(inline[8:]), count: int(le.Uint16(inline[10:])), span: int64(len(inline)), data: inline}
	if ip.flags != flagLeaf {
		return corrupt("page %d: an inline bucket is not a leaf page", p.id)
	}
	return c.walkElements(ip, depth+1)
}

// checkFreelist checks that every free page is below the high-water mark,
// listed once, and not in use by the tree: bbolt would otherwise hand a
// live page out again and overwrite it.
func (c *checker) checkFreelist() error {
	if c.m.freelist == noFreelist {
		return nil
	}
	p, err := c.readPage(c.m.freelist, 0)
	if err != nil {
		return err
	}
	if p.flags != flagFreelist {
		return corrupt("page %d is not the freelist page the meta page says it is (flags %#x)", p.id, p.flags)
	}
	count, at := int64(p.count), int64(pageHeaderSize)
	if p.count == 0xFFFF { // the real count is the first id slot
		b, err := c.bytes(p, at, 8)
		if err != nil {
			return err
		}
		count, at = int64(le.Uint64(b)), at+8
		if count < 0 || count > p.span/8 {
			return corrupt("page %d: the freelist counts %d pages, more than it can hold", p.id, count)
		}
	}
	ids, err := c.bytes(p, at, count*8)
	if err != nil {
		return err
	}
	for i := range count {
		id := le.Uint64(ids[i*8:])
		if id < 2 {
			return corrupt("the freelist lists meta page %d", id)
		}
		if err := c.mark(id, 0); err != nil {
			return corrupt("the freelist lists page %d, which is past the last page or in use (%v)", id, err)
		}
	}
	return nil
}
