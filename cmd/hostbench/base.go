package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// defaultBase is the build the parse section compares its workers with,
// and -compare runs beside this checkout: the last commit before the
// round that moved tree-sitter into worker processes, whose daemon parsed
// in its own process.
const defaultBase = "260266a"

// baseBuild is another commit of this repository, built for comparison:
// its tree unpacked once per run (git archive) into a temporary
// directory, beside a link to the shared directory so its tests find
// ../shared/corpus as a checkout does, and its hostd and hostbench built
// from it on first use.
type baseBuild struct {
	ref    string
	repo   string // the checkout the ref is read from
	shared string // the shared directory beside the checkout

	mu       sync.Mutex       // serializes the unpacking and the builds
	dir      string           // the temporary directory; src/ is the tree
	err      error            // the unpacking's failure, kept
	unpacked bool             // src has been tried
	builds   map[string]built // by command name, each built once
}

// built is one command's build: the binary, or why there is none.
type built struct {
	bin string
	err error
}

func newBaseBuild(ref, repo, corpus string) *baseBuild {
	return &baseBuild{ref: ref, repo: repo, shared: filepath.Dir(corpus)}
}

// describe names the base for the machine block: the ref and the commit
// it resolves to.
func (b *baseBuild) describe(ctx context.Context) string {
	commit := firstLine(commandOutput(ctx, b.repo, "git", "rev-parse", "--short", b.ref+"^{commit}"))
	if commit == "" {
		return b.ref + " (not a commit of this checkout)"
	}
	if strings.HasPrefix(commit, b.ref) {
		return commit
	}
	return b.ref + " (" + commit + ")"
}

// parsesInWorkers reports whether the base already has the parse
// workers, which makes the parse section compare workers with workers.
func (b *baseBuild) parsesInWorkers(ctx context.Context) bool {
	for _, file := range []string{"tools/parsepool/workers.go", "tools/blocks/workers.go"} { // the pool's place, then its first
		cmd := exec.CommandContext(ctx, "git", "cat-file", "-e", b.ref+":"+file)
		cmd.Dir = b.repo
		if cmd.Run() == nil {
			return true
		}
	}
	return false
}

// src unpacks the base's tree on first use and returns its module root.
func (b *baseBuild) src(ctx context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.srcLocked(ctx)
}

func (b *baseBuild) srcLocked(ctx context.Context) (string, error) {
	if b.unpacked {
		return filepath.Join(b.dir, "src"), b.err
	}
	b.unpacked = true
	b.dir, b.err = os.MkdirTemp("", "hostbench-base-")
	if b.err != nil {
		return "", b.err
	}
	src := filepath.Join(b.dir, "src")
	if b.err = os.Mkdir(src, 0o755); b.err != nil {
		return "", b.err
	}
	if b.err = os.Symlink(b.shared, filepath.Join(b.dir, "shared")); b.err != nil {
		return "", b.err
	}
	b.err = gitArchive(ctx, b.repo, b.ref, src)
	return src, b.err
}

// hostd builds the base's daemon, once.
func (b *baseBuild) hostd(ctx context.Context) (string, error) { return b.build(ctx, "hostd") }

// hostbench builds the base's own benchmark command, once.
func (b *baseBuild) hostbench(ctx context.Context) (string, error) { return b.build(ctx, "hostbench") }

// build builds the base's ./cmd/<cmdName> on first use and returns that
// build's binary or failure on every later call.
func (b *baseBuild) build(ctx context.Context, cmdName string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.builds[cmdName]
	if !ok {
		r.bin, r.err = b.buildLocked(ctx, cmdName)
		if b.builds == nil {
			b.builds = map[string]built{}
		}
		b.builds[cmdName] = r
	}
	return r.bin, r.err
}

func (b *baseBuild) buildLocked(ctx context.Context, cmdName string) (string, error) {
	src, err := b.srcLocked(ctx)
	if err != nil {
		return "", fmt.Errorf("unpacking %s: %w", b.ref, err)
	}
	bin := filepath.Join(b.dir, cmdName)
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/"+cmdName)
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/%s at %s: %v: %s", cmdName, b.ref, err, lastLines(string(out), 5))
	}
	return bin, nil
}

// shareNodeModules lets the base's bench/ use this checkout's installed
// Bun when both pin the same packages, instead of installing them again.
func (b *baseBuild) shareNodeModules(ctx context.Context, benchDir string) {
	src, err := b.src(ctx)
	if err != nil {
		return
	}
	mine, err1 := os.ReadFile(filepath.Join(benchDir, "package-lock.json"))
	theirs, err2 := os.ReadFile(filepath.Join(src, "bench", "package-lock.json"))
	modules := filepath.Join(benchDir, "node_modules")
	if _, err := os.Stat(modules); err != nil || err1 != nil || err2 != nil || !bytes.Equal(mine, theirs) {
		return
	}
	os.Symlink(modules, filepath.Join(src, "bench", "node_modules")) // absent link: the base installs its own
}

// close removes the unpacked tree and the builds.
func (b *baseBuild) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// gitArchive unpacks ref's tree from the repository into dir.
func gitArchive(ctx context.Context, repo, ref, dir string) error {
	archive := exec.CommandContext(ctx, "git", "archive", "--format=tar", ref)
	archive.Dir = repo
	out, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	archive.Stderr = &stderr
	if err := archive.Start(); err != nil {
		return err
	}
	untarErr := untar(out, dir)
	if untarErr != nil {
		io.Copy(io.Discard, out) // let git finish writing before it is waited for
	}
	if err := archive.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %v: %s", ref, err, strings.TrimSpace(stderr.String()))
	}
	return untarErr
}

// untar unpacks the regular files and directories of a tar stream under
// dir, refusing names that would land outside it.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("git archive: entry %q is outside the tree", h.Name)
		}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
