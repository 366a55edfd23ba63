package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTB records how a test ended instead of ending it.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Skip(args ...any)                  { f.skipped = args[0].(string) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

func TestMissingSkipsOutsideCI(t *testing.T) {
	t.Setenv("CI", "")
	var f fakeTB
	Missing(&f, "no %s: get it", "thing")
	if f.skipped != "no thing: get it" || f.failed != "" {
		t.Fatalf("skipped %q, failed %q", f.skipped, f.failed)
	}
}

func TestMissingFailsInCI(t *testing.T) {
	for _, v := range []string{"true", "1", "TRUE"} {
		t.Setenv("CI", v)
		var f fakeTB
		Missing(&f, "no thing")
		if f.skipped != "" || !strings.Contains(f.failed, "CI=true") {
			t.Fatalf("CI=%s: skipped %q, failed %q", v, f.skipped, f.failed)
		}
	}
}

func TestCIFalseIsNotCI(t *testing.T) {
	for _, v := range []string{"", "false", "0", "no"} {
		t.Setenv("CI", v)
		if InCI() {
			t.Errorf("CI=%q counted as CI", v)
		}
	}
}

func TestModuleRootHoldsGoMod(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(ModuleRoot(t), "go.mod"))
	if err != nil || !strings.Contains(string(data), "module github.com/hostd-dev/hostd\n") {
		t.Fatalf("go.mod at the module root: %v %.40q", err, data)
	}
}

func TestAMissingCorpusPartSaysHowToGetIt(t *testing.T) {
	t.Setenv("CI", "")
	var f fakeTB
	Corpus(&f, "no-such-part-of-the-corpus")
	if !strings.Contains(f.skipped, "../shared") || f.failed != "" {
		t.Fatalf("skipped %q, failed %q", f.skipped, f.failed)
	}
	t.Setenv("CI", "true")
	f = fakeTB{}
	Corpus(&f, "no-such-part-of-the-corpus")
	if f.skipped != "" || !strings.Contains(f.failed, "../shared") {
		t.Fatalf("under CI: skipped %q, failed %q", f.skipped, f.failed)
	}
}

// OpenUnder counts a descriptor open under a directory while it is open,
// and not after it is closed.
func TestOpenUnderCountsWhatIsOpen(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	before, ok := OpenUnder(os.Getpid(), dir)
	if !ok {
		t.Skip("this system lists no descriptors in /proc")
	}
	f, err := os.Create(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := OpenUnder(os.Getpid(), dir); n != before+1 {
		t.Errorf("with a file open: %d, want %d", n, before+1)
	}
	f.Close()
	if n, _ := OpenUnder(os.Getpid(), dir); n != before {
		t.Errorf("after Close: %d, want %d", n, before)
	}
}
