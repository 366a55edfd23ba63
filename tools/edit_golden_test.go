package tools

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// TestEditGolden replays whole exchanges from tools/testdata/edit: a file,
// the lines a read showed, optionally an external change, the ops, and the
// file and result content the model gets back (or the error code).
//
// Sections: "file" (required), "seen" ("all" or "FROM-TO"), "external"
// (the file as another writer left it), "ops" (required), "want" (the file
// after), "content" (the result content, rewritten by -update),
// "code" (the error code, for a failing exchange).
func TestEditGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/edit/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden exchanges")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string]string{}
			for _, f := range ar.Files {
				sec[f.Name] = string(f.Data)
			}
			e := newEditEnv(t)
			e.write("f.txt", sec["file"])
			from, to := 1, 1<<30
			if s := strings.TrimSpace(sec["seen"]); s != "" && s != "all" {
				a, b, _ := strings.Cut(s, "-")
				from, _ = strconv.Atoi(a)
				to, _ = strconv.Atoi(b)
			}
			tag := e.show("f.txt", from, to)
			if ext, ok := sec["external"]; ok {
				e.write("f.txt", ext)
			}
			r := e.edit("f.txt", tag, strings.TrimSuffix(sec["ops"], "\n"))
			if code := strings.TrimSpace(sec["code"]); code != "" {
				wantCode(t, r, code)
			} else {
				wantOK(t, r)
			}
			if want, ok := sec["want"]; ok {
				wantFile(t, e, "f.txt", want)
			}
			got := r.Content + "\n"
			if testenv.Update() {
				for i := range ar.Files {
					if ar.Files[i].Name == "content" {
						ar.Files[i].Data = []byte(got)
					}
				}
				if _, ok := sec["content"]; !ok {
					ar.Files = append(ar.Files, txtar.File{Name: "content", Data: []byte(got)})
				}
				if err := os.WriteFile(name, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if sec["content"] != got {
				t.Fatalf("content:\n%s\nwant:\n%s", got, sec["content"])
			}
		})
	}
}
