// Command hostbench is hostd's one benchmark command. It measures, in one
// run on one machine, what an edit costs the model in tokens (against
// str_replace and the peers' published payloads), how fast hostd's edit
// language is beside the reference implementation (@oh-my-pi/hashline under
// Bun), how the daemon performs end to end over its socket beside a bare
// JSON-RPC echo server, whether the daemon stays inside its memory bounds,
// the figures the packages' own Go benchmarks produce, and what parsing in
// worker processes costs beside the daemon that parsed in its own (built
// from a git ref). It prints a
// table per section and writes docs/benchmarks.md.
//
// Absolute times on shared machines are noisy, so every timing is reported
// as a ratio against a reference measured in the same run, beside the
// absolute numbers. A goal that is not met is reported as not met, with the
// measured ratio; nothing here is tuned to pass.
//
// hostbench is a program, not a test: `go test ./...` runs only its unit
// tests (token counting and table rendering).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostbench:", err)
		os.Exit(1)
	}
}

// options are the command line.
type options struct {
	sections []string // keys of the sections to run, in order
	quick    bool     // fewer iterations: a smoke run, not figures to publish
	out      string   // the markdown file to update; "" writes none
	repo     string   // the module root
	corpus   string   // the shared corpus directory
	benchDir string   // the Node/Bun side (package.json, node_modules)
	base     string   // the git ref the parse section builds the daemon before the workers from
	log      io.Writer
}

// sectionKeys are the sections in the order they run and print.
var sectionKeys = []string{"tokens", "reference", "host", "memory", "gobench", "parse"}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("hostbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		only   = fs.String("sections", strings.Join(sectionKeys, ","), "comma-separated `list` of sections to run: "+strings.Join(sectionKeys, ", "))
		quick  = fs.Bool("quick", false, "run every section with few iterations (a smoke run; figures are marked quick)")
		out    = fs.String("out", "docs/benchmarks.md", "markdown `file` to update, relative to the module root; empty writes none")
		repo   = fs.String("repo", "", "module root `directory` (default: found from the working directory)")
		corpus = fs.String("corpus", "", "shared corpus `directory` (default: <repo>/../shared/corpus)")
		base   = fs.String("base", "main", "git `ref` whose hostd the parse section compares with (the daemon before the parse workers)")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go run ./cmd/hostbench [flags]\n\n"+
			"Runs hostd's benchmarks beside their references and updates docs/benchmarks.md.\n"+
			"Sections: tokens, reference (needs `npm ci` in bench/), host, memory, gobench, parse.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q (see -h)", fs.Arg(0))
	}
	o := options{quick: *quick, out: *out, log: stderr, base: *base}
	for _, s := range strings.Split(*only, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(sectionKeys, s) {
			return options{}, fmt.Errorf("unknown section %q: want some of %s", s, strings.Join(sectionKeys, ", "))
		}
		if !slices.Contains(o.sections, s) {
			o.sections = append(o.sections, s)
		}
	}
	if len(o.sections) == 0 {
		return options{}, errors.New("no section selected")
	}
	var err error
	if o.repo = *repo; o.repo == "" {
		if o.repo, err = findModuleRoot(); err != nil {
			return options{}, err
		}
	}
	if o.repo, err = filepath.Abs(o.repo); err != nil {
		return options{}, err
	}
	if o.corpus = *corpus; o.corpus == "" {
		o.corpus = filepath.Join(filepath.Dir(o.repo), "shared", "corpus")
	}
	o.benchDir = filepath.Join(o.repo, "bench")
	return o, nil
}

// findModuleRoot walks up from the working directory to the go.mod of
// this module.
func findModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/hostd-dev/hostd") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run hostbench from inside the hostd checkout, or pass -repo")
		}
		dir = parent
	}
}

// run measures the selected sections, prints each as it finishes, and
// updates the markdown file with them.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 3 && args[0] == echoCommand {
		return serveEcho(ctx, args[1], args[2])
	}
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	runners := map[string]func(context.Context, options) *Section{
		"tokens":    tokenSection,
		"reference": referenceSection,
		"host":      hostSection,
		"memory":    memorySection,
		"gobench":   goBenchSection,
		"parse":     parseSection,
	}
	start := time.Now()
	machine := machineSection(ctx, o)
	fmt.Fprint(stdout, machine.Text())
	done := []*Section{machine}
	for _, key := range o.sections {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(stderr, "hostbench: %s ...\n", key)
		t0 := time.Now()
		s := runners[key](ctx, o)
		s.Key, s.Quick, s.Elapsed = key, o.quick, time.Since(t0)
		fmt.Fprint(stdout, s.Text())
		done = append(done, s)
	}
	fmt.Fprintf(stdout, "\n%s\n", goalSummary(done))
	fmt.Fprintf(stderr, "hostbench: finished in %s\n", time.Since(start).Round(time.Second))
	if err := ctx.Err(); err != nil {
		return err
	}
	if o.out == "" {
		return nil
	}
	path := o.out
	if !filepath.IsAbs(path) {
		path = filepath.Join(o.repo, path)
	}
	if err := updateMarkdown(path, done); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "hostbench: wrote %s\n", o.out)
	return nil
}
