// Package testenv is what the tests need from outside the repository: the
// shared corpus beside the checkout and the ripgrep binary. It owns one
// rule: a test that cannot find one of them skips with a message saying
// how to get it, except in CI (CI=true), where it fails, so a CI run cannot
// pass by skipping the tests that need them. It is imported only by tests.
//
// It also gives tests a temporary directory (TempDir) that is removed in a
// way wine supports, so tests of Windows builds run under wine; the one
// harness for tests that need a real process (daemon.go: Binary, Start,
// Daemon.Await, Daemon.Stop), the one wait for a condition nothing
// announces (Poll, Until), and the one flag that rewrites goldens
// (Update, -update).
//
// Skips for other reasons (not Linux, not root, -short, opt-in dumps) are
// not this package's business; docs/testing.md lists every one of them.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// InCI reports whether the environment variable CI is set to a true value
// (true, 1, ...), as CI services and .ci/run set it.
func InCI() bool {
	v, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && v
}

// Missing ends the test for a missing requirement: a skip that says how
// to get it, or under CI a failure.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if InCI() {
		tb.Fatalf("%s (CI=true: a missing requirement fails the test instead of skipping it)", msg)
		return
	}
	tb.Skip(msg)
}

// corpusHint says how to get the shared corpus.
const corpusHint = "clone the shared folder beside the repository as ../shared (so ../shared/corpus exists), see docs/testing.md"

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// ModuleRoot is the directory of the repository's go.mod, found by walking
// up from the test's working directory (its package directory).
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = err
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				rootErr = fmt.Errorf("no go.mod above the working directory")
				return
			}
			dir = parent
		}
	})
	if rootErr != nil {
		tb.Fatalf("finding the module root: %v", rootErr)
	}
	return root
}

// CorpusPath is the path of rel inside the shared corpus (../shared/corpus
// beside the repository), whether or not it exists: for a test or
// benchmark that uses the corpus when it is there and does without it
// otherwise.
func CorpusPath(tb testing.TB, rel string) string {
	tb.Helper()
	return filepath.Join(ModuleRoot(tb), "..", "shared", "corpus", filepath.FromSlash(rel))
}

// Corpus is the path of rel inside the shared corpus, which must exist;
// otherwise the test skips, or fails under CI.
func Corpus(tb testing.TB, rel string) string {
	tb.Helper()
	p := CorpusPath(tb, rel)
	if _, err := os.Stat(p); err != nil {
		Missing(tb, "the shared corpus is missing (%v): %s", err, corpusHint)
	}
	return p
}

// Ripgrep is the path of the rg binary; without it the test skips, or
// fails under CI.
func Ripgrep(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("rg")
	if err != nil {
		Missing(tb, "ripgrep (rg) is not installed: install it (apt-get install ripgrep), see docs/testing.md")
	}
	return p
}

// LanguageServer is the path of a language server's command found on the
// PATH (gopls, typescript-language-server); without it the test skips,
// or fails under CI. .ci/run installs them and puts them on the PATH.
func LanguageServer(tb testing.TB, name string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, "%s is not on the PATH: .ci/run installs the language servers the tests use (gopls with go install, typescript-language-server and typescript with npm) and puts them on the PATH", name)
	}
	return path
}
