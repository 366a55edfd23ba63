package docs

import (
	"regexp"
	"slices"
	"testing"
)

// testOnlyRow is a row of docs/architecture.md's package table whose
// package serves tests only.
var testOnlyRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\| tests only:")

// TestTestOnlyPackagesAreImportedByTestsOnly holds the package table's
// "tests only" rows to the code: such a package (the test harness in
// internal/testenv, say) is imported by no package's non-test files but
// another test-only package's, so nothing of it ships in a binary.
func TestTestOnlyPackagesAreImportedByTestsOnly(t *testing.T) {
	root := mustRoot(t)
	var testOnly []string
	for _, m := range testOnlyRow.FindAllStringSubmatch(mustRead(t, root, "docs/architecture.md"), -1) {
		testOnly = append(testOnly, m[1])
	}
	if !slices.Contains(testOnly, "internal/testenv") {
		t.Fatalf("docs/architecture.md's package table has no \"tests only\" row for internal/testenv (found %q): the scan is not seeing it", testOnly)
	}
	for dir, p := range goPackages(t, root) {
		if slices.Contains(testOnly, dir) {
			continue
		}
		for _, imp := range p.imports {
			if slices.Contains(testOnly, imp) {
				t.Errorf("%s imports %s in its non-test files; that package serves tests only", dir, imp)
			}
		}
	}
}
