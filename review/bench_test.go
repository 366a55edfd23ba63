package review

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// BenchmarkBeginCommit4KiB is the cost review adds to a small edit: the
// fsynced intent, the diff, and the fsynced record, on the real store.
// The write itself is benchmarked beside it for scale.
func BenchmarkBeginCommit4KiB(b *testing.B) {
	ws := b.TempDir()
	p := filepath.Join(ws, "f.go")
	before := bytes.Repeat([]byte("func f() int { return 40 + 2 } // padding\n"), 4096/43)
	after := bytes.Replace(before, []byte("40 + 2"), []byte("41 + 1"), 1)
	if err := workspace.WriteFile(p, before, 0o644); err != nil {
		b.Fatal(err)
	}
	c := plannedChange{Path: p, Display: "f.go", Before: before, BeforeExists: true, BeforeMode: 0o644,
		After: after, AfterExists: true, AfterMode: 0o644}

	b.Run("review", func(b *testing.B) {
		s, _ := openTest(b, config.DefaultLimits())
		b.SetBytes(int64(len(before)))
		i := 0
		for b.Loop() {
			txn, err := s.begin("s1", fmt.Sprint("c", i), "edit", []plannedChange{c})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := txn.commit(nil); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("write-alone", func(b *testing.B) {
		b.SetBytes(int64(len(before)))
		for b.Loop() {
			if err := workspace.WriteFile(p, after, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOpenCheck is what checking the file costs each start, on a
// store of 2000 entries with 4 KiB before bytes and 64 with 1 MiB: the
// page-tree walk alone (file), and a whole Open, which adds bbolt's open
// and the decode of every entry.
func BenchmarkOpenCheck(b *testing.B) {
	dir, ws := b.TempDir(), b.TempDir()
	lim := config.DefaultLimits()
	s, err := open(dir, lim, nil, true)
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(ws, "f.txt")
	small, large := bytes.Repeat([]byte("x"), 4<<10), bytes.Repeat([]byte("y\n"), 512<<10)
	for i := range 2064 {
		before := small
		if i%32 == 0 {
			before = large
		}
		c := plannedChange{Path: p, Before: before, BeforeExists: true, After: []byte("z\n"), AfterExists: true}
		txn, err := s.begin(fmt.Sprint("s", i%4), fmt.Sprint("c", i), "write", []plannedChange{c})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := txn.commit(nil); err != nil {
			b.Fatal(err)
		}
	}
	st := s.Stats()
	s.Close()
	path := filepath.Join(dir, FileName)
	b.Logf("store: %d entries, %d MiB accounted", st.Entries, st.Bytes>>20)
	b.Run("file", func(b *testing.B) {
		for b.Loop() {
			if err := checkFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			s, err := open(dir, lim, nil, true)
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
}
