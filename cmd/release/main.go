// Command release builds hostd's release artifacts from a checkout: for
// each target an archive of hostd, hostctl, LICENSE, README.md,
// CHANGELOG.md, the shell completions and the service files, with an SBOM
// beside it (the Go modules linked in and the C grammars compiled in); a
// SHA256SUMS file over them all; and the npm packages, one per platform
// with its binaries and @hostd/client naming them all as optional
// dependencies. docs/release.md says how it is run and what each artifact
// promises.
//
//	go run ./cmd/release [-snapshot] [-out dist] [-targets linux/amd64,…] [-zig PATH] [-npm=false]
//
// The version is the VERSION file's MAJOR.MINOR.PATCH. A -snapshot build
// appends -snapshot.g<commit>, so that it can never be taken for the
// release; a release build refuses a checkout with uncommitted changes.
// Every file time inside an archive is the commit's time, and the
// binaries are built with -trimpath and an empty build id, so that the same
// commit builds the same bytes (TestReleaseIsReproducible).
//
// Each target's C and C++ compilers are the ones the target table names
// for the machine the command runs on (cross compilers on Linux, clang on
// macOS), or CC_<goos>_<goarch> and CXX_<goos>_<goarch> from the
// environment.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	root     string   // the repository's root
	out      string   // where the artifacts go
	snapshot bool     // a snapshot: the version says so, uncommitted changes are allowed
	targets  []target // what to build
	zig      string   // the zig binary, for the targets whose compiler is zig
	npm      bool     // also build the npm packages
	sign     string   // a command run as `sign GOOS PATH` on every binary before it is packed
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var targets string
	fs.StringVar(&o.root, "root", ".", "the repository's root")
	fs.StringVar(&o.out, "out", "dist", "the directory the artifacts are written to (emptied first)")
	fs.BoolVar(&o.snapshot, "snapshot", false, "build a snapshot: version VERSION-snapshot.g<commit>, uncommitted changes allowed")
	fs.StringVar(&targets, "targets", "", "comma-separated GOOS/GOARCH list (default: every target this machine builds)")
	fs.StringVar(&o.zig, "zig", os.Getenv("ZIG"), "the zig binary, for targets compiled with zig cc (default $ZIG)")
	fs.BoolVar(&o.npm, "npm", true, "also build the npm packages (needs node and npm)")
	fs.StringVar(&o.sign, "sign", "", "a command run as `CMD GOOS PATH` on each binary before it is archived and packed, which signs it in place (codesign, osslsigncode)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q; see -help", fs.Arg(0))
	}
	var err error
	if targets == "" {
		o.targets = hostTargets()
	} else if o.targets, err = parseTargets(targets); err != nil {
		return o, err
	}
	if len(o.targets) == 0 {
		return o, errors.New("this machine builds no release target; name them with -targets")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parseOptions(args, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.root, err = filepath.Abs(o.root); err != nil {
		return err
	}
	if o.out, err = filepath.Abs(o.out); err != nil {
		return err
	}
	src, err := readSource(ctx, o.root, o.snapshot)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "hostd %s from commit %s (%s)\n", src.version, src.commit, src.time.UTC().Format("2006-01-02 15:04:05 UTC"))
	if err := clearOut(o.out, o.root); err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "hostd-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	b := &builder{src: src, root: o.root, out: o.out, work: work, zig: o.zig, sign: o.sign, log: stdout}
	completions, err := b.completions(ctx)
	if err != nil {
		return err
	}
	var built []*build
	for _, t := range o.targets {
		fmt.Fprintf(stdout, "== %s\n", t)
		bd, err := b.build(ctx, t)
		if err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		if err := b.signAll(ctx, bd); err != nil {
			return fmt.Errorf("%s: sign: %w", t, err)
		}
		if err := b.archive(bd, completions); err != nil {
			return fmt.Errorf("%s: archive: %w", t, err)
		}
		if err := b.sbom(ctx, bd); err != nil {
			return fmt.Errorf("%s: sbom: %w", t, err)
		}
		built = append(built, bd)
	}
	if o.npm {
		fmt.Fprintln(stdout, "== npm packages")
		if err := b.npmPackages(ctx, built); err != nil {
			return fmt.Errorf("npm: %w", err)
		}
	}
	sums, err := writeSums(o.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "== %s\n%s", filepath.Join(o.out, sumsFile), sums)
	return nil
}

// clearOut empties the output directory, refusing one that could hold
// anything but an earlier release: the repository, a directory above it,
// or a directory with files but no SHA256SUMS.
func clearOut(out, root string) error {
	if rel, err := filepath.Rel(out, root); err == nil && !strings.HasPrefix(rel, "..") {
		return fmt.Errorf("-out %s holds the repository; name a directory of its own, such as dist", out)
	}
	entries, err := os.ReadDir(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(out, sumsFile)); err != nil {
			return fmt.Errorf("-out %s is not empty and holds no earlier release (no %s); name a new or empty directory", out, sumsFile)
		}
	}
	return os.RemoveAll(out)
}

// signAll runs the -sign command on each of bd's binaries. The SBOM is
// read from the binaries after, and a signature keeps their build
// information.
func (b *builder) signAll(ctx context.Context, bd *build) error {
	if b.sign == "" {
		return nil
	}
	for _, bin := range bd.bins {
		cmd := exec.CommandContext(ctx, b.sign, bd.goos, bin)
		cmd.Stdout, cmd.Stderr = b.log, b.log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s %s: %w", b.sign, bd.goos, bin, err)
		}
	}
	return nil
}

// artifactName is the stem of a target's archive and SBOM:
// hostd_0.1.0_linux_amd64.
func artifactName(version string, t target) string {
	return strings.Join([]string{"hostd", version, t.goos, t.goarch}, "_")
}
