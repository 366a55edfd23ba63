package review

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// BenchmarkReviewOverhead sets what review costs beside what an edit costs
// without it, on one 4 KiB file:
//
//	write-alone      the atomic write alone (temp file, fsync, rename, fsync of the directory)
//	review-fsync     Begin + Commit on the real store: the fsynced intent and the fsynced record
//	review-nosync    Begin + Commit on a store that skips fsync: what review costs besides durability
//	edit-review-off  an edit's file work: read, decode, parse and apply one op, encode, Apply on a nil store (atomic write, read back what landed)
//	edit-review-on   the same edit through Apply on the real store, exactly as the edit tool makes its change
//
// cmd/hostbench runs it and reports the ratios; the edit tool's own gates
// (session, tag, provenance) are the same with review on or off and are
// left out.
func BenchmarkReviewOverhead(b *testing.B) {
	before := bytes.Repeat([]byte("func f() int { return 40 + 2 } // padding\n"), 4096/43)
	lim := config.DefaultLimits()
	setup := func(b *testing.B) (path string, c plannedChange) {
		path = filepath.Join(b.TempDir(), "f.go")
		if err := workspace.WriteFile(path, before, 0o644); err != nil {
			b.Fatal(err)
		}
		after := bytes.Replace(before, []byte("40 + 2"), []byte("41 + 1"), 1)
		return path, plannedChange{Path: path, Display: "f.go", Before: before, BeforeExists: true, BeforeMode: 0o644,
			After: after, AfterExists: true, AfterMode: 0o644}
	}
	record := func(b *testing.B, s *Store, c plannedChange, i int) {
		txn, err := s.begin("s1", fmt.Sprint("c", i), "edit", []plannedChange{c})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := txn.commit(map[string][]byte{c.Path: c.After}); err != nil {
			b.Fatal(err)
		}
	}

	b.Run("write-alone", func(b *testing.B) {
		path, c := setup(b)
		b.SetBytes(int64(len(before)))
		for b.Loop() {
			if err := workspace.WriteFile(path, c.After, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("review-fsync", func(b *testing.B) {
		_, c := setup(b)
		s, _ := openTest(b, lim)
		b.SetBytes(int64(len(before)))
		i := 0
		for b.Loop() {
			record(b, s, c, i)
			i++
		}
	})
	b.Run("review-nosync", func(b *testing.B) {
		_, c := setup(b)
		s, err := open(b.TempDir(), lim, zap.NewNop(), true)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		b.SetBytes(int64(len(before)))
		i := 0
		for b.Loop() {
			record(b, s, c, i)
			i++
		}
	})
	for _, on := range []bool{false, true} {
		name := "edit-review-off"
		if on {
			name = "edit-review-on"
		}
		b.Run(name, func(b *testing.B) {
			path, _ := setup(b)
			ws, err := workspace.New(filepath.Dir(path), "", nil)
			if err != nil {
				b.Fatal(err)
			}
			p, err := ws.Resolve("f.go", workspace.Write)
			if err != nil {
				b.Fatal(err)
			}
			var s *Store
			if on {
				s, _ = openTest(b, lim)
			}
			b.SetBytes(int64(len(before)))
			i := 0
			for b.Loop() {
				editOnce(b, s, p, i)
				i++
			}
		})
	}
}

// editOnce is the file work of one edit of line 3, made as the edit tool
// makes it: through Apply, recorded in s when s is not nil.
func editOnce(b *testing.B, s *Store, p workspace.Path, i int) {
	raw, err := os.ReadFile(p.Abs)
	if err != nil {
		b.Fatal(err)
	}
	text, err := workspace.Decode(raw)
	if err != nil {
		b.Fatal(err)
	}
	res, err := hashline.Run(workspace.Lines(text.Body), fmt.Sprintf("PUT 3.=3:\n+func f() int { return %d } // edited\n", i), hashline.Env{})
	if err != nil {
		b.Fatal(err)
	}
	after, _ := text.Encode(workspace.Join(res.Lines, true)) // UTF-8 encodes any text
	call := Call{Session: "s1", ToolCallID: fmt.Sprint("e", i), Tool: "edit", MaxLanded: 1 << 20}
	if _, err := s.Apply(call, []Edit{{Path: p, Before: raw, Existed: true, Mode: 0o644, After: after}}); err != nil {
		b.Fatal(err)
	}
}
