package hashline

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// TestRepairGolden runs every testdata/repair/*.txtar: a whole edit
// exchange with boundary repair (§8.4), with sections
//
//	path      the file name, which picks the grammar
//	input     the file
//	ops       the ops text
//	output    the new file, and
//	warnings  the warnings, one per line (absent: none), or
//	error     the code on the first line and the message on the second;
//	          when repair asks, also
//	forms     the forms its question offers, as sent and as repaired, and
//	resent    the new file when the same edit is sent again
//
// With -update the output, warnings and error sections are rewritten from
// what the code does now; review the diff before committing it.
func TestRepairGolden(t *testing.T) {
	sections := []string{"output", "warnings", "error", "forms", "resent"}
	eachGolden(t, "testdata/repair/*.txtar", func(t *testing.T, file string, ar *txtar.Archive, sec map[string]string) {
		path := strings.TrimSpace(sec["path"])
		input, ops := sec["input"], sec["ops"]
		lines, trailing := splitText(input)
		res, warns, runErr := runRepaired(lines, ops, Env{}, treeSitter(t, path, input))
		got := map[string]string{}
		var e *Error
		switch {
		case runErr == nil:
			got["output"] = joinText(res.Lines, trailing)
			if len(warns) > 0 {
				got["warnings"] = strings.Join(warns, "\n") + "\n"
			}
		case errors.As(runErr, &e):
			got["error"] = wireCode[e.Code] + "\n" + e.Message + "\n"
			if q := e.Question; q != nil {
				got["forms"] = "as sent:\n" + q.AsSent
				for _, r := range q.Repaired {
					got["forms"] += "repaired:\n" + r
				}
				again, _, err := runRepaired(lines, ops, Env{AsSent: true}, treeSitter(t, path, input))
				if err != nil {
					t.Fatalf("sent again: %v", err)
				}
				got["resent"] = joinText(again.Lines, trailing)
			}
		default:
			t.Fatalf("unexpected error: %v", runErr)
		}
		if testenv.Update() {
			var kept []txtar.File
			for _, f := range ar.Files {
				if !slices.Contains(sections, f.Name) {
					kept = append(kept, f)
				}
			}
			for _, name := range sections {
				if v, ok := got[name]; ok {
					kept = append(kept, txtar.File{Name: name, Data: []byte(v)})
				}
			}
			ar.Files = kept
			if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		for _, name := range sections {
			if got[name] != sec[name] {
				t.Errorf("%s:\n%s\nwant:\n%s", name, got[name], sec[name])
			}
		}
	})
}
