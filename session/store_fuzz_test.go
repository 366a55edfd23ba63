package session

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// This file checks Store against a reference model: the rules of
// edit-contract §4 written as plainly as possible, with slices instead of
// an LRU library and maps instead of ranges.

type modelVersion struct {
	tag      string
	digest   workspace.Digest
	text     string
	retained bool
	known    bool
	seen     map[int]bool
}

func (v *modelVersion) same(digest workspace.Digest, text string, retained bool) bool {
	return v.digest == digest && (!v.retained || !retained || v.text == text)
}

type modelPath struct {
	path     string
	versions []*modelVersion // newest first
}

type modelLedger struct {
	path, tag string
	digests   []workspace.Digest
}

type storeModel struct {
	lim      config.Limits
	paths    []*modelPath // coldest first
	ledger   []*modelLedger
	retained int
}

func (m *storeModel) find(path string, touch bool) *modelPath {
	for i, p := range m.paths {
		if p.path == path {
			if touch {
				m.paths = append(slices.Delete(m.paths, i, i+1), p)
			}
			return p
		}
	}
	return nil
}

func (m *storeModel) dropPath(i int) {
	for _, v := range m.paths[i].versions {
		if v.retained {
			m.retained -= len(v.text)
		}
	}
	m.paths = slices.Delete(m.paths, i, i+1)
}

func (m *storeModel) mint(path, tag string, d workspace.Digest) {
	for i, e := range m.ledger {
		if e.path == path && e.tag == tag {
			m.ledger = append(slices.Delete(m.ledger, i, i+1), e)
			if !slices.Contains(e.digests, d) {
				e.digests = append(e.digests, d)
				if len(e.digests) > maxDigestsPerTag {
					e.digests = e.digests[1:]
				}
			}
			return
		}
	}
	m.ledger = append(m.ledger, &modelLedger{path: path, tag: tag, digests: []workspace.Digest{d}})
	if len(m.ledger) > m.lim.MaxLedgerEntries {
		m.ledger = m.ledger[1:]
	}
}

func (m *storeModel) record(path, text string, hasText bool, seen LineSet) string {
	d := workspace.Sum(text)
	v := &modelVersion{tag: d.Tag(), digest: d, known: seen.Known(), seen: map[int]bool{}}
	for _, r := range seen.Ranges() {
		for n := r.From; n <= r.To; n++ {
			v.seen[n] = true
		}
	}
	if hasText && len(text) <= int(m.lim.MaxRetainedFileBytes) {
		v.text, v.retained = text, true
	}
	m.mint(path, v.tag, d)
	p := m.find(path, true)
	if p == nil {
		p = &modelPath{path: path}
		m.paths = append(m.paths, p)
		if len(m.paths) > m.lim.MaxPathsPerSession {
			m.dropPath(0)
		}
	}
	for i, o := range p.versions {
		if o.tag == v.tag && o.same(v.digest, v.text, v.retained) {
			o.known = o.known || v.known
			for n := range v.seen {
				o.seen[n] = true
			}
			p.versions = append([]*modelVersion{o}, slices.Delete(p.versions, i, i+1)...)
			if v.retained && !o.retained {
				o.text, o.retained = v.text, true
				m.retained += len(v.text)
				m.shrink(p)
			}
			return v.tag
		}
	}
	p.versions = append([]*modelVersion{v}, p.versions...)
	if v.retained {
		m.retained += len(v.text)
	}
	for len(p.versions) > m.lim.MaxVersionsPerPath {
		if last := p.versions[len(p.versions)-1]; last.retained {
			m.retained -= len(last.text)
		}
		p.versions = p.versions[:len(p.versions)-1]
	}
	m.shrink(p)
	return v.tag
}

func (m *storeModel) shrink(hot *modelPath) {
	for m.retained > int(m.lim.MaxRetainedBytesPerSession) {
		if m.paths[0] != hot {
			m.dropPath(0)
			continue
		}
		if len(hot.versions) <= 1 {
			return
		}
		if last := hot.versions[len(hot.versions)-1]; last.retained {
			m.retained -= len(last.text)
		}
		hot.versions = hot.versions[:len(hot.versions)-1]
	}
}

func (m *storeModel) match(path, tag, live string) *modelVersion {
	p := m.find(path, true)
	if p == nil {
		return nil
	}
	d := workspace.Sum(live)
	for _, v := range p.versions {
		if v.tag == tag && v.digest == d && (!v.retained || v.text == live) {
			return v
		}
	}
	return nil
}

func (m *storeModel) markSeen(path string, v *modelVersion, from, to int) bool {
	p := m.find(path, true)
	if p == nil {
		return false
	}
	for _, o := range p.versions {
		if o.tag == v.tag && o.same(v.digest, v.text, v.retained) {
			o.known = true
			for n := max(from, 1); n <= to; n++ {
				o.seen[n] = true
			}
			return true
		}
	}
	return false
}

func (m *storeModel) minted(path, tag string, d workspace.Digest) (bool, bool) {
	for i, e := range m.ledger {
		if e.path == path && e.tag == tag {
			m.ledger = append(slices.Delete(m.ledger, i, i+1), e)
			return true, slices.Contains(e.digests, d)
		}
	}
	return false, false
}

func (m *storeModel) invalidate(path string) {
	for i, p := range m.paths {
		if p.path == path {
			m.dropPath(i)
			break
		}
	}
	m.ledger = slices.DeleteFunc(m.ledger, func(e *modelLedger) bool { return e.path == path })
}

// sameVersion compares a store Version with a model version.
func sameVersion(v Version, mv *modelVersion) error {
	if v.Tag != mv.tag || v.Digest != mv.digest || v.Retained != mv.retained || v.Text != mv.text {
		return fmt.Errorf("version %s retained=%v text=%q, model %s retained=%v text=%q", v.Tag, v.Retained, v.Text, mv.tag, mv.retained, mv.text)
	}
	if v.Seen.Known() != mv.known || v.Seen.Len() != len(mv.seen) {
		return fmt.Errorf("version %s seen known=%v len=%d, model known=%v len=%d", v.Tag, v.Seen.Known(), v.Seen.Len(), mv.known, len(mv.seen))
	}
	for n := range mv.seen {
		if !v.Seen.Contains(n) {
			return fmt.Errorf("version %s misses seen line %d", v.Tag, n)
		}
	}
	return nil
}

func (m *storeModel) check(s *Store) error {
	dump := s.Dump()
	if len(dump) != len(m.paths) {
		return fmt.Errorf("%d paths, model %d", len(dump), len(m.paths))
	}
	retained := int64(0)
	for i, pv := range dump {
		mp := m.paths[i]
		if pv.Path != mp.path || len(pv.Versions) != len(mp.versions) {
			return fmt.Errorf("path %d = %s with %d versions, model %s with %d", i, pv.Path, len(pv.Versions), mp.path, len(mp.versions))
		}
		for j, v := range pv.Versions {
			if err := sameVersion(v, mp.versions[j]); err != nil {
				return fmt.Errorf("%s[%d]: %v", pv.Path, j, err)
			}
			if v.Retained {
				retained += int64(len(v.Text))
			}
		}
		if len(pv.Versions) > m.lim.MaxVersionsPerPath {
			return fmt.Errorf("%s holds %d versions", pv.Path, len(pv.Versions))
		}
	}
	st := s.Stats()
	switch {
	case st.RetainedBytes != retained || retained != int64(m.retained):
		return fmt.Errorf("retained: stats %d, versions %d, model %d", st.RetainedBytes, retained, m.retained)
	case st.RetainedBytes > m.lim.MaxRetainedBytesPerSession:
		return fmt.Errorf("retained %d over the bound", st.RetainedBytes)
	case st.Paths > m.lim.MaxPathsPerSession:
		return fmt.Errorf("%d paths over the bound", st.Paths)
	case st.LedgerEntries != len(m.ledger) || st.LedgerEntries > m.lim.MaxLedgerEntries:
		return fmt.Errorf("ledger %d entries, model %d", st.LedgerEntries, len(m.ledger))
	}
	return nil
}

// FuzzStore drives Store and the model with the same random sequence of
// Record / Match / MarkSeen / Minted / Invalidate over a few paths and
// texts under small bounds, and compares every answer and the whole state
// after every step.
func FuzzStore(f *testing.F) {
	x, y := collidingTexts(f)
	texts := []string{
		"", "\n", "a\n", "a", "a  \n", "a\nb\nc\n", x, y,
		"a long text that is over the retention bound\n",
		"another text, also too long to be retained\n",
	}
	lim := config.DefaultLimits()
	lim.MaxPathsPerSession = 3
	lim.MaxVersionsPerPath = 2
	lim.MaxRetainedBytesPerSession = 40
	lim.MaxRetainedFileBytes = 24
	lim.MaxLedgerEntries = 5
	pathNames := []string{"/w/a", "/w/b", "/w/c", "/w/d"}

	f.Add([]byte{0, 0, 6, 1, 0, 0, 7, 1, 1, 0, 6, 6})
	f.Add([]byte{0, 1, 8, 2, 0, 1, 8, 3, 4, 1, 0, 0, 2, 1, 8, 9})
	f.Add([]byte{0, 0, 2, 0, 0, 1, 2, 0, 0, 2, 2, 0, 0, 3, 2, 0, 3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, prog []byte) {
		s := NewStore(lim)
		m := &storeModel{lim: lim}
		for len(prog) >= 4 {
			op, a, b, c := prog[0]%6, prog[1], prog[2], prog[3]
			prog = prog[4:]
			path := pathNames[int(a)%len(pathNames)]
			text := texts[int(b)%len(texts)]
			switch op {
			case 0, 1: // Record; c picks the seen set and whether text is kept
				var seen LineSet
				switch c % 4 {
				case 0:
					seen = Unknown()
				case 1:
					seen = Empty()
				default:
					seen = Span(int(c/4)%5, int(c/4)%5+int(c%3))
				}
				hasText := op == 0 || c&0x80 != 0
				snap := snap(text, seen)
				if !hasText {
					snap.Text, snap.HasText = "", false
				}
				got, want := s.Record(path, snap), m.record(path, text, hasText, seen)
				if got != want {
					t.Fatalf("Record tag %s, model %s", got, want)
				}
			case 2: // Match: tag of one text, live content of another
				live := texts[int(c)%len(texts)]
				tag := workspace.Sum(text).Tag()
				v, ok := s.Match(path, tag, live, workspace.Sum(live))
				mv := m.match(path, tag, live)
				if ok != (mv != nil) {
					t.Fatalf("Match(%s, %s, %q) = %v, model %v", path, tag, live, ok, mv != nil)
				}
				if ok {
					if err := sameVersion(v, mv); err != nil {
						t.Fatalf("Match: %v", err)
					}
				}
			case 3: // MarkSeen of the version a producer would hold for text
				d := workspace.Sum(text)
				retained := len(text) <= int(lim.MaxRetainedFileBytes) && c&1 == 0
				v := Version{Tag: d.Tag(), Digest: d, Retained: retained, Lines: len(workspace.Lines(text))}
				if retained {
					v.Text = text
				}
				from, to := int(c>>1)%6, int(c>>1)%6+int(c>>4)
				if got, want := s.MarkSeen(path, v, Span(from, to)), m.markSeen(path, &modelVersion{tag: v.Tag, digest: d, text: v.Text, retained: retained}, from, to); got != want {
					t.Fatalf("MarkSeen = %v, model %v", got, want)
				}
			case 4: // Minted
				other := texts[int(c)%len(texts)]
				d := workspace.Sum(other)
				tag := workspace.Sum(text).Tag()
				k1, d1 := s.Minted(path, tag, d, len(workspace.Lines(other)))
				k2, d2 := m.minted(path, tag, d)
				if k1 != k2 || d1 != d2 {
					t.Fatalf("Minted(%s, %s) = %v %v, model %v %v", path, tag, k1, d1, k2, d2)
				}
			case 5:
				s.Invalidate(path, "test")
				m.invalidate(path)
			}
			if err := m.check(s); err != nil {
				t.Fatal(err)
			}
		}
	})
}
