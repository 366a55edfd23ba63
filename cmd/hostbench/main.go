// Command hostbench is hostd's one benchmark command. It measures, in one
// run on one machine, what an edit costs the model in tokens (against
// str_replace and the peers' published payloads), how fast hostd's edit
// language is beside the reference implementation (@oh-my-pi/hashline under
// Bun), how the daemon performs end to end over its socket beside a bare
// JSON-RPC echo server, whether the daemon stays inside its memory bounds,
// the figures the packages' own Go benchmarks produce, and what parsing in
// worker processes costs beside a daemon that parsed in its own (built
// from a base commit), and how the parse workers are shared between
// sessions (a small block op beside sessions parsing large files), and
// what a warm language server adds to an edit. It
// prints a table per section and, for a full run, writes
// docs/benchmarks.md whole, from that run alone, with the run's record
// beside it (docs/benchmarks.json); a -quick run, or one of some
// -sections, writes a page only where -out says. With -compare it also runs the base
// build's own hostbench, section by section, for a before/after table.
//
// Absolute times on shared machines are noisy, so every timing is reported
// as a ratio against a reference measured in the same run, beside the
// absolute numbers. A goal that is not met is reported as not met, with the
// measured ratio; nothing here is tuned to pass.
//
// hostbench is a program, not a test: `go test ./...` runs only its unit
// tests (token counting, table rendering, and that the committed page is
// what its record renders to). It writes nothing but the page, its record
// and temporary directories it removes.
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
	sections []string   // keys of the sections to run, in order
	quick    bool       // fewer iterations: a smoke run, not figures to publish
	out      string     // the page to write, with its record beside it; "" writes none
	repo     string     // the module root
	corpus   string     // the shared corpus directory
	benchDir string     // the Node/Bun side (package.json, node_modules)
	base     *baseBuild // the build the parse section and -compare measure beside this one
	compare  bool       // run each section with the base's hostbench too
	render   bool       // rewrite the page from its record, measuring nothing
	log      io.Writer
}

// sectionDef registers one section of the dashboard. Adding a section is
// one entry here: its key (what -sections takes), its title, and the
// function that measures it and returns its goals, tables and notes.
type sectionDef struct {
	key   string
	title string
	run   func(context.Context, options) *Section
}

// sectionDefs are the sections in the order they run and print.
var sectionDefs = []sectionDef{
	{"tokens", "Tokens: what an edit costs the model (cl100k_base)", tokenSection},
	{"reference", "Edit language: hostd vs the reference implementation (@oh-my-pi/hashline under Bun)", referenceSection},
	{"host", "The host end to end over its socket", hostSection},
	{"memory", "Memory: sessions under the daemon-wide retained-text bound, and edits with a full review index", memorySection},
	{"gobench", "The packages' own benchmarks: the 1 GiB read, grep vs ripgrep, review overhead, blocks, the edit language", goBenchSection},
	{"parse", "Parsing in worker processes", parseSection},
	{"replay", "Replay of real edits: syntax feedback and reads since a tag", replaySection},
	{"fair", "Parse workers shared between sessions: a small block op beside heavy parsing", fairSection},
	{"langserver", "Language servers: what gopls and typescript-language-server add to an edit", langServerSection},
}

func sectionKeys() []string {
	keys := make([]string, len(sectionDefs))
	for i, d := range sectionDefs {
		keys[i] = d.key
	}
	return keys
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("hostbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keys := strings.Join(sectionKeys(), ", ")
	var (
		only    = fs.String("sections", "", "comma-separated `list` of sections to run (default all): "+keys)
		quick   = fs.Bool("quick", false, "run every section with few iterations: a smoke run, printed only unless -out is given (the page it writes says it is one)")
		out     = fs.String("out", "docs/benchmarks.md", "the page `file` to write, relative to the module root, with its record (.json) beside it; empty writes none. A -quick run, or a run of some -sections, writes only when -out is given")
		repo    = fs.String("repo", "", "module root `directory` (default: found from the working directory)")
		corpus  = fs.String("corpus", "", "shared corpus `directory` (default: <repo>/../shared/corpus)")
		base    = fs.String("base", defaultBase, "git `ref` of the base build: the parse section compares its workers with its daemon, and -compare runs its hostbench")
		compare = fs.Bool("compare", false, "after each section, run the same section with the base build's own hostbench, and add a before/after table of every goal")
		render  = fs.Bool("render", false, "rewrite the page from its record (.json beside it) without measuring anything")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go run ./cmd/hostbench [flags]\n\n"+
			"Runs hostd's benchmarks beside their references and, for a full run (every section,\n"+
			"not -quick), writes docs/benchmarks.md and docs/benchmarks.json from that one run.\n"+
			"Sections: %s.\n\nFlags:\n", keys)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q (see -h)", fs.Arg(0))
	}
	outGiven := false
	fs.Visit(func(f *flag.Flag) { outGiven = outGiven || f.Name == "out" })
	o := options{quick: *quick, out: *out, log: stderr, compare: *compare, render: *render}
	for _, s := range strings.Split(*only, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(sectionKeys(), s) {
			return options{}, fmt.Errorf("unknown section %q: want some of %s", s, keys)
		}
		if !slices.Contains(o.sections, s) {
			o.sections = append(o.sections, s)
		}
	}
	switch {
	case *only == "":
		o.sections = sectionKeys()
	case len(o.sections) == 0:
		return options{}, errors.New("no section selected")
	case len(o.sections) < len(sectionDefs) && !outGiven:
		// The page holds one whole run: a run of some sections does not
		// overwrite it unless asked to write somewhere.
		o.out = ""
	}
	if o.quick && !outGiven {
		// Nor does a smoke run replace the committed figures.
		o.out = ""
	}
	if o.render && o.out == "" {
		return options{}, errors.New("-render needs the page to write (-out)")
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
	if o.corpus, err = filepath.Abs(o.corpus); err != nil {
		return options{}, err
	}
	o.benchDir = filepath.Join(o.repo, "bench")
	o.base = newBaseBuild(*base, o.repo, o.corpus)
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
// writes the page and its record from them.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 3 && args[0] == echoCommand {
		return serveEcho(ctx, args[1], args[2])
	}
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	path := o.out
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(o.repo, path)
	}
	if o.render {
		return renderOnly(path, sectionDefs)
	}
	defer o.base.close()
	start := time.Now()
	machine := startMachine(ctx, o)
	report := &Report{Quick: o.quick}
	var baseRuns []baseRun
	for _, def := range sectionDefs {
		if !slices.Contains(o.sections, def.key) || ctx.Err() != nil {
			continue
		}
		fmt.Fprintf(stderr, "hostbench: %s ...\n", def.key)
		t0 := time.Now()
		s := def.run(ctx, o)
		s.Key, s.Title, s.Elapsed = def.key, def.title, time.Since(t0)
		fmt.Fprint(stdout, s.Text())
		report.Sections = append(report.Sections, s)
		if o.compare && def.key != "parse" && ctx.Err() == nil {
			fmt.Fprintf(stderr, "hostbench: %s with the base's hostbench (%s) ...\n", def.key, o.base.ref)
			goals, err := runBaseSection(ctx, o, def.key)
			baseRuns = append(baseRuns, baseRun{key: def.key, goals: goals, err: err})
		}
	}
	if o.compare {
		report.Compare = compareSection(o.base.ref, report.Sections, baseRuns)
		fmt.Fprint(stdout, report.Compare.Text())
	}
	report.Machine = machine()
	report.Elapsed = time.Since(start)
	fmt.Fprintf(stdout, "\n%s\n", goalSummary(report.Sections))
	fmt.Fprintf(stderr, "hostbench: finished in %s\n", fmtElapsed(report.Elapsed))
	if err := ctx.Err(); err != nil {
		return err
	}
	if path == "" {
		return nil
	}
	if err := writeReport(path, report, sectionDefs); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "hostbench: wrote %s and %s\n", o.out, jsonPath(o.out))
	return nil
}
