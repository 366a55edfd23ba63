package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// target is one platform hostd is released for.
type target struct {
	goos, goarch string
}

func (t target) String() string { return t.goos + "/" + t.goarch }

// exe is a binary's file name on the target.
func (t target) exe(name string) string {
	if t.goos == "windows" {
		return name + ".exe"
	}
	return name
}

// npmOS and npmCPU are the target as Node.js names it (process.platform,
// process.arch), which npm's os and cpu fields match.
func (t target) npmOS() string {
	if t.goos == "windows" {
		return "win32"
	}
	return t.goos
}

func (t target) npmCPU() string {
	if t.goarch == "amd64" {
		return "x64"
	}
	return t.goarch
}

// releaseTargets are every platform hostd is released for.
var releaseTargets = []target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// compilers names each target's C and C++ compilers on the machine the
// release runs on. The darwin targets link against the macOS SDK, so they
// are built on macOS; the others are cross-compiled on Linux: the linux
// ones by Debian's gcc and its aarch64 cross compiler, windows/amd64 by
// MinGW-w64, windows/arm64 by zig's clang with its MinGW target.
var compilers = map[string]map[target][2]string{
	"linux": {
		{"linux", "amd64"}:   {"gcc", "g++"},
		{"linux", "arm64"}:   {"aarch64-linux-gnu-gcc", "aarch64-linux-gnu-g++"},
		{"windows", "amd64"}: {"x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-g++"},
		{"windows", "arm64"}: {"zig:aarch64-windows-gnu", "zig:aarch64-windows-gnu"},
	},
	"darwin": {
		{"darwin", "amd64"}: {"clang -arch x86_64", "clang++ -arch x86_64"},
		{"darwin", "arm64"}: {"clang -arch arm64", "clang++ -arch arm64"},
	},
}

// hostTargets are the targets this machine builds by default.
func hostTargets() []target {
	var ts []target
	for _, t := range releaseTargets {
		if _, ok := compilers[runtime.GOOS][t]; ok {
			ts = append(ts, t)
		}
	}
	return ts
}

func parseTargets(list string) ([]target, error) {
	var ts []target
	for _, s := range strings.Split(list, ",") {
		goos, goarch, _ := strings.Cut(strings.TrimSpace(s), "/")
		t := target{goos, goarch}
		known := false
		for _, r := range releaseTargets {
			known = known || r == t
		}
		if !known {
			return nil, fmt.Errorf("hostd is not released for %q; the targets are %v", s, releaseTargets)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// builder makes the artifacts of one release.
type builder struct {
	src  source
	root string
	out  string
	work string // scratch space, removed when the release is done
	zig  string
	sign string
	log  io.Writer
}

// build is one target's binaries, built.
type build struct {
	target
	dir  string   // holds the binaries
	bins []string // their paths: hostd, then hostctl
}

// ldflags are the linker flags of every release binary: no symbol table
// or DWARF, an empty Go build id (the rest of the binary is a function of
// the source), and the release version stamped into buildinfo.
func (b *builder) ldflags(t target) string {
	flags := "-s -w -buildid= -X github.com/hostd-dev/hostd/internal/buildinfo.release=" + b.src.version
	if t.goos == "linux" {
		// Static: the binaries run on any Linux of the architecture,
		// whatever its C library (glibc of any age, musl), and hostd's
		// parse workers are the same binary.
		flags += ` -linkmode external -extldflags "-static"`
	}
	return flags
}

// buildEnv is the environment of a target's go build: cgo on (the
// grammars are C), the target's compilers, and nothing of the machine's
// GOFLAGS, so that what is built does not depend on the machine's Go
// settings.
func (b *builder) buildEnv(t target) ([]string, error) {
	cc, cxx, err := b.compilersFor(t)
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(), "CGO_ENABLED=1", "GOOS="+t.goos, "GOARCH="+t.goarch, "CC="+cc, "CXX="+cxx,
		"GOFLAGS=", "GOTOOLCHAIN=local", "GOAMD64=v1", "GOARM64=v8.0")
	return env, nil
}

func (b *builder) compilersFor(t target) (cc, cxx string, err error) {
	key := t.goos + "_" + t.goarch
	cc, cxx = os.Getenv("CC_"+key), os.Getenv("CXX_"+key)
	if cc != "" && cxx != "" {
		return cc, cxx, nil
	}
	pair, ok := compilers[runtime.GOOS][t]
	if !ok {
		return "", "", fmt.Errorf("no C compiler for %s on %s: build it on %s's native runner, or set CC_%s and CXX_%s", t, runtime.GOOS, t.goos, key, key)
	}
	if cc, err = b.compiler(pair[0], "cc"); err != nil {
		return "", "", err
	}
	if cxx, err = b.compiler(pair[1], "c++"); err != nil {
		return "", "", err
	}
	return cc, cxx, nil
}

// compiler turns a compiler table entry into a command for CC or CXX.
// "zig:TRIPLE" becomes a one-line wrapper script around zig cc or zig
// c++ (cgo runs CC as given, and zig's target is a flag of its own).
func (b *builder) compiler(entry, sub string) (string, error) {
	triple, ok := strings.CutPrefix(entry, "zig:")
	if !ok {
		return entry, nil
	}
	if b.zig == "" {
		return "", fmt.Errorf("the %s target compiles with zig: give -zig PATH (or $ZIG)", triple)
	}
	script := filepath.Join(b.work, "zig-"+sub+"-"+triple)
	body := fmt.Sprintf("#!/bin/sh\nexec %q %s -target %s \"$@\"\n", b.zig, sub, triple)
	return script, os.WriteFile(script, []byte(body), 0o755)
}

// build compiles hostd and hostctl for t.
func (b *builder) build(ctx context.Context, t target) (*build, error) {
	env, err := b.buildEnv(t)
	if err != nil {
		return nil, err
	}
	bd := &build{target: t, dir: filepath.Join(b.work, t.goos+"-"+t.goarch)}
	for _, name := range []string{"hostd", "hostctl"} {
		bin := filepath.Join(bd.dir, t.exe(name))
		args := []string{"build", "-trimpath", "-buildvcs=true", "-ldflags", b.ldflags(t), "-o", bin}
		if t.goos == "linux" {
			// Pure Go user and host lookups: a static binary must not
			// call into glibc's NSS.
			args = append(args, "-tags", "netgo,osusergo")
		}
		args = append(args, "./cmd/"+name)
		if err := b.goCmd(ctx, env, args...); err != nil {
			return nil, err
		}
		bd.bins = append(bd.bins, bin)
	}
	return bd, nil
}

// goCmd runs the go command in the repository, its output shown but for
// the one warning every build of the Lua grammar prints.
func (b *builder) goCmd(ctx context.Context, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = b.root, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if text := quietGrammarWarnings(out.String()); text != "" {
		fmt.Fprint(b.log, text)
	}
	if err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// quietGrammarWarnings drops the Lua grammar's harmless warning (a NUL
// in a string literal) and the lines that point at it.
func quietGrammarWarnings(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		switch {
		case l == "":
		case strings.Contains(l, "null character(s) preserved in literal"),
			strings.Contains(l, "anon_sym_] = "),
			strings.Trim(l, " |^\n") == "",
			strings.Contains(l, "warning generated"),
			strings.HasPrefix(l, "# github.com/smacker/go-tree-sitter/lua"):
		default:
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// completions are hostctl's shell completion scripts, made by a hostctl
// built for this machine: the scripts are the same on every platform.
func (b *builder) completions(ctx context.Context) (map[string][]byte, error) {
	hostctl := filepath.Join(b.work, "host", "hostctl")
	env := append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=0")
	if err := b.goCmd(ctx, env, "build", "-o", hostctl, "./cmd/hostctl"); err != nil {
		return nil, err
	}
	files := map[string]string{"bash": "completions/hostctl.bash", "zsh": "completions/_hostctl", "fish": "completions/hostctl.fish"}
	out := make(map[string][]byte)
	for shell, name := range files {
		script, err := exec.CommandContext(ctx, hostctl, "completion", shell).Output()
		if err != nil {
			return nil, fmt.Errorf("hostctl completion %s: %w", shell, err)
		}
		out[name] = script
	}
	return out, nil
}
