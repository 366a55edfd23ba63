package blocks

import (
	"errors"
	"strings"
	"testing"
)

// TestTypeArgumentGuard: a run of type argument lists past the bound is
// refused before any parse, and names its line; real code with nested
// generics, comparisons and shifts is not.
func TestTypeArgumentGuard(t *testing.T) {
	guard := typeArgumentGuard("C#")
	refused := []string{
		strings.Repeat("List<", maxTypeNesting+1),
		"class A {}\n\n" + strings.Repeat("List<\n", maxTypeNesting+1),
		strings.Repeat("List<", 72000),
		strings.Repeat("a.B?<C[]<", maxTypeNesting/2+1),
	}
	for _, text := range refused {
		if why := guard(text); why == "" {
			t.Errorf("%q... (%d bytes) not refused", text[:min(len(text), 30)], len(text))
		}
	}
	if why := guard("class A {}\n\n" + strings.Repeat("List<\n", maxTypeNesting+1)); !strings.HasPrefix(why, "line 3 opens more than 64 type argument lists") ||
		!strings.HasSuffix(why, "the C# grammar cannot parse in bounded time") {
		t.Errorf("reason %q does not name line 3 and the grammar", why)
	}
	allowed := []string{
		strings.Repeat("List<", maxTypeNesting),
		"var d = new Dictionary<string, List<Task<IEnumerable<KeyValuePair<int, string>>>>>();\n",
		strings.Repeat("if (a < b && c << 2 < d) { x = y < z; }\n", 5000),
		strings.Repeat("A<B, ", 10000),
	}
	for _, text := range allowed {
		if why := guard(text); why != "" {
			t.Errorf("%q... refused: %s", text[:min(len(text), 30)], why)
		}
	}
}

func TestKotlinGuard(t *testing.T) {
	nested := strings.Repeat("\"${", maxKotlinInterpolations+1) + "x\n"
	if why := kotlinGuard(nested); !strings.Contains(why, "513 string interpolations") {
		t.Errorf("nested interpolations: %q", why)
	}
	real := strings.Repeat("val s = \"${a.b} and ${c}\"\n", maxKotlinInterpolations/2)
	if why := kotlinGuard(real); why != "" {
		t.Errorf("%d interpolations refused: %s", maxKotlinInterpolations, why)
	}
}

// TestGuardsThroughTheAPI: a refused text declines block ops as unsafe
// and the syntax check answers that it cannot tell, without a tree. Each
// text here took a parse past its time (C#: 107 s against a 10 s limit;
// Java: 35 s) or aborted the process (Kotlin) before its guard.
func TestGuardsThroughTheAPI(t *testing.T) {
	for _, c := range []struct{ path, text, reason string }{
		{"A.cs", "class A\n{\n}\n" + strings.Repeat("List<", 20000) + "\n", "type argument lists"},
		{"A.java", "class A {\n}\n" + strings.Repeat("List<", 20000) + "\n", "type argument lists"},
		{"A.kt", "class A {\n}\n" + strings.Repeat("\"${", 2000) + "x\n", "string interpolations"},
	} {
		r := mustResolver(t, c.path, c.text)
		if _, _, err := r.Resolve(1); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: block op: %v, want ErrUnsafe naming the %s", c.path, err, c.reason)
		}
		if r.tree != nil {
			t.Errorf("%s: the text was parsed", c.path)
		}
		if sup, _ := Check(c.path, c.text, defaultLimit); sup {
			t.Errorf("%s: the syntax check answered for a refused text", c.path)
		}
	}
}
