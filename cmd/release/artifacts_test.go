package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"debug/pe"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// The checks of a release's artifacts, as a user gets them: .ci/release
// builds a snapshot with this command and runs these tests with
// HOSTD_RELEASE_DIR naming its output (docs/release.md).

// releaseDir is the artifacts to check, or skips.
func releaseDir(t *testing.T) string {
	dir := os.Getenv("HOSTD_RELEASE_DIR")
	if dir == "" {
		t.Skip("HOSTD_RELEASE_DIR is not set: .ci/release sets it to a snapshot release to check")
	}
	return dir
}

// archives are the release's archives, by target.
func archives(t *testing.T, dir string) map[target]string {
	t.Helper()
	found := map[target]string{}
	names, _ := filepath.Glob(filepath.Join(dir, "hostd_*"))
	re := regexp.MustCompile(`^hostd_(.+)_([a-z]+)_([a-z0-9]+)\.(tar\.gz|zip)$`)
	for _, n := range names {
		if m := re.FindStringSubmatch(filepath.Base(n)); m != nil {
			found[target{m[2], m[3]}] = n
		}
	}
	if len(found) == 0 {
		t.Fatalf("no archives in %s", dir)
	}
	return found
}

// releaseVersion is the version the archives are named with.
func releaseVersion(t *testing.T, dir string) string {
	for tg, p := range archives(t, dir) {
		stem := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".zip"), ".tar.gz")
		return strings.TrimSuffix(strings.TrimPrefix(stem, "hostd_"), "_"+tg.goos+"_"+tg.goarch)
	}
	return ""
}

func TestReleaseChecksums(t *testing.T) {
	dir := releaseDir(t)
	raw, err := os.ReadFile(filepath.Join(dir, sumsFile))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("line %q is not sha256sum's", line)
		}
		got, err := sha256File(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || got != sum {
			t.Errorf("%s: sum %s, listed %s (%v)", name, got, sum, err)
		}
		listed[name] = true
	}
	for _, p := range archives(t, dir) {
		for _, n := range []string{filepath.Base(p), strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".zip"), ".tar.gz") + ".sbom.cdx.json"} {
			if !listed[n] {
				t.Errorf("%s is not in %s", n, sumsFile)
			}
		}
	}
}

// Every archive holds what the README says a user gets, and its SBOM
// lists the Go modules and the grammars.
func TestReleaseArchiveContents(t *testing.T) {
	dir := releaseDir(t)
	for tg, p := range archives(t, dir) {
		files := archiveFiles(t, p)
		want := []string{tg.exe("hostd"), tg.exe("hostctl"), "LICENSE", "README.md", "CHANGELOG.md",
			"completions/hostctl.bash", "completions/_hostctl", "completions/hostctl.fish"}
		switch tg.goos {
		case "linux":
			want = append(want, "contrib/systemd/hostd.service")
		case "darwin":
			want = append(want, "contrib/launchd/dev.hostd.hostd.plist")
		}
		var got []string
		for n := range files {
			got = append(got, n)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s holds %v, want %v", filepath.Base(p), got, want)
		}
		sbom := strings.TrimSuffix(strings.TrimSuffix(p, ".zip"), ".tar.gz") + ".sbom.cdx.json"
		raw, err := os.ReadFile(sbom)
		if err != nil {
			t.Fatal(err)
		}
		var bom cdxBOM
		readJSON(t, raw, &bom)
		names := map[string]bool{}
		for _, c := range bom.Components {
			names[c.Name] = true
		}
		for _, n := range []string{"go.etcd.io/bbolt", "github.com/smacker/go-tree-sitter", "tree-sitter/tree-sitter-go", "github.com/tree-sitter/tree-sitter-json/bindings/go"} {
			if !names[n] {
				t.Errorf("%s lists no %s", filepath.Base(sbom), n)
			}
		}
		if bom.BOMFormat != "CycloneDX" || bom.Metadata.Component.Version != releaseVersion(t, dir) {
			t.Errorf("%s: %s, version %s", filepath.Base(sbom), bom.BOMFormat, bom.Metadata.Component.Version)
		}
	}
}

// maxGLIBC is the newest glibc a linux release binary may need.
const maxGLIBC = "2.28"

// The linux binaries run on glibc 2.28 and later, or on any C library:
// each needs no glibc symbol newer than maxGLIBC (a static binary needs
// none). The windows binaries need no DLL beside them: every DLL they
// import is one of Windows' own.
func TestReleaseBinariesNeedNothingBesideThem(t *testing.T) {
	dir := releaseDir(t)
	for tg, p := range archives(t, dir) {
		files := archiveFiles(t, p)
		for _, name := range []string{tg.exe("hostd"), tg.exe("hostctl")} {
			data := files[name]
			switch tg.goos {
			case "linux":
				f, err := elf.NewFile(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("%s/%s: %v", tg, name, err)
				}
				newest, libs := glibcNeeds(t, f)
				t.Logf("%s/%s: needs libraries %v, glibc %s", tg, name, libs, cmp(newest, "none (static)"))
				if newest != "" && versionLess(maxGLIBC, newest) {
					t.Errorf("%s/%s needs GLIBC_%s, newer than %s", tg, name, newest, maxGLIBC)
				}
			case "windows":
				f, err := pe.NewFile(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("%s/%s: %v", tg, name, err)
				}
				libs, err := peDLLs(f)
				if err != nil {
					t.Fatal(err)
				}
				if len(libs) == 0 {
					t.Errorf("%s/%s: no imported DLL found; a Windows program imports kernel32.dll at least", tg, name)
				}
				for _, l := range libs {
					if !windowsOwnDLL(l) {
						t.Errorf("%s/%s imports %s, which Windows does not have", tg, name, l)
					}
				}
				t.Logf("%s/%s: imports %v", tg, name, libs)
			}
		}
	}
}

func cmp(s, empty string) string {
	if s == "" {
		return empty
	}
	return s
}

// glibcNeeds is the newest GLIBC_ symbol version f needs, and the shared
// libraries it names.
func glibcNeeds(t *testing.T, f *elf.File) (newest string, libs []string) {
	libs, _ = f.ImportedLibraries()
	syms, err := f.ImportedSymbols()
	if err != nil && len(libs) > 0 {
		t.Fatal(err)
	}
	for _, s := range syms {
		if v, ok := strings.CutPrefix(s.Version, "GLIBC_"); ok && (newest == "" || versionLess(newest, v)) {
			newest = v
		}
	}
	return newest, libs
}

func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// peDLLs lists the DLLs a PE file imports from (debug/pe's
// ImportedLibraries returns none for PE files; its ImportedSymbols names
// each symbol as NAME:DLL).
func peDLLs(f *pe.File) ([]string, error) {
	syms, err := f.ImportedSymbols()
	if err != nil {
		return nil, err
	}
	var dlls []string
	for _, s := range syms {
		if _, dll, ok := strings.Cut(s, ":"); ok && !slices.Contains(dlls, strings.ToLower(dll)) {
			dlls = append(dlls, strings.ToLower(dll))
		}
	}
	slices.Sort(dlls)
	return dlls, nil
}

// windowsOwnDLL reports whether a DLL is part of Windows.
func windowsOwnDLL(name string) bool {
	n := strings.ToLower(name)
	if strings.HasPrefix(n, "api-ms-win-") {
		return true
	}
	switch n {
	case "kernel32.dll", "ntdll.dll", "advapi32.dll", "ws2_32.dll", "winmm.dll", "bcrypt.dll", "bcryptprimitives.dll",
		"userenv.dll", "msvcrt.dll", "ucrtbase.dll", "shell32.dll", "ole32.dll", "user32.dll", "crypt32.dll", "secur32.dll",
		"iphlpapi.dll", "dbghelp.dll", "powrprof.dll", "mswsock.dll", "synchronization.dll":
		return true
	}
	return false
}

// runner is how this machine runs a target's binaries: natively, through
// the kernel's binfmt_misc registration of qemu-user for linux/arm64, or
// under wine for windows. ok is false when it cannot (CI requires it).
func runner(t *testing.T, tg target) (prefix []string, ok bool) {
	switch {
	case tg.goos == runtime.GOOS && tg.goarch == runtime.GOARCH:
		return nil, true
	case tg.goos == "linux" && runtime.GOOS == "linux":
		_, err := os.Stat("/proc/sys/fs/binfmt_misc/qemu-" + map[string]string{"arm64": "aarch64"}[tg.goarch])
		return nil, err == nil
	case tg.goos == "windows" && tg.goarch == "amd64" && runtime.GOOS == "linux":
		_, err := exec.LookPath("wine")
		return []string{"wine"}, err == nil
	}
	return nil, false
}

// Each archive's binaries answer --version with the release's version
// (linux/arm64 under qemu, windows/amd64 under wine; windows/arm64 is not
// run on linux).
func TestReleaseBinariesAnswerVersion(t *testing.T) {
	dir := releaseDir(t)
	version := releaseVersion(t, dir)
	for tg, p := range archives(t, dir) {
		prefix, ok := runner(t, tg)
		if !ok && tg == (target{"windows", "arm64"}) && runtime.GOOS == "linux" {
			// wine runs x86-64 Windows programs only.
			t.Logf("%s: nothing on linux runs it; the native workflow's windows-11-arm runner does", tg)
			continue
		}
		if !ok {
			testenv.Missing(t, "this machine cannot run %s binaries (qemu-user's binfmt_misc registration, wine)", tg)
			continue
		}
		bin := t.TempDir()
		for name, data := range archiveFiles(t, p) {
			if name == tg.exe("hostd") || name == tg.exe("hostctl") {
				if err := os.WriteFile(filepath.Join(bin, name), data, 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, name := range []string{"hostd", "hostctl"} {
			args := append(append([]string{}, prefix...), filepath.Join(bin, tg.exe(name)), "--version")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			out, err := exec.CommandContext(ctx, args[0], args[1:]...).Output()
			cancel()
			line, _, _ := strings.Cut(string(out), "\n")
			want := name + " " + version + ", protocol "
			if name == "hostctl" {
				want = "client  " + want
			}
			// hostctl --version also asks a daemon and exits 3 when none
			// answers; its own line comes first either way.
			if !strings.HasPrefix(line, want) || (err != nil && name == "hostd") {
				t.Errorf("%s %s --version: %q, %v; want %q…", tg, name, line, err, want)
			}
			t.Logf("%s: %s", tg, strings.TrimSpace(line))
		}
	}
}

// The npm packages: one per target built, with os and cpu set and only
// its binaries inside, and @hostd/client naming all six at its version.
func TestReleaseNpmPackages(t *testing.T) {
	dir := releaseDir(t)
	version := releaseVersion(t, dir)
	for tg := range archives(t, dir) {
		name := platformPackage(tg)
		files := tgzFiles(t, filepath.Join(dir, "npm", strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "-")+"-"+version+".tgz"))
		var got []string
		for n := range files {
			got = append(got, n)
		}
		slices.Sort(got)
		want := []string{"package/LICENSE", "package/README.md", "package/bin/" + tg.exe("hostctl"), "package/bin/" + tg.exe("hostd"), "package/package.json"}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s holds %v, want %v", name, got, want)
		}
		var m struct {
			Name, Version string
			OS            []string `json:"os"`
			CPU           []string `json:"cpu"`
		}
		readJSON(t, files["package/package.json"], &m)
		if m.Name != name || m.Version != version || !slices.Equal(m.OS, []string{tg.npmOS()}) || !slices.Equal(m.CPU, []string{tg.npmCPU()}) {
			t.Errorf("%s's package.json: %+v", name, m)
		}
	}
	client := tgzFiles(t, filepath.Join(dir, "npm", "hostd-client-"+version+".tgz"))
	var m struct {
		Version  string
		Optional map[string]string `json:"optionalDependencies"`
	}
	readJSON(t, client["package/package.json"], &m)
	if m.Version != version || len(m.Optional) != len(releaseTargets) {
		t.Errorf("@hostd/client: version %s, optionalDependencies %v", m.Version, m.Optional)
	}
	for _, tg := range releaseTargets {
		if m.Optional[platformPackage(tg)] != version {
			t.Errorf("@hostd/client's optionalDependencies lack %s@%s: %v", platformPackage(tg), version, m.Optional)
		}
	}
	if _, ok := client["package/dist/binary.js"]; !ok {
		t.Errorf("@hostd/client has no dist/binary.js, which resolves the platform package")
	}
}

// tgzFiles lists the regular files of a .tar.gz (a release archive, an
// npm tarball) with their contents, by their names in it.
func tgzFiles(t *testing.T, p string) map[string][]byte {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = data
	}
}
