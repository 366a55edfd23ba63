package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/text/unicode/norm"
)

// Stored names (edit-contract §13.8). On a filesystem that folds letter
// case (APFS and NTFS by default, exFAT, FAT, ext4 with casefold) or
// Unicode normalization (APFS, HFS+), many spellings open one file:
// Foo.go and foo.go, café in composed and in decomposed form. The
// canonical path of a file, the key of its snapshots, its file lock and
// its review entries, is therefore the name as its directory stores it,
// found here; a write through any spelling then replaces the stored name,
// so the file keeps its name and its case.
//
// Finding the stored name needs the directory's listing, which is not
// free; a directory that tells the spellings apart (every directory on
// the case-sensitive filesystems of Linux) must not pay for it. So each
// directory is probed once for each way it might fold (one Lstat of the
// name spelled another way) and the answer is remembered (namer.folds).
//
// Windows needs none of this: filepath.EvalSymlinks there already returns
// each element as stored (FindFirstFile), with 8.3 short names turned
// into long ones.
const foldByListing = runtime.GOOS != "windows"

// folding records what one directory is known to fold.
type folding uint8

const (
	caseKnown folding = 1 << iota // caseFolds holds the answer
	caseFolds                     // Foo and foo open one entry
	normKnown                     // normFolds holds the answer
	normFolds                     // the composed and decomposed forms of a name open one entry
)

// dirFoldsSize bounds namer.folds: past it the least recently used
// directory is forgotten and probed again when next met. Each entry is a
// directory path and a byte.
const dirFoldsSize = 4096

// namer finds stored names. It is safe for concurrent use.
type namer struct {
	fs nameFS
	// folds remembers, per canonical directory path, what the directory
	// folds. It holds at most dirFoldsSize entries and locks itself. Two
	// callers probing one directory at once find the same answer, so a
	// lost update costs a second probe, never a wrong answer. A directory
	// replaced by one on another filesystem keeps the old answer until it
	// is evicted: a stale "does not fold" only keys that directory's
	// spellings apart, as if folding were not handled, and a stale "folds"
	// only costs a listing.
	folds *lru.Cache[string, folding]
}

func newNamer(fsys nameFS, size int) *namer {
	c, err := lru.New[string, folding](size)
	if err != nil {
		panic(err) // only for a size below one
	}
	return &namer{fs: fsys, folds: c}
}

// names is the daemon's one namer: what a directory folds is a property
// of the filesystem, the same for every session.
var names = newNamer(osNames{}, dirFoldsSize)

// storedPath is names.storedPath where names need finding (not on
// Windows).
func storedPath(p string) string { return storedPathFrom(p, 0) }

// storedPathFrom is storedPath of p whose first from bytes are known to
// be spelled as stored.
func storedPathFrom(p string, from int) string {
	if !foldByListing {
		return p
	}
	return names.storedPathFrom(p, from)
}

// storedName is names.storedName where names need finding.
func storedName(dir, name string) string {
	if !foldByListing {
		return name
	}
	return names.storedName(dir, name)
}

// nameFS is what finding stored names needs of the filesystem, by path.
type nameFS interface {
	// exists reports whether name opens an entry of dir; ok is false when
	// that cannot be found out.
	exists(dir, name string) (found, ok bool)
	// list calls fn with each name dir stores until fn returns false.
	list(dir string, fn func(string) bool) error
	// same reports whether names a and b of dir open one file.
	same(dir, a, b string) bool
}

// storedPath returns p, an absolute clean path that exists and holds no
// symbolic link, with each element spelled as its directory stores it.
// An element that cannot be looked up (a directory it may not list) is
// kept as spelled.
func (n *namer) storedPath(p string) string { return n.storedPathFrom(p, 0) }

// storedPathFrom is storedPath of p whose first from bytes (whole
// elements) are known to be spelled as stored.
func (n *namer) storedPathFrom(p string, from int) string {
	// Elements are found in place, so the usual case, where every one is
	// stored as spelled, allocates nothing.
	start := max(len(filepath.VolumeName(p)), from)
	for {
		for start < len(p) && os.IsPathSeparator(p[start]) {
			start++
		}
		end := start
		for end < len(p) && !os.IsPathSeparator(p[end]) {
			end++
		}
		if end == start {
			return p
		}
		dir := p[:start]
		if len(dir) > len(filepath.VolumeName(p))+1 {
			dir = dir[:len(dir)-1] // the separator after it, unless it is the root
		}
		if s := n.storedName(dir, p[start:end]); s != p[start:end] {
			p = p[:start] + s + p[end:]
			end = start + len(s)
		}
		start = end
	}
}

// variants reports in which ways name could be spelled differently:
// caseFolds when it has a letter with another case, normFolds when its
// composed and decomposed forms differ. A name with neither, such as
// 2024-01.1, is stored as spelled wherever it opens. An ASCII name is
// taken to have no other form, although three ASCII characters have
// compatibility twins that compose to them (the Kelvin sign to K, the
// Greek question mark to ";", varia to "`"): a file stored under such a
// twin keeps a key of its own when named in ASCII.
func variants(name string) folding {
	var v folding
	ascii := true
	for _, r := range name {
		if r >= utf8.RuneSelf {
			ascii = false
		}
		if v == 0 && swapCase(r) != r {
			v = caseFolds
		}
	}
	if !ascii && !(norm.NFC.IsNormalString(name) && norm.NFD.IsNormalString(name)) {
		v |= normFolds
	}
	return v
}

func swapCase(r rune) rune {
	switch {
	case unicode.IsUpper(r):
		return unicode.ToLower(r)
	case unicode.IsLower(r):
		return unicode.ToUpper(r)
	}
	return r
}

// probeCase is name with the case swapped of each letter whose swap
// swaps back (a-z, é, ſ... but not the Kelvin sign, whose lower case k
// upper-cases to K): a spelling every filesystem that folds case opens
// as name. It is name itself when there is no such letter.
func probeCase(name string) string {
	return strings.Map(func(r rune) rune {
		if s := swapCase(r); swapCase(s) == r {
			return s
		}
		return r
	}, name)
}

// storedName returns the name as the directory dir stores the entry that
// name opens. The entry must exist.
func (n *namer) storedName(dir, name string) string {
	need := variants(name)
	if need == 0 {
		return name
	}
	// A way of folding that could not be probed is assumed: the listing
	// finds the name as spelled when the directory does not fold.
	f := n.foldsOf(dir, name, need)
	may := need
	if f&caseKnown != 0 && f&caseFolds == 0 {
		may &^= caseFolds
	}
	if f&normKnown != 0 && f&normFolds == 0 {
		may &^= normFolds
	}
	if may == 0 {
		return name
	}
	if s, ok := n.findStored(dir, name, may); ok {
		return s
	}
	return name
}

// foldsOf returns what dir folds, probing it with name for each way in
// need that is not known yet.
func (n *namer) foldsOf(dir, name string, need folding) folding {
	f, _ := n.folds.Get(dir)
	learned := false
	if need&caseFolds != 0 && f&caseKnown == 0 {
		if other := probeCase(name); other != name {
			if folds, ok := n.probe(dir, name, other); ok {
				f |= caseKnown
				if folds {
					f |= caseFolds
				}
				learned = true
			}
		}
	}
	if need&normFolds != 0 && f&normKnown == 0 {
		other := norm.NFD.String(name)
		if other == name {
			other = norm.NFC.String(name)
		}
		if folds, ok := n.probe(dir, name, other); ok {
			f |= normKnown
			if folds {
				f |= normFolds
			}
			learned = true
		}
	}
	if learned {
		n.folds.Add(dir, f)
	}
	return f
}

// probe reports whether dir folds name and other, another spelling of
// it, into one entry: other opens something, and the listing does not
// hold both as two entries. ok is false when that cannot be found out.
func (n *namer) probe(dir, name, other string) (folds, ok bool) {
	if found, ok := n.fs.exists(dir, other); !ok || !found {
		return false, ok
	}
	both := 0
	err := n.fs.list(dir, func(e string) bool {
		if e == name || e == other {
			both++
		}
		return both < 2
	})
	if err != nil {
		return false, false
	}
	return both < 2, true
}

// maxCandidates bounds the entries findStored weighs at once; more than
// one is already a directory holding several spellings of one name.
const maxCandidates = 16

// findStored lists dir for the entry that name opens, given what dir
// folds: the entry spelled exactly so, or else the one equal to it once
// folded. Of several such entries, the one that is the same file as
// name; if none can be told, ok is false.
func (n *namer) findStored(dir, name string, f folding) (string, bool) {
	key := foldKey(name, f)
	var cands []string
	exact := false
	err := n.fs.list(dir, func(e string) bool {
		if e == name {
			exact = true
			return false
		}
		if len(cands) < maxCandidates && foldKey(e, f) == key {
			cands = append(cands, e)
		}
		return true
	})
	switch {
	case exact:
		return name, true
	case err != nil || len(cands) == 0:
		return "", false
	case len(cands) == 1:
		return cands[0], true
	}
	for _, c := range cands {
		if n.fs.same(dir, c, name) {
			return c, true
		}
	}
	return "", false
}

// foldKey is name as a directory that folds f compares it: composed
// (NFC) when it folds normalization, lower case when it folds case.
func foldKey(name string, f folding) string {
	if f&normFolds != 0 {
		name = norm.NFC.String(name)
	}
	if f&caseFolds != 0 {
		name = strings.ToLower(strings.ToUpper(name))
	}
	return name
}

// osNames is nameFS on the operating system's filesystem.
type osNames struct{}

func (osNames) exists(dir, name string) (found, ok bool) {
	_, err := os.Lstat(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, true
	}
	return err == nil, err == nil
}

// list reads the directory in batches, so memory stays bounded however
// many entries it holds.
func (osNames) list(dir string, fn func(string) bool) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(256)
		for _, n := range names {
			if !fn(n) {
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (osNames) same(dir, a, b string) bool {
	ia, err := os.Lstat(filepath.Join(dir, a))
	if err != nil {
		return false
	}
	ib, err := os.Lstat(filepath.Join(dir, b))
	return err == nil && os.SameFile(ia, ib)
}
