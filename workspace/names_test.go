package workspace

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// modelFS is a filesystem as the tests picture it: each directory stores
// some names and folds case (upper-casing each letter, as the upcase
// tables of exFAT and NTFS do), Unicode normalization (composing, as
// APFS compares), both or neither. It counts what the namer asks of it.
type modelFS struct {
	mu     sync.Mutex
	dirs   map[string]*modelDir
	lists  map[string]int
	probes int
}

type modelDir struct {
	folds   folding // caseFolds, normFolds
	entries []string
}

func newModelFS() *modelFS {
	return &modelFS{dirs: map[string]*modelDir{}, lists: map[string]int{}}
}

// key is name as dir d compares names; written apart from foldKey, so
// the test does not grade the code by itself.
func (d *modelDir) key(name string) string {
	if d.folds&normFolds != 0 {
		name = norm.NFC.String(name)
	}
	if d.folds&caseFolds != 0 {
		name = strings.Map(func(r rune) rune { return []rune(strings.ToUpper(string(r)))[0] }, name)
	}
	return name
}

// open returns the stored entry name opens in dir.
func (m *modelFS) open(dir, name string) (string, bool) {
	d := m.dirs[dir]
	if d == nil {
		return "", false
	}
	for _, e := range d.entries {
		if e == name {
			return e, true
		}
	}
	for _, e := range d.entries {
		if d.key(e) == d.key(name) {
			return e, true
		}
	}
	return "", false
}

func (m *modelFS) exists(dir, name string) (bool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.probes++
	_, ok := m.open(dir, name)
	return ok, true
}

func (m *modelFS) list(dir string, fn func(string) bool) error {
	m.mu.Lock()
	m.lists[dir]++
	var entries []string
	if d := m.dirs[dir]; d != nil {
		entries = append(entries, d.entries...)
	}
	m.mu.Unlock()
	for _, e := range entries {
		if !fn(e) {
			break
		}
	}
	return nil
}

func (m *modelFS) same(dir, a, b string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	ea, oka := m.open(dir, a)
	eb, okb := m.open(dir, b)
	return oka && okb && ea == eb
}

// add stores name in dir unless dir already has an entry it opens as.
func (m *modelFS) add(dir, name string) bool {
	if _, taken := m.open(dir, name); taken {
		return false
	}
	m.dirs[dir].entries = append(m.dirs[dir].entries, name)
	return true
}

func TestStoredNameOnModelFilesystems(t *testing.T) {
	m := newModelFS()
	m.dirs["/cs"] = &modelDir{}
	m.dirs["/ci"] = &modelDir{folds: caseFolds}
	m.dirs["/ni"] = &modelDir{folds: normFolds}
	m.dirs["/cni"] = &modelDir{folds: caseFolds | normFolds}
	nfc, nfd := "caf\u00e9.go", "cafe\u0301.go"
	for _, dir := range []string{"/cs", "/ci", "/ni", "/cni"} {
		m.add(dir, "Foo.go")
		m.add(dir, nfd)
		m.add(dir, "2024.txt")
		m.add(dir, "\u017fun.txt") // ſun.txt: long s, upper case S
	}
	m.add("/cs", "foo.go") // a case-sensitive directory holds both
	m.add("/cs", nfc)      // and both forms
	tests := []struct{ dir, name, want string }{
		{"/cs", "Foo.go", "Foo.go"},
		{"/cs", "foo.go", "foo.go"},
		{"/cs", nfc, nfc},
		{"/cs", nfd, nfd},
		{"/ci", "foo.go", "Foo.go"},
		{"/ci", "FOO.GO", "Foo.go"},
		{"/ci", "Foo.go", "Foo.go"},
		{"/ci", "SUN.TXT", "\u017fun.txt"},
		{"/ci", "CAFE\u0301.GO", nfd},
		{"/ni", nfc, nfd},
		{"/ni", nfd, nfd},
		{"/cni", "CAF\u00c9.GO", nfd},
		{"/cni", "fOO.gO", "Foo.go"},
		{"/cni", "2024.txt", "2024.txt"},
	}
	n := newNamer(m, 16)
	for _, tt := range tests {
		if got := n.storedName(tt.dir, tt.name); got != tt.want {
			t.Errorf("storedName(%s, %+q) = %+q, want %+q", tt.dir, tt.name, got, tt.want)
		}
	}
}

// A directory that tells spellings apart is probed once per way of
// folding and never listed for the names it holds as spelled: the read
// path of case-sensitive filesystems stays as cheap as before.
func TestCaseSensitiveDirectoryIsProbedOnceAndNeverListed(t *testing.T) {
	m := newModelFS()
	m.dirs["/src"] = &modelDir{}
	for i := range 50 {
		m.add("/src", fmt.Sprintf("File%d.go", i))
	}
	n := newNamer(m, 16)
	for range 3 {
		for i := range 50 {
			name := fmt.Sprintf("File%d.go", i)
			if got := n.storedName("/src", name); got != name {
				t.Fatalf("storedName(%s) = %s", name, got)
			}
		}
	}
	if m.probes != 1 || m.lists["/src"] != 0 {
		t.Fatalf("%d probes and %d listings for 150 lookups in one case-sensitive directory, want 1 and 0", m.probes, m.lists["/src"])
	}
	// A name with no letter to fold is not even probed.
	m.dirs["/n"] = &modelDir{entries: []string{"2024-01.1"}}
	n.storedName("/n", "2024-01.1")
	if m.probes != 1 {
		t.Fatalf("a name without letters was probed")
	}
}

// The cache holds at most its bound: past it a directory is probed again,
// and answers stay right.
func TestDirFoldsIsBounded(t *testing.T) {
	m := newModelFS()
	const dirs, size = 40, 8
	for i := range dirs {
		d := &modelDir{}
		if i%2 == 0 {
			d.folds = caseFolds
		}
		m.dirs[fmt.Sprintf("/d%d", i)] = d
		m.add(fmt.Sprintf("/d%d", i), "Name.txt")
	}
	n := newNamer(m, size)
	for round := range 2 {
		for i := range dirs {
			dir := fmt.Sprintf("/d%d", i)
			want := "name.txt"
			if i%2 == 0 {
				want = "Name.txt"
			}
			found, _ := m.exists(dir, "name.txt")
			if got := n.storedName(dir, "name.txt"); found && got != want {
				t.Fatalf("round %d: storedName(%s, name.txt) = %s, want %s", round, dir, got, want)
			}
			if n.folds.Len() > size {
				t.Fatalf("the cache holds %d directories, over its bound %d", n.folds.Len(), size)
			}
		}
	}
}

// The namer against the model on random directories and spellings: every
// spelling that opens an entry resolves to the entry's stored name,
// whatever the directory folds and in whatever order the names come.
func TestStoredNameAgreesWithModel(t *testing.T) {
	// Not the Kelvin sign: it is K once composed, and an ASCII name is
	// taken to have no other form (variants).
	runes := []string{"a", "A", "b", "B", "s", "S", "\u017f", "k", "K", "\u00e9", "e\u0301", "\u00c9", "E\u0301", "1", ".", "\u65e5", "i", "I", "\u0130", "\u0131"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(runes[rng.IntN(len(runes))])
		}
		return b.String()
	}
	for trial := range 300 {
		m := newModelFS()
		dirs := []string{"/cs", "/ci", "/ni", "/cni"}
		for i, f := range []folding{0, caseFolds, normFolds, caseFolds | normFolds} {
			m.dirs[dirs[i]] = &modelDir{folds: f}
			for range 1 + rng.IntN(8) {
				m.add(dirs[i], word())
			}
		}
		n := newNamer(m, 1+rng.IntN(4))
		for range 40 {
			dir := dirs[rng.IntN(len(dirs))]
			name := word()
			want, ok := m.open(dir, name)
			if !ok {
				continue
			}
			if got := n.storedName(dir, name); got != want {
				t.Fatalf("trial %d: storedName(%s, %+q) = %+q, want %+q (entries %+q)", trial, dir, name, got, want, m.dirs[dir].entries)
			}
		}
	}
}

func TestStoredPathKeepsAPathStoredAsSpelled(t *testing.T) {
	m := newModelFS()
	m.dirs["/"] = &modelDir{entries: []string{"Work"}}
	m.dirs["/Work"] = &modelDir{folds: caseFolds, entries: []string{"Src"}}
	m.dirs["/Work/Src"] = &modelDir{folds: caseFolds, entries: []string{"Main.go"}}
	n := newNamer(m, 16)
	if got := n.storedPath("/Work/src/MAIN.GO"); got != "/Work/Src/Main.go" {
		t.Fatalf("storedPath = %s", got)
	}
	if got := n.storedPath("/Work/Src/Main.go"); got != "/Work/Src/Main.go" {
		t.Fatalf("storedPath = %s", got)
	}
	// The root folds nothing here: /work is not /Work.
	if got := n.storedPath("/"); got != "/" {
		t.Fatalf("storedPath(/) = %s", got)
	}
	// A prefix known to be stored (a workspace root) is not looked up.
	m.dirs["/"].folds = caseFolds
	n = newNamer(m, 16)
	clear(m.lists)
	if got := n.storedPathFrom("/Work/src/main.go", len("/Work")); got != "/Work/Src/Main.go" {
		t.Fatalf("storedPathFrom = %s", got)
	}
	if m.lists["/"] != 0 || m.lists["/Work"] == 0 {
		t.Fatalf("listings %v: the known prefix was listed, or the rest was not", m.lists)
	}
}
