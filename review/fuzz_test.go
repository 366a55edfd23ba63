package review

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

// retentionModel is the reference for eviction: a list of calls, oldest
// first; after each commit, drop the session's oldest other calls until
// the session fits, then the store's oldest until the store fits.
type retentionModel struct {
	lim   config.Limits
	calls []modelCall
}

type modelCall struct {
	session, id string
	entries     int
	bytes       int64
}

func (m *retentionModel) add(c modelCall) {
	m.calls = append(m.calls, c)
	over := func(session string) bool {
		var n int
		var b int64
		for _, k := range m.calls {
			if session == "" || k.session == session {
				n += k.entries
				b += k.bytes
			}
		}
		if session == "" {
			return n > m.lim.MaxReviewEntries || b > m.lim.MaxReviewBytes
		}
		return n > m.lim.MaxReviewEntriesPerSession || b > m.lim.MaxReviewBytesPerSession
	}
	for over(c.session) {
		i := slices.IndexFunc(m.calls, func(k modelCall) bool { return k.session == c.session })
		m.calls = slices.Delete(m.calls, i, i+1)
	}
	for over("") {
		m.calls = m.calls[1:]
	}
}

// FuzzRetention drives the store with commits of random sizes across
// sessions, with restarts, and compares what it keeps with the model.
func FuzzRetention(f *testing.F) {
	f.Add([]byte{0x11, 0x42, 0x03, 0xff, 0x20, 0x81, 0x07, 0x13, 0x56})
	f.Add([]byte{0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01})
	f.Add([]byte{0x7f, 0x3e, 0xc1, 0x00, 0x92, 0xff, 0x5a})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		lim := config.DefaultLimits()
		lim.MaxReviewEntriesPerSession = 5
		lim.MaxReviewEntries = 8
		lim.MaxReviewBytesPerSession = 1200
		lim.MaxReviewBytes = 2000
		dir := t.TempDir()
		s, err := open(dir, lim, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { s.Close() }()
		model := &retentionModel{lim: lim}
		for i, op := range ops {
			if op == 0xff { // restart
				s.Close()
				if s, err = open(dir, lim, nil, true); err != nil {
					t.Fatal(err)
				}
				continue
			}
			session := fmt.Sprintf("s%d", op&3)
			paths := 1 + int(op>>2&1) // one path, or two as an MV
			size := int(op>>3) * 20   // 0..620 before bytes per path
			id := fmt.Sprintf("c%d", i)
			var changes []plannedChange
			for p := range paths {
				changes = append(changes, plannedChange{
					Path: fmt.Sprintf("/w/%s/%d", id, p), Display: fmt.Sprintf("%s/%d", id, p),
					Before: make([]byte, size), BeforeExists: true, After: []byte("x"), AfterExists: true,
				})
			}
			txn, err := s.begin(session, id, "edit", changes)
			if err != nil {
				continue // too large to ever keep: the model never sees it either
			}
			entries, err := txn.commit(nil)
			if err != nil {
				t.Fatal(err)
			}
			var bytes int64
			for j, e := range entries {
				bytes += int64(len(changes[j].Before) + len(e.Diff) + len(changes[j].Path) + len(changes[j].Display))
			}
			model.add(modelCall{session, id, len(entries), bytes})
			checkAgainstModel(t, s, model)
		}
	})
}

func checkAgainstModel(t *testing.T, s *Store, m *retentionModel) {
	t.Helper()
	want := map[string][]string{}
	wantStats := map[string]SessionStats{}
	for _, c := range m.calls {
		for range c.entries {
			want[c.session] = append(want[c.session], c.id)
		}
		u := wantStats[c.session]
		u.Entries += c.entries
		u.Calls++
		u.Bytes += c.bytes
		wantStats[c.session] = u
	}
	for session := range 4 {
		id := fmt.Sprintf("s%d", session)
		entries, err := s.List(id, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.ToolCallID)
		}
		if !slices.Equal(got, want[id]) {
			t.Fatalf("%s keeps calls %v, model %v", id, got, want[id])
		}
	}
	st := s.Stats()
	if !maps.Equal(st.Sessions, wantStats) {
		t.Fatalf("stats %+v, model %+v", st.Sessions, wantStats)
	}
	for id, u := range st.Sessions {
		if u.Entries > m.lim.MaxReviewEntriesPerSession || u.Bytes > m.lim.MaxReviewBytesPerSession {
			t.Fatalf("%s over its bounds: %+v", id, u)
		}
	}
	if st.Entries > m.lim.MaxReviewEntries || st.Bytes > m.lim.MaxReviewBytes {
		t.Fatalf("store over its bounds: %+v", st)
	}
}
