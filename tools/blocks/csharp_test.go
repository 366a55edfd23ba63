package blocks

import (
	"errors"
	"strings"
	"testing"
)

// TestCSharpGuard: a run of type argument lists past the bound is
// refused before any parse, and names its line; real code with nested
// generics, comparisons and shifts is not.
func TestCSharpGuard(t *testing.T) {
	refused := []string{
		strings.Repeat("List<", maxCSharpTypeNesting+1),
		"class A {}\n\n" + strings.Repeat("List<\n", maxCSharpTypeNesting+1),
		strings.Repeat("List<", 72000),
		strings.Repeat("a.B?<C[]<", maxCSharpTypeNesting/2+1),
	}
	for _, text := range refused {
		if why := csharpGuard(text); why == "" {
			t.Errorf("%q... (%d bytes) not refused", text[:min(len(text), 30)], len(text))
		}
	}
	if why := csharpGuard("class A {}\n\n" + strings.Repeat("List<\n", maxCSharpTypeNesting+1)); !strings.HasPrefix(why, "line 3 opens more than 64 type argument lists") {
		t.Errorf("reason %q does not name line 3", why)
	}
	allowed := []string{
		strings.Repeat("List<", maxCSharpTypeNesting),
		"var d = new Dictionary<string, List<Task<IEnumerable<KeyValuePair<int, string>>>>>();\n",
		strings.Repeat("if (a < b && c << 2 < d) { x = y < z; }\n", 5000),
		strings.Repeat("A<B, ", 10000),
	}
	for _, text := range allowed {
		if why := csharpGuard(text); why != "" {
			t.Errorf("%q... refused: %s", text[:min(len(text), 30)], why)
		}
	}
}

// TestCSharpGuardThroughTheAPI: a refused text declines block ops as
// unsafe and the syntax check answers that it cannot tell, without
// parsing.
func TestCSharpGuardThroughTheAPI(t *testing.T) {
	text := "class A\n{\n}\n" + strings.Repeat("List<", 20000) + "\n"
	r := mustResolver(t, "A.cs", text)
	if _, _, err := r.Resolve(1); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "type argument lists") {
		t.Errorf("block op: %v, want ErrUnsafe naming the nesting", err)
	}
	if r.parses != 1 || r.tree != nil {
		t.Errorf("parses %d, tree %v: the text reached the grammar", r.parses, r.tree)
	}
	if sup, _ := Check("A.cs", text, defaultLimit); sup {
		t.Error("the syntax check answered for a refused text")
	}
}
