package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// The same commit builds the same linux archives, byte for byte: the
// release's own ones are built again from a fresh clone of the commit in
// another directory, with an empty build cache (so every C grammar is
// compiled again), and compared. Slow (the grammars, for two
// architectures): it runs with HOSTD_RELEASE_REPRO=1, as .ci/release sets.
func TestReleaseIsReproducible(t *testing.T) {
	dir := releaseDir(t)
	if os.Getenv("HOSTD_RELEASE_REPRO") != "1" {
		t.Skip("HOSTD_RELEASE_REPRO is not 1: .ci/release sets it (the rebuild compiles every grammar again)")
	}
	root := testenv.ModuleRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	src, err := readSource(ctx, root, true)
	if err != nil {
		t.Fatal(err)
	}
	if v := releaseVersion(t, dir); v != src.version {
		t.Fatalf("%s holds %s, not a snapshot of this checkout's commit (%s)", dir, v, src.version)
	}
	if status, _ := git(ctx, root, "status", "--porcelain", "--untracked-files=no"); status != "" {
		t.Fatalf("the checkout has uncommitted changes, which the release's binaries record and a clone lacks:\n%s", status)
	}
	scratch := t.TempDir()
	clone := filepath.Join(scratch, "elsewhere", "hostd")
	if out, err := exec.CommandContext(ctx, "git", "clone", "-q", "--no-hardlinks", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	if out, err := exec.CommandContext(ctx, "git", "-C", clone, "checkout", "-q", src.commit).CombinedOutput(); err != nil {
		t.Fatalf("git checkout: %v\n%s", err, out)
	}
	var linux []target
	for tg := range archives(t, dir) {
		if tg.goos == "linux" {
			linux = append(linux, tg)
		}
	}
	var names []string
	for _, tg := range linux {
		names = append(names, tg.String())
	}
	out := filepath.Join(scratch, "dist")
	cmd := exec.CommandContext(ctx, "go", "run", "./cmd/release", "-snapshot", "-npm=false", "-targets", strings.Join(names, ","), "-out", out)
	cmd.Dir = clone
	cmd.Env = append(os.Environ(), "GOCACHE="+filepath.Join(scratch, "gocache"), "GOFLAGS=")
	if log, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the rebuild: %v\n%s", err, log)
	}
	for _, tg := range linux {
		stem := artifactName(src.version, tg)
		for _, name := range []string{stem + ".tar.gz", stem + ".sbom.cdx.json"} {
			a, errA := os.ReadFile(filepath.Join(dir, name))
			b, errB := os.ReadFile(filepath.Join(out, name))
			if errA != nil || errB != nil {
				t.Fatalf("%s: %v, %v", name, errA, errB)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs when built again (%d and %d bytes)", name, len(a), len(b))
				continue
			}
			sum, _ := sha256File(filepath.Join(out, name))
			t.Logf("%s: the same %d bytes, sha256 %s", name, len(a), sum)
		}
	}
}
