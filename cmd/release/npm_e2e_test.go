package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The npm packages as a runtime gets them: installed into a fresh npm
// project from the release's tarballs, on a PATH with no Go, and driven
// through @hostd/client with no binary named (testdata/npm/tools.mjs); and
// the embedding guide's app (testdata/npm/app.mjs).

// freshProject makes a new npm project and installs @hostd/client into
// it from the release's tarball as npm would on a tg machine (--os,
// --cpu): npm picks the platform package among the client's optional
// dependencies, each pointed by an override at the release's tarball in
// place of the registry (a platform the release did not build is left out
// as an optional dependency npm could not fetch). It returns the
// project's directory.
func freshProject(t *testing.T, dir string, tg target) string {
	t.Helper()
	version := releaseVersion(t, dir)
	proj := t.TempDir()
	overrides := map[string]string{}
	for _, r := range releaseTargets {
		tgz := filepath.Join(dir, "npm", strings.ReplaceAll(strings.TrimPrefix(platformPackage(r), "@"), "/", "-")+"-"+version+".tgz")
		if _, err := os.Stat(tgz); err == nil {
			overrides[platformPackage(r)] = "file:" + tgz
		}
	}
	manifest, err := json.Marshal(map[string]any{"name": "hostd-npm-e2e", "private": true, "type": "module", "overrides": overrides})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "package.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	clientTgz := filepath.Join(dir, "npm", "hostd-client-"+version+".tgz")
	npm(t, proj, "install", "--no-audit", "--no-fund", "--os="+tg.npmOS(), "--cpu="+tg.npmCPU(), clientTgz)
	// npm installed the one platform package that matches, and no other.
	for _, r := range releaseTargets {
		_, err := os.Stat(filepath.Join(proj, "node_modules", filepath.FromSlash(platformPackage(r)), "package.json"))
		if installed := err == nil; installed != (r == tg) {
			t.Errorf("npm install for %s: %s installed %v", tg, platformPackage(r), installed)
		}
	}
	for _, f := range []string{"tools.mjs", "app.mjs"} {
		data, err := os.ReadFile(filepath.Join("testdata", "npm", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return proj
}

func npm(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("npm", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// noGoEnv is this process's environment with HOSTD_BIN unset and every
// PATH directory that holds a go command left out.
func noGoEnv(t *testing.T) []string {
	var path []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "go")); err != nil {
			path = append(path, d)
		}
	}
	env := []string{"PATH=" + strings.Join(path, string(os.PathListSeparator))}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "HOSTD_BIN=") {
			env = append(env, kv)
		}
	}
	probe := exec.Command("sh", "-c", "command -v go || true")
	probe.Env = env
	if out, _ := probe.Output(); len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("go is still on the PATH: %s", out)
	}
	return env
}

// node runs a program of the project and decodes the JSON line it prints.
func node(t *testing.T, proj string, env []string, v any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir, cmd.Env = proj, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	t.Logf("node %s: %s", args[0], out)
	readJSON(t, out, v)
}

// workspace makes a workspace with greet.txt and a state directory.
func workspace(t *testing.T) (ws, state string) {
	ws, state = t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "greet.txt"), []byte("hi\nthere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, state
}

type toolsRun struct {
	Bin        string   `json:"bin"`
	Version    string   `json:"version"`
	Edited     string   `json:"edited"`
	Reviewed   []string `json:"reviewed"`
	RolledBack bool     `json:"rolledBack"`
	After      string   `json:"after"`
}

// runTools installs tg's packages into a fresh project and runs
// tools.mjs there with no Go on the PATH (and extraEnv), then checks that
// spawn found the platform package's hostd and that the edit, the review
// record and the rollback came out as they should.
func runTools(t *testing.T, dir string, tg target, extraEnv ...string) {
	t.Helper()
	proj := freshProject(t, dir, tg)
	ws, state := workspace(t)
	var r toolsRun
	node(t, proj, append(noGoEnv(t), extraEnv...), &r, "tools.mjs", ws, state)
	version := releaseVersion(t, dir)
	wantBin := filepath.Join(proj, "node_modules", filepath.FromSlash(platformPackage(tg)), "bin", "hostd")
	if r.Bin != wantBin || r.Version != version {
		t.Errorf("spawned %s (version %s), want %s (version %s)", r.Bin, r.Version, wantBin, version)
	}
	if r.Edited != "hi\nhello, npm\n" || !slices.Equal(r.Reviewed, []string{"tc-npm-edit"}) || !r.RolledBack || r.After != "hi\nthere\n" {
		t.Errorf("the edit, review and rollback: %+v", r)
	}
}

func TestReleaseNpmInstallServesTools(t *testing.T) {
	dir := releaseDir(t)
	host := target{runtime.GOOS, runtime.GOARCH}
	if _, ok := archives(t, dir)[host]; !ok {
		t.Skipf("the release has no %s build", host)
	}
	runTools(t, dir, host)
}

// The linux/arm64 package, installed as npm installs it on an arm64
// machine, driven by this machine's Node.js; its hostd runs under qemu.
func TestReleaseNpmInstallServesToolsOnLinuxArm64(t *testing.T) {
	dir := releaseDir(t)
	tg := target{"linux", "arm64"}
	if _, ok := archives(t, dir)[tg]; !ok || runtime.GOOS != "linux" {
		t.Skipf("the release has no %s build, or this is not linux", tg)
	}
	if _, ok := runner(t, tg); !ok {
		t.Skip("qemu-user is not registered with binfmt_misc")
	}
	runTools(t, dir, tg, "HOSTD_E2E_ARCH=arm64")
}

// The embedding guide's app: a hostd per window, a killed one restarted
// within its bound and then given up on, the other window unharmed, every
// hostd gone after quit.
func TestReleaseEmbeddingGuideApp(t *testing.T) {
	dir := releaseDir(t)
	host := target{runtime.GOOS, runtime.GOARCH}
	if _, ok := archives(t, dir)[host]; !ok {
		t.Skipf("the release has no %s build", host)
	}
	proj := freshProject(t, dir, host)
	ws, state := workspace(t)
	var r struct {
		Bin   string `json:"bin"`
		Kills []struct {
			PID       int    `json:"pid"`
			Outcome   string `json:"outcome"`
			ReadAfter bool   `json:"readAfter"`
		} `json:"kills"`
		AfterGiveUp       string     `json:"afterGiveUp"`
		OtherWindowRead   bool       `json:"otherWindowRead"`
		OtherWindowExited bool       `json:"otherWindowExited"`
		Restarted         [][]string `json:"restartedSessions"`
	}
	node(t, proj, noGoEnv(t), &r, "app.mjs", ws, state)
	raw, _ := json.Marshal(r)
	if len(r.Kills) != 3 || r.Kills[0].Outcome != "restarted" || !r.Kills[0].ReadAfter || r.Kills[1].Outcome != "restarted" || !r.Kills[1].ReadAfter || r.Kills[2].Outcome != "gave up" {
		t.Errorf("two restarts, then giving up: %s", raw)
	}
	if r.AfterGiveUp != "HostdConnectionError" || !r.OtherWindowRead || !r.OtherWindowExited {
		t.Errorf("after giving up, the other window, quitting: %s", raw)
	}
	if len(r.Restarted) != 2 || !slices.Equal(r.Restarted[0], []string{"window-a"}) {
		t.Errorf("the sessions brought back: %v", r.Restarted)
	}
}
