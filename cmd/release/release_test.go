package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestVersionIsARelease(t *testing.T) {
	v, err := readVersion("../..")
	if err != nil {
		t.Fatal(err)
	}
	changelog, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^## \[?` + regexp.QuoteMeta(v) + `\]?( |$)`).Match(changelog) {
		t.Errorf("CHANGELOG.md has no section \"## %s\" for the VERSION file's release", v)
	}
	for _, bad := range []string{"v0.1.0", "0.1", "01.2.3", "1.2.3-rc1", ""} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "VERSION"), []byte(bad+"\n"), 0o644)
		if _, err := readVersion(dir); err == nil || !strings.Contains(err.Error(), "MAJOR.MINOR.PATCH") {
			t.Errorf("VERSION %q: err %v, want one naming MAJOR.MINOR.PATCH", bad, err)
		}
	}
}

func TestParseTargetsKnowsOnlyReleaseTargets(t *testing.T) {
	ts, err := parseTargets("linux/amd64, windows/arm64")
	if err != nil || len(ts) != 2 || ts[1] != (target{"windows", "arm64"}) {
		t.Fatalf("parseTargets = %v, %v", ts, err)
	}
	if _, err := parseTargets("plan9/386"); err == nil || !strings.Contains(err.Error(), "not released for") {
		t.Errorf("plan9/386: %v", err)
	}
	for _, tc := range []struct {
		t        target
		pkg, exe string
	}{
		{target{"linux", "amd64"}, "@hostd/hostd-linux-x64", "hostd"},
		{target{"darwin", "arm64"}, "@hostd/hostd-darwin-arm64", "hostd"},
		{target{"windows", "amd64"}, "@hostd/hostd-win32-x64", "hostd.exe"},
	} {
		if got := platformPackage(tc.t); got != tc.pkg {
			t.Errorf("%s: package %s, want %s", tc.t, got, tc.pkg)
		}
		if got := tc.t.exe("hostd"); got != tc.exe {
			t.Errorf("%s: exe %s, want %s", tc.t, got, tc.exe)
		}
	}
}

// setFields changes the fields it is given and keeps the others where
// they were.
func TestSetFieldsKeepsTheOrder(t *testing.T) {
	in := []byte(`{"name": "@hostd/client", "version": "0.1.0", "scripts": {"b": "x", "a": "y"}}`)
	out, err := setFields(in, map[string]any{"version": "0.2.0", "optionalDependencies": map[string]string{"p": "0.2.0"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"name\": \"@hostd/client\",\n  \"version\": \"0.2.0\",\n  \"scripts\": {\n    \"b\": \"x\",\n    \"a\": \"y\"\n  },\n  \"optionalDependencies\": {\n    \"p\": \"0.2.0\"\n  }\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// An archive is a function of its files and the commit time: written
// twice it is the same bytes, and every header is the machine-free one.
func TestArchivesAreAFunctionOfTheirFiles(t *testing.T) {
	es := []entry{{"hostd", 0o755, []byte("bin")}, {"completions/hostctl.bash", 0o644, []byte("complete")}}
	mtime := time.Unix(1765000000, 0).UTC()
	for _, w := range []struct {
		name  string
		write func(io.Writer, string, []entry, time.Time) error
	}{{"tar.gz", writeTarGz}, {"zip", writeZip}} {
		var a, b bytes.Buffer
		if err := w.write(&a, "top", es, mtime); err != nil {
			t.Fatal(err)
		}
		if err := w.write(&b, "top", es, mtime); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two writes differ", w.name)
		}
	}
	var buf bytes.Buffer
	writeTarGz(&buf, "top", es, mtime)
	gz, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("gzip header carries %v %q", gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if !h.ModTime.Equal(mtime) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: header %+v", h.Name, h)
		}
	}
	if got := strings.Join(names, " "); got != "top/ top/hostd top/completions/ top/completions/hostctl.bash" {
		t.Errorf("entries %s", got)
	}
}

// archiveFiles lists an archive's regular files with their contents,
// relative to its top directory.
func archiveFiles(t *testing.T, p string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	strip := func(name string) string {
		_, rest, _ := strings.Cut(name, "/")
		return rest
	}
	if strings.HasSuffix(p, ".zip") {
		zr, err := zip.OpenReader(p)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			files[strip(f.Name)] = data
		}
		return files
	}
	for name, data := range tgzFiles(t, p) {
		files[strip(name)] = data
	}
	return files
}

func readJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
}

// The output directory is emptied only when it holds nothing or an
// earlier release: never the repository or a directory of other files.
func TestClearOutEmptiesOnlyAnEarlierRelease(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	os.MkdirAll(repo, 0o755)
	for _, out := range []string{repo, root} {
		if err := clearOut(out, repo); err == nil || !strings.Contains(err.Error(), "holds the repository") {
			t.Errorf("-out %s: %v", out, err)
		}
	}
	other := filepath.Join(root, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if err := clearOut(other, repo); err == nil || !strings.Contains(err.Error(), "holds no earlier release") {
		t.Errorf("a directory of other files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); err != nil {
		t.Errorf("the refused directory lost its file: %v", err)
	}
	earlier := filepath.Join(root, "dist")
	os.MkdirAll(earlier, 0o755)
	os.WriteFile(filepath.Join(earlier, sumsFile), nil, 0o644)
	if err := clearOut(earlier, repo); err != nil {
		t.Errorf("an earlier release: %v", err)
	}
	if _, err := os.Stat(earlier); !os.IsNotExist(err) {
		t.Errorf("the earlier release is still there: %v", err)
	}
	if err := clearOut(filepath.Join(root, "new"), repo); err != nil {
		t.Errorf("a new directory: %v", err)
	}
}
