package hashline

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// mapResolver resolves blocks from a fixed table: opener line -> span.
type mapResolver map[int][2]int

func (m mapResolver) Resolve(line int) (int, int, error) {
	s, ok := m[line]
	if !ok {
		return 0, 0, fmt.Errorf("line %d opens no multi-line construct", line)
	}
	return s[0], s[1], nil
}

const fn = "func a() {\n\tx()\n}\nfunc b() {\n\ty()\n}\n"

func TestBlockOps(t *testing.T) {
	blocks := mapResolver{1: {1, 3}, 4: {4, 6}}
	tests := []struct {
		name, ops, want string
	}{
		{"replace a block", "PUT 4*:\n+func b() {}", "func a() {\n\tx()\n}\nfunc b() {}\n"},
		{"insert after a block", "PUT >1*:\n+// between", "func a() {\n\tx()\n}\n// between\nfunc b() {\n\ty()\n}\n"},
		{"cut a block", "CUT 1*", "func b() {\n\ty()\n}\n"},
		{"move a block after another", "CUT 1*\nPUT >4*", "func b() {\n\ty()\n}\nfunc a() {\n\tx()\n}\n"},
		{"paste over a block", "CUT 1* @f\nPUT 4* @f", "func a() {\n\tx()\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, res, err := runText(fn, tt.ops, Env{Resolver: blocks, Registers: newMemRegisters()})
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
			if len(res.Resolutions) == 0 {
				t.Errorf("no resolution echoed")
			}
		})
	}
	_, res, err := runText(fn, "PUT >1*:\n+// x", Env{Resolver: blocks})
	if err != nil {
		t.Fatal(err)
	}
	want := []Resolution{{AnchorLine: 1, Start: 1, End: 3, Op: "PUT >1*:"}}
	if !reflect.DeepEqual(res.Resolutions, want) {
		t.Errorf("Resolutions = %+v, want %+v", res.Resolutions, want)
	}
}

func TestBlockOpsDecline(t *testing.T) {
	blocks := mapResolver{1: {1, 3}, 4: {4, 6}, 5: {2, 3}}
	// Not available in this build: name the plain-range alternative.
	_, _, err := runText(fn, "PUT 4*:\n+x", Env{})
	wantErr(t, err, CodeBlockUnresolved, 1, "not available", "PUT 4.=M:")
	_, _, err = runText(fn, "CUT 4*", Env{})
	wantErr(t, err, CodeBlockUnresolved, 1, "CUT 4.=M")
	// The resolver's reason reaches the model and the details.
	_, _, err = runText(fn, "CUT 2*", Env{Resolver: blocks})
	wantErr(t, err, CodeBlockUnresolved, 1, "line 2 opens no multi-line construct", "CUT 2.=M")
	var e *Error
	if errors.As(err, &e) && (e.Line != 2 || e.Reason != "line 2 opens no multi-line construct") {
		t.Errorf("Line = %d, Reason = %q", e.Line, e.Reason)
	}
	// A span that does not contain its opener is refused, not applied.
	_, _, err = runText(fn, "CUT 5*", Env{Resolver: blocks})
	wantErr(t, err, CodeBlockUnresolved, 1, "do not contain line 5")
	// Out of the file: a range error before any resolution.
	_, _, err = runText(fn, "CUT 9*", Env{Resolver: blocks})
	wantErr(t, err, CodeRangeInvalid, 1, "the file has 6 lines")
	// A block overlapping a range is an overlap like any other.
	_, _, err = runText(fn, "CUT 4*\nPUT 5.=5:\n+z", Env{Resolver: blocks})
	wantErr(t, err, CodeRangeInvalid, 2, "both change line 5")
}

func TestUnresolvedBlocksStopLaterSteps(t *testing.T) {
	lines, _ := splitText(fn)
	p, _ := Parse("CUT 1*", Limits{})
	ir, err := lowerStep(p, len(lines), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := expandLines(ir, lines, nil); !errors.Is(err, ErrBlockUnresolved) {
		t.Errorf("Expand: %v", err)
	}
	if err := validateStep(ir); !errors.Is(err, ErrBlockUnresolved) {
		t.Errorf("Validate: %v", err)
	}
}
