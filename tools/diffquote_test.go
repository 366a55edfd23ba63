package tools

import (
	"strings"
	"testing"
)

// The edit result's diff quotes a path as git does, so a file name holding
// newlines cannot forge diff lines (the same quoting review's records use).
func TestEditDiffQuotesAPathThatWouldForgeLines(t *testing.T) {
	const name = "notes\n+++ b/fake\n@@ -1 +1 @@\n-harmless\n+INJECTED"
	e := newEditEnv(t)
	e.write(name, "one\ntwo\n")
	r := e.edit(name, e.showAll(name), "PUT 1.=1:\n+ONE")
	wantOK(t, r)
	rem := e.edit(name, r.Tag, "REM")
	wantOK(t, rem)
	quoted := `"a/notes\n+++ b/fake\n@@ -1 +1 @@\n-harmless\n+INJECTED"`
	for _, d := range []string{r.Diff, rem.Diff} {
		for line := range strings.SplitSeq(d, "\n") {
			if line == "+INJECTED" || line == "-harmless" || strings.HasPrefix(line, "+++ b/fake") {
				t.Errorf("the file name forged the line %q in\n%s", line, d)
			}
		}
		if !strings.HasPrefix(d, "--- "+quoted+"\n") {
			t.Errorf("the old side's header is not git-quoted:\n%s", d)
		}
	}
	if !strings.Contains(r.Diff, "\n+++ "+strings.Replace(quoted, "a/", "b/", 1)+"\n") || !strings.Contains(rem.Diff, "\n+++ /dev/null\n") {
		t.Errorf("new sides' headers:\n%s\n%s", r.Diff, rem.Diff)
	}
}
