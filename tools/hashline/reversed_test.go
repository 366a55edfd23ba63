package hashline

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// TestReversedRangeAdviceIsValid follows every op a reversed range's
// message suggests: each, put in place of the reversed header with the
// same body, parses and applies.
func TestReversedRangeAdviceIsValid(t *testing.T) {
	suggestion := regexp.MustCompile(`write ((?:PUT|CUT) [^;]+)`)
	tests := []struct{ name, header, body string }{
		{"replace", "PUT 5.=2:", "\n+X"},
		{"cut", "CUT 5.=2", ""},
		{"cut to a register", "CUT 5.=2 @r", ""},
		{"paste over", "PUT 5.=2 @r", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			regs := newMemRegisters()
			regs.m["r"] = []string{"R"}
			_, err := Run([]string{"a", "b", "c", "d", "e", "f"}, tt.header+tt.body, Env{Registers: regs})
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeRangeInvalid {
				t.Fatalf("want %s, got %v", CodeRangeInvalid, err)
			}
			found := suggestion.FindAllStringSubmatch(e.Message, -1)
			if len(found) != 3 {
				t.Fatalf("want 3 suggested ops in %q, got %q", e.Message, found)
			}
			for _, m := range found {
				op := strings.TrimSpace(m[1])
				p, err := Parse(op+tt.body, Limits{})
				if err != nil {
					t.Errorf("suggested %q does not parse: %v\n(message: %s)", op, err, e.Message)
					continue
				}
				orig, err := Parse(tt.header+tt.body, Limits{})
				if err != nil {
					t.Fatal(err)
				}
				if g, w := p.Ops[0], orig.Ops[0]; g.Kind != w.Kind || g.Colon != w.Colon || g.Register != w.Register {
					t.Errorf("suggested %q is not the same kind of op as %q", op, tt.header)
				}
				if _, err := Run([]string{"a", "b", "c", "d", "e", "f"}, op+tt.body, Env{Registers: regs}); err != nil {
					t.Errorf("suggested %q does not apply: %v\n(message: %s)", op, err, e.Message)
				}
			}
		})
	}
}
