package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

func TestEditOps(t *testing.T) {
	cases := []struct {
		name, in, ops, want string
	}{
		{"replace one line", "a\nb\nc\n", "PUT 2.=2:\n+B", "a\nB\nc\n"},
		{"replace a range with more rows", "a\nb\nc\nd\n", "PUT 2.=3:\n+x\n+y\n+z", "a\nx\ny\nz\nd\n"},
		{"insert before and after", "a\nb\n", "PUT <1:\n+top\nPUT >1:\n+mid", "top\na\nmid\nb\n"},
		{"append at end", "a\n", "PUT >$:\n+z", "a\nz\n"},
		{"cut deletes", "a\nb\nc\n", "CUT 2.=2", "a\nc\n"},
		{"cut and paste moves lines", "a\nb\nc\nd\n", "CUT 1.=2\nPUT >4", "c\nd\na\nb\n"},
		{"line numbers never shift", "1\n2\n3\n4\n5\n", "PUT <2:\n+x\n+y\nPUT 4.=4:\n+four", "1\nx\ny\n2\n3\nfour\n5\n"},
		{"empty line and literal plus", "a\n", "PUT >1:\n+\n++plus\n+-minus", "a\n\n+plus\n-minus\n"},
		{"no final newline is kept", "a\nb", "PUT 2.=2:\n+B", "a\nB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditEnv(t)
			e.write("f.txt", tc.in)
			r := e.edit("f.txt", e.showAll("f.txt"), tc.ops)
			wantOK(t, r)
			wantFile(t, e, "f.txt", tc.want)
			if r.Tag != workspace.Sum(tc.want).Tag() {
				t.Fatalf("result tag %s is not the tag of what landed", r.Tag)
			}
			if !strings.HasPrefix(r.Content, "[f.txt#"+r.Tag+"]") {
				t.Fatalf("content does not start with the new header:\n%s", r.Content)
			}
		})
	}
}

func TestEditResultShowsChangedLinesWithNewNumbers(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", numbered(20))
	r := e.edit("f.txt", e.showAll("f.txt"), "PUT <3:\n+new a\n+new b\nPUT 10.=10:\n+ten")
	wantOK(t, r)
	for _, want := range []string{"\n3:new a\n4:new b", "\n12:ten"} {
		if !strings.Contains(r.Content, want) {
			t.Fatalf("content lacks %q:\n%s", want, r.Content)
		}
	}
	if strings.Contains(r.Content, "line 5") {
		t.Fatalf("content shows unchanged lines:\n%s", r.Content)
	}
	// The next edit uses the result's numbers and tag without a read.
	r2 := e.edit("f.txt", r.Tag, "PUT 12.=12:\n+TEN")
	wantOK(t, r2)
	if !strings.Contains(e.file("f.txt"), "new b\nline 3\n") || !strings.Contains(e.file("f.txt"), "TEN\n") {
		t.Fatalf("second edit landed wrong:\n%s", e.file("f.txt"))
	}
}

func TestEditTagRules(t *testing.T) {
	t.Run("missing or malformed tag", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n")
		for _, tag := range []string{"", "ABC", "ABCDE", "XYZW"} {
			wantCode(t, e.edit("f.txt", tag, "PUT 1.=1:\n+b"), wire.ToolTagRequired)
		}
	})
	t.Run("never minted is unknown even when it hashes the live file", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n")
		r := e.edit("f.txt", workspace.Sum("a\n").Tag(), "PUT 1.=1:\n+b")
		wantCode(t, r, wire.ToolTagUnknown)
		if r.Error.Details.(wire.TagUnknownDetails).LiveTag != workspace.Sum("a\n").Tag() {
			t.Fatalf("details lack the live tag: %#v", r.Error.Details)
		}
		wantFile(t, e, "f.txt", "a\n")
	})
	t.Run("another session's tag authorizes nothing", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n")
		other, _ := e.m.Create("", e.s.State().Workspace)
		tag := e.showIn(other, "f.txt", 1, 1)
		wantCode(t, e.edit("f.txt", tag, "PUT 1.=1:\n+b"), wire.ToolTagUnknown)
	})
	t.Run("lowercase tag is accepted", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n")
		wantOK(t, e.edit("f.txt", strings.ToLower(e.showAll("f.txt")), "PUT 1.=1:\n+b"))
	})
}

// collide finds a text other than base whose tag equals base's.
func collide(t *testing.T, base string) string {
	t.Helper()
	want := workspace.Sum(base).Tag()
	for i := 0; i < 1<<22; i++ {
		cand := fmt.Sprintf("x\ncollision %d\n", i)
		if workspace.Sum(cand).Tag() == want && cand != base {
			return cand
		}
	}
	t.Fatal("no collision found")
	return ""
}

// Peer bug 1: a 16-bit tag collision must never pass for the file read.
func TestEditTagCollisionAuthorizesNothing(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", "a\nb\n")
	tag := e.showAll("f.txt")
	other := collide(t, "a\nb\n")
	e.write("f.txt", other) // an external writer lands content with the same tag
	r := e.edit("f.txt", tag, "PUT 1.=1:\n+CHANGED")
	wantCode(t, r, wire.ToolTagMismatch)
	wantFile(t, e, "f.txt", other)
}

func TestEditProvenance(t *testing.T) {
	t.Run("unseen anchor is refused with a complete reveal that merges", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", numbered(30))
		tag := e.show("f.txt", 1, 10)
		r := e.edit("f.txt", tag, "PUT 20.=21:\n+x")
		wantCode(t, r, wire.ToolLinesUnseen)
		d := r.Error.Details.(wire.LinesUnseenDetails)
		if !d.Merged || len(d.Lines) != 2 {
			t.Fatalf("details %#v", d)
		}
		if !strings.Contains(r.Content, "20:line 20\n21:line 21") {
			t.Fatalf("reveal not in content:\n%s", r.Content)
		}
		wantFile(t, e, "f.txt", numbered(30))
		wantOK(t, e.edit("f.txt", tag, "PUT 20.=21:\n+x"))
	})
	t.Run("interior unseen line of a range is caught", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", numbered(10))
		tag := e.show("f.txt", 1, 4)
		e.show("f.txt", 6, 10) // line 5 never shown
		r := e.edit("f.txt", tag, "PUT 3.=7:\n+x")
		wantCode(t, r, wire.ToolLinesUnseen)
		if rows := r.Error.Details.(wire.LinesUnseenDetails).Lines; len(rows) != 1 || rows[0].Line != 5 {
			t.Fatalf("revealed %v, want line 5 only", rows)
		}
	})
	t.Run("more than 40 unseen lines: truncated reveal merges nothing", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", numbered(100))
		tag := e.show("f.txt", 1, 1)
		r := e.edit("f.txt", tag, "CUT 10.=60")
		wantCode(t, r, wire.ToolLinesUnseen)
		d := r.Error.Details.(wire.LinesUnseenDetails)
		if d.Merged || len(d.Lines) != 40 {
			t.Fatalf("details %#v", d)
		}
		wantCode(t, e.edit("f.txt", tag, "CUT 10.=60"), wire.ToolLinesUnseen)
		wantCode(t, e.edit("f.txt", tag, "CUT 10.=20"), wire.ToolLinesUnseen) // slices of a truncated reveal were never merged
	})
	t.Run("a line over 512 characters is clipped and not merged", func(t *testing.T) {
		e := newEditEnv(t)
		long := strings.Repeat("é", 600)
		e.write("f.txt", "a\n"+long+"\nc\n")
		tag := e.show("f.txt", 1, 1)
		r := e.edit("f.txt", tag, "PUT 2.=2:\n+short")
		wantCode(t, r, wire.ToolLinesUnseen)
		if r.Error.Details.(wire.LinesUnseenDetails).Merged {
			t.Fatal("a clipped reveal was merged")
		}
		wantCode(t, e.edit("f.txt", tag, "PUT 2.=2:\n+short"), wire.ToolLinesUnseen)
	})
	t.Run("an empty seen set rejects every anchor", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\nb\n")
		tag := e.show("f.txt", 1, 0) // as grep filesWithMatches records
		wantCode(t, e.edit("f.txt", tag, "PUT 1.=1:\n+x"), wire.ToolLinesUnseen)
	})
	t.Run("seen is per line and version, not per text: a duplicate line elsewhere is not seen", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "f() {\n}\n"+numbered(40)+"}\n")
		tag := e.show("f.txt", 1, 2)
		wantCode(t, e.edit("f.txt", tag, "PUT 43.=43:\n+};"), wire.ToolLinesUnseen)
	})
	t.Run("head and tail inserts need no seen line", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n")
		tag := e.show("f.txt", 1, 0)
		wantOK(t, e.edit("f.txt", tag, "PUT <1:\n+top\nPUT >$:\n+end"))
		wantFile(t, e, "f.txt", "top\na\nend\n")
	})
}

func TestEditAgedOutProvenance(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", "a\nb\n")
	tag := e.showAll("f.txt")
	e.s.State().Store.Invalidate(filepath.Join(e.root, "f.txt"), "test")
	tag2 := e.showAll("f.txt") // minted again so the ledger knows it...
	if tag2 != tag {
		t.Fatal("tag changed")
	}
	// ...then age the text out by recording 4 newer versions.
	p := filepath.Join(e.root, "f.txt")
	for i := 0; i < e.lim.MaxVersionsPerPath; i++ {
		body := fmt.Sprintf("v%d\n", i)
		e.s.State().Store.Record(p, snapOf(body))
	}
	r := e.edit("f.txt", tag, "PUT 2.=2:\n+B")
	wantOK(t, r)
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "no longer remembered") {
		t.Fatalf("no provenance warning: %v", r.Warnings)
	}
}

func TestEditStaleTag(t *testing.T) {
	t.Run("branch B: only head and tail inserts apply with a drift warning", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\nb\n")
		tag := e.showAll("f.txt")
		e.write("f.txt", "a\nB\nc\n")
		r := e.edit("f.txt", tag, "PUT >$:\n+end")
		wantOK(t, r)
		wantFile(t, e, "f.txt", "a\nB\nc\nend\n")
		if len(r.Warnings) != 1 || !strings.Contains(r.Content, "Warning: ") {
			t.Fatalf("want one drift warning in result and content: %v\n%s", r.Warnings, r.Content)
		}
	})
	t.Run("branch D: an anchor that changed is a mismatch with the live tag and context", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", numbered(10))
		tag := e.showAll("f.txt")
		changed := strings.Replace(numbered(10), "line 5\n", "line FIVE\n", 1)
		e.write("f.txt", changed)
		r := e.edit("f.txt", tag, "PUT 5.=5:\n+x")
		wantCode(t, r, wire.ToolTagMismatch)
		d := r.Error.Details.(wire.TagMismatchDetails)
		if d.LiveTag != workspace.Sum(changed).Tag() {
			t.Fatalf("liveTag %v", d.LiveTag)
		}
		rows := *d.Context
		if len(rows) != 5 || rows[2].Line != 5 || rows[2].Text != "line FIVE" {
			t.Fatalf("context %v", rows)
		}
		if !strings.Contains(r.Error.Message, "offset 3, limit 5") {
			t.Fatalf("message does not name the range to read: %s", r.Error.Message)
		}
		wantFile(t, e, "f.txt", changed)
		// The shown lines count as seen under the live tag; the rest do not.
		live := d.LiveTag
		wantCode(t, e.edit("f.txt", live, "PUT 9.=9:\n+x"), wire.ToolLinesUnseen)
		wantOK(t, e.edit("f.txt", live, "PUT 5.=5:\n+x"))
	})
}

func TestEditErrorsLeaveFileAlone(t *testing.T) {
	cases := []struct{ name, ops, code string }{
		{"parse failure", "PUT 1.=1\n+x", wire.ToolParseFailed},
		{"reversed range", "PUT 2.=1:\n+x", wire.ToolRangeInvalid},
		{"out of bounds", "PUT 9.=9:\n+x", wire.ToolRangeInvalid},
		{"overlap", "PUT 1.=2:\n+x\nCUT 2.=2", wire.ToolRangeInvalid},
		{"no change", "PUT 1.=1:\n+a", wire.ToolNoChange},
		{"block op without grammars", "PUT 1*:\n+x", wire.ToolBlockUnresolved},
		{"paste before any capture", "PUT >1", wire.ToolRegisterEmpty},
		{"second op fails: nothing of the first lands", "PUT 1.=1:\n+ok\nPUT 7.=7:\n+bad", wire.ToolRangeInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditEnv(t)
			e.write("f.txt", "a\nb\nc\n")
			wantCode(t, e.edit("f.txt", e.showAll("f.txt"), tc.ops), tc.code)
			wantFile(t, e, "f.txt", "a\nb\nc\n")
		})
	}
}

func TestEditHeaderMustAgree(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", "a\n")
	e.write("g.txt", "a\n")
	tag := e.showAll("f.txt")
	wantOK(t, e.edit("f.txt", tag, "[f.txt#"+tag+"]\nPUT 1.=1:\n+b"))
	tag = e.showAll("f.txt")
	wantCode(t, e.edit("f.txt", tag, "[g.txt#"+tag+"]\nPUT 1.=1:\n+c"), wire.ToolInvalidArgument)
	wantCode(t, e.edit("f.txt", tag, "[f.txt#0000]\nPUT 1.=1:\n+c"), wire.ToolInvalidArgument)
	wantFile(t, e, "f.txt", "b\n")
}

func TestEditKeepsBOMAndCRLF(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", "\ufeffa\r\nb\r\nc\r\n")
	wantOK(t, e.edit("f.txt", e.showAll("f.txt"), "PUT 2.=2:\n+B\nPUT >$:\n+d"))
	wantFile(t, e, "f.txt", "\ufeffa\r\nB\r\nc\r\nd\r\n")
}

func TestEditRemAndMove(t *testing.T) {
	t.Run("REM deletes and forgets the file", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n")
		tag := e.showAll("f.txt")
		r := e.edit("f.txt", tag, "REM")
		wantOK(t, r)
		if !r.Removed || e.exists("f.txt") {
			t.Fatal("file not removed")
		}
		e.write("f.txt", "a\n")
		wantCode(t, e.edit("f.txt", tag, "PUT 1.=1:\n+b"), wire.ToolTagUnknown)
	})
	t.Run("MV applies the other ops first", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\nb\n")
		e.write("keep.txt", "x\n")
		r := e.edit("f.txt", e.showAll("f.txt"), "PUT 1.=1:\n+A\nMV sub/g.txt")
		wantOK(t, r)
		if e.exists("f.txt") || r.MovedTo != "sub/g.txt" || r.Path != "sub/g.txt" {
			t.Fatalf("moved wrong: %+v", r)
		}
		wantFile(t, e, "sub/g.txt", "A\nb\n")
		wantOK(t, e.edit("sub/g.txt", r.Tag, "PUT 2.=2:\n+B"))
	})
	t.Run("MV onto an existing file changes neither", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n")
		e.write("g.txt", "g\n")
		wantCode(t, e.edit("f.txt", e.showAll("f.txt"), "PUT 1.=1:\n+A\nMV g.txt"), wire.ToolInvalidArgument)
		wantFile(t, e, "f.txt", "a\n")
		wantFile(t, e, "g.txt", "g\n")
	})
	t.Run("MV outside the workspace changes nothing", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n")
		wantCode(t, e.edit("f.txt", e.showAll("f.txt"), "MV ../escaped.txt"), wire.ToolOutsideWorkspace)
		wantFile(t, e, "f.txt", "a\n")
	})
	t.Run("MV into .git is denied", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n")
		wantCode(t, e.edit("f.txt", e.showAll("f.txt"), "MV .git/f.txt"), wire.ToolDenied)
	})
}

func TestEditDeniedPaths(t *testing.T) {
	e := newEditEnv(t)
	e.write(".git/config", "a\n")
	wantCode(t, e.edit(".git/config", e.showAll(".git/config"), "PUT 1.=1:\n+b"), wire.ToolDenied)
	wantFile(t, e, ".git/config", "a\n")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "o.txt"), []byte("o\n"), 0o644)
	os.Symlink(filepath.Join(outside, "o.txt"), filepath.Join(e.root, "link.txt"))
	wantCode(t, e.edit("link.txt", "ABCD", "PUT 1.=1:\n+b"), wire.ToolOutsideWorkspace)
	wantCode(t, e.edit("missing.txt", "ABCD", "PUT 1.=1:\n+b"), wire.ToolNotFound)
	os.Mkdir(filepath.Join(e.root, "dir"), 0o755)
	wantCode(t, e.edit("dir", "ABCD", "PUT 1.=1:\n+b"), wire.ToolNotAFile)
}

func TestEditPathRecovery(t *testing.T) {
	t.Run("a mistyped directory rebinds to the one file read under that name and tag", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("src/app/main.go", "a\n")
		tag := e.showAll("src/app/main.go")
		r := e.edit("src/main.go", tag, "PUT 1.=1:\n+b")
		wantOK(t, r)
		wantFile(t, e, "src/app/main.go", "b\n")
		if e.exists("src/main.go") || r.Path != "src/app/main.go" || !strings.Contains(strings.Join(r.Warnings, " "), "src/app/main.go") {
			t.Fatalf("rebind not reported: %+v", r)
		}
	})
	t.Run("a tie declines", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("a/x.go", "same\n")
		e.write("b/x.go", "same\n")
		tag := e.showAll("a/x.go")
		e.showAll("b/x.go")
		wantCode(t, e.edit("c/x.go", tag, "PUT 1.=1:\n+b"), wire.ToolNotFound)
	})
	t.Run("the basename must match too", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("a/x.go", "a\n")
		tag := e.showAll("a/x.go")
		wantCode(t, e.edit("a/y.go", tag, "PUT 1.=1:\n+b"), wire.ToolNotFound)
	})
	t.Run("a deleted file does not recover onto its own history", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("x.go", "a\n")
		tag := e.showAll("x.go")
		os.Remove(filepath.Join(e.root, "x.go"))
		wantCode(t, e.edit("x.go", tag, "PUT 1.=1:\n+b"), wire.ToolNotFound)
		if e.exists("x.go") {
			t.Fatal("edit created a file")
		}
	})
}

func TestEditRepeatGuard(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", "a\n")
	tag := e.showAll("f.txt")
	for i := 1; i <= 3; i++ {
		r := e.editAs(e.s, "prompt-1", "f.txt", tag, "PUT 1.=1\n+b")
		wantCode(t, r, wire.ToolParseFailed)
		if r.Terminate != (i == 3) {
			t.Fatalf("attempt %d: terminate=%v", i, r.Terminate)
		}
		if i == 3 {
			hint, _ := r.Error.Details.(map[string]any)["recovery"].(string)
			if !strings.Contains(hint, "PUT 48.=48:") {
				t.Fatalf("recovery hint %q does not fix the syntax", hint)
			}
		}
	}
	// Without a prompt id nothing counts.
	for i := 0; i < 5; i++ {
		if r := e.edit("f.txt", tag, "PUT 1.=1\n+b"); r.Terminate {
			t.Fatal("guard counted a call without a prompt id")
		}
	}
}

func TestEditNamedRegistersAcrossFiles(t *testing.T) {
	e := newEditEnv(t)
	e.write("a.go", "keep\nfunc f() {\n}\n")
	e.write("b.go", "package b\n")
	wantOK(t, e.edit("a.go", e.showAll("a.go"), "CUT 2.=3 @fn"))
	os.Remove(filepath.Join(e.root, "a.go")) // a register is content, not a reference
	wantOK(t, e.edit("b.go", e.showAll("b.go"), "PUT >1 @fn"))
	wantFile(t, e, "b.go", "package b\nfunc f() {\n}\n")
	other, _ := e.m.Create("", e.s.State().Workspace)
	tag := e.showIn(other, "b.go", 1, 3)
	r := e.editAs(other, "", "b.go", tag, "PUT >1 @fn")
	wantCode(t, r, wire.ToolRegisterEmpty)
}

// Mutations of one session are serialized: concurrent edits with the same
// tag never both land on the same base.
func TestEditConcurrentSameSession(t *testing.T) {
	e := newEditEnv(t)
	e.write("f.txt", numbered(50))
	tag := e.showAll("f.txt")
	var wg sync.WaitGroup
	results := make([]*wire.EditResult, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.edit("f.txt", tag, fmt.Sprintf("PUT %d.=%d:\n+edited %d", i*5+1, i*5+1, i))
		}()
	}
	wg.Wait()
	got := e.file("f.txt")
	for i, r := range results {
		if r.OK != strings.Contains(got, fmt.Sprintf("edited %d\n", i)) {
			t.Fatalf("edit %d ok=%v but the file disagrees:\n%s", i, r.OK, got)
		}
	}
}

// A huge change is shown up to the output limit, then summarized.
func TestEditResultIsBounded(t *testing.T) {
	e := newEditEnv(t)
	e.lim.MaxResultBytes = 200
	e.x = NewExecutor(Options{Sessions: e.m, Limits: e.lim, Tools: Builtin()})
	e.write("f.txt", "a\n")
	ops := "PUT >1:\n" + strings.Repeat("+a fairly long inserted line of text\n", 50)
	r := e.edit("f.txt", e.showAll("f.txt"), strings.TrimSuffix(ops, "\n"))
	wantOK(t, r)
	if len(r.Content) > 400 || !strings.Contains(r.Content, "are not shown") {
		t.Fatalf("content %d bytes:\n%s", len(r.Content), r.Content)
	}
	if strings.Count(e.file("f.txt"), "\n") != 51 {
		t.Fatal("the edit did not land whole")
	}
}

// A bare MV moves the file's bytes untouched, mixed line endings and all.
func TestEditBareMoveKeepsBytes(t *testing.T) {
	e := newEditEnv(t)
	raw := "\ufeffa\r\nb\nc\r\n"
	e.write("f.txt", raw)
	wantOK(t, e.edit("f.txt", e.showAll("f.txt"), "MV g.txt"))
	wantFile(t, e, "g.txt", raw)
}

// The digest ignores trailing blanks, so "a\n" and "a\n  " share one; for
// a file kept without its text (over the retention bound) the line count
// tells them apart, and the gate does not take one for the other.
func TestEditDigestTwinsAreNotTheSameVersion(t *testing.T) {
	lim := config.DefaultLimits()
	lim.MaxRetainedFileBytes = 4
	e := newEditEnvLimits(t, lim)
	e.write("f.txt", "alpha\n")
	tag := e.showAll("f.txt")
	e.write("f.txt", "alpha\n  ") // same digest, one more line
	r := e.edit("f.txt", tag, "PUT 1.=1:\n+beta")
	wantCode(t, r, wire.ToolTagMismatch)
	wantFile(t, e, "f.txt", "alpha\n  ")
}

// A line longer than the read clip is never shown whole, so no read makes
// it seen: the refusal says only write can change it, not to read it.
func TestEditUnseenLineOverTheReadClip(t *testing.T) {
	lim := config.DefaultLimits()
	long := strings.Repeat("x", lim.MaxLineChars+1)
	t.Run("alone", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n"+long+"\nc\n")
		tag := e.show("f.txt", 1, 1)
		r := e.edit("f.txt", tag, "PUT 2.=2:\n+short")
		wantCode(t, r, wire.ToolLinesUnseen)
		msg := r.Error.Message
		for _, frag := range []string{"line 2 is longer than the 16384 characters read shows of a line", "only write, with the whole new content of f.txt, can change that line"} {
			if !strings.Contains(msg, frag) {
				t.Errorf("message %q lacks %q", msg, frag)
			}
		}
		if strings.Contains(msg, "offset") {
			t.Errorf("message %q advises a read, which clips the line again", msg)
		}
		wantFile(t, e, "f.txt", "a\n"+long+"\nc\n")
	})
	t.Run("beside a line a read can show", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n"+long+"\n"+long[:600]+"\nd\n")
		tag := e.show("f.txt", 1, 1)
		r := e.edit("f.txt", tag, "PUT 2.=3:\n+short")
		wantCode(t, r, wire.ToolLinesUnseen)
		msg := r.Error.Message
		for _, frag := range []string{"line 2 is longer than the 16384 characters", "only write", `Read line 3 with read (path "f.txt", offset 3, limit 1) and retry an edit that leaves line 2 alone`} {
			if !strings.Contains(msg, frag) {
				t.Errorf("message %q lacks %q", msg, frag)
			}
		}
	})
	t.Run("a line within the clip is still to be read (the clip counts characters, not bytes)", func(t *testing.T) {
		e := newEditEnv(t)
		e.write("f.txt", "a\n"+strings.Repeat("é", lim.MaxLineChars)+"\nc\n")
		tag := e.show("f.txt", 1, 1)
		r := e.edit("f.txt", tag, "PUT 2.=2:\n+short")
		wantCode(t, r, wire.ToolLinesUnseen)
		if msg := r.Error.Message; !strings.Contains(msg, `Read them with read (path "f.txt", offset 2, limit 1) and retry`) || strings.Contains(msg, "only write") {
			t.Errorf("message %q", msg)
		}
	})
}
