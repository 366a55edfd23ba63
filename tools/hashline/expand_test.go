package hashline

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// countingRegisters records every Set so tests can see when registers
// change.
type countingRegisters struct {
	*memRegisters
	sets int
}

func (r *countingRegisters) Set(name string, lines []string) error {
	r.sets++
	return r.memRegisters.Set(name, lines)
}

func TestAnonymousRegisterSequencing(t *testing.T) {
	tests := []struct {
		name, ops, want string
		code            Code
		frags           []string
	}{
		{name: "cut then paste", ops: "CUT 2.=3\nPUT >5", want: "a\nd\ne\nb\nc\n"},
		{name: "two pairs", ops: "CUT 1.=1\nPUT >2\nCUT 4.=4\nPUT >5", want: "b\na\nc\ne\nd\n"},
		{name: "paste twice", ops: "CUT 1.=1\nPUT >3\nPUT >5", want: "b\nc\na\nd\ne\na\n"},
		{name: "unpasted cuts are deletions", ops: "CUT 1.=1\nCUT 3.=3\nCUT 5.=5", want: "b\nd\n"},
		{name: "paste before any capture", ops: "PUT >5\nCUT 1.=1", code: CodeRegisterEmpty,
			frags: []string{"no CUT above it", "Put the CUT op above the paste"}},
		{name: "paste with nothing cut", ops: "PUT <2", code: CodeRegisterEmpty, frags: []string{"anonymous register"}},
		{name: "two pending captures", ops: "CUT 1.=1\nCUT 3.=3\nPUT >5", code: CodeRegisterAmbiguous,
			frags: []string{"2 CUTs above it (ops lines 1, 2)", "CUT N.=M @a", "PUT >X @a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := runText(abcde, tt.ops, Env{})
			if tt.code != 0 {
				wantErr(t, err, tt.code, -1, tt.frags...)
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestNamedRegisters(t *testing.T) {
	regs := &countingRegisters{memRegisters: newMemRegisters()}
	// Captured and pasted in one call.
	got, _, err := runText(abcde, "CUT 1.=2 @fn\nPUT >5 @fn", Env{Registers: regs})
	if err != nil || got != "c\nd\ne\na\nb\n" {
		t.Fatalf("got %q, %v", got, err)
	}
	// Session-scoped: a later call, on another file, pastes it.
	got, _, err = runText("x\ny\n", "PUT <1 @fn", Env{Registers: regs})
	if err != nil || got != "a\nb\nx\ny\n" {
		t.Fatalf("second call: got %q, %v", got, err)
	}
	// Over a span.
	got, _, err = runText("x\ny\nz\n", "PUT 2.=3 @fn", Env{Registers: regs})
	if err != nil || got != "x\na\nb\n" {
		t.Fatalf("span paste: got %q, %v", got, err)
	}
	// Empty register.
	_, _, err = runText(abcde, "PUT >1 @nope", Env{Registers: regs})
	wantErr(t, err, CodeRegisterEmpty, 1, "@nope", "CUT N.=M @nope")
	// No store at all.
	_, _, err = runText(abcde, "CUT 1.=1 @fn", Env{})
	wantErr(t, err, CodeInvalidArgument, 1, "not available")
}

func TestNamedRegistersChangeOnlyOnCommit(t *testing.T) {
	regs := &countingRegisters{memRegisters: newMemRegisters()}
	regs.m["fn"] = []string{"old"}
	lines, _ := splitText(abcde)
	p, err := Parse("CUT 1.=1 @fn\nPUT >3 @fn", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ir, _ := lowerStep(p, len(lines), Limits{})
	ir, err = expandLines(ir, lines, regs)
	if err != nil {
		t.Fatal(err)
	}
	if regs.sets != 0 || !reflect.DeepEqual(regs.m["fn"], []string{"old"}) {
		t.Fatalf("Expand changed the session registers: %d sets, fn = %q", regs.sets, regs.m["fn"])
	}
	if err := Commit(ir, regs); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(regs.m["fn"], []string{"a"}) {
		t.Errorf("after Commit fn = %q, want [a]", regs.m["fn"])
	}
	// A register holds captured content, not a reference to the file.
	lines[0] = "changed"
	if regs.m["fn"][0] != "a" {
		t.Errorf("register follows the source lines")
	}
	// A call that fails sets nothing.
	regs.sets = 0
	if _, _, err := runText(abcde, "CUT 1.=1 @fn\nPUT 9.=9:\n+x", Env{Registers: regs}); err == nil {
		t.Fatal("want an error")
	}
	if regs.sets != 0 {
		t.Errorf("a failed call set %d registers", regs.sets)
	}
	// Commit without a store is an error, not a silent drop.
	if err := Commit(ir, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Commit(nil) = %v", err)
	}
}

func TestRegisterCaptureLimits(t *testing.T) {
	lim := Limits{MaxRegisterLines: 2, MaxRegisterBytes: 8}
	env := Env{Limits: lim, Registers: newMemRegisters()}
	_, _, err := runText(abcde, "CUT 1.=3 @big", env)
	wantErr(t, err, CodeInvalidArgument, 1, "3 lines", "over the register limit of 2 lines")
	_, _, err = runText("0123456789\nb\n", "CUT 1.=1 @wide", env)
	wantErr(t, err, CodeInvalidArgument, 1, "11 bytes")
	// An anonymous CUT that is never pasted keeps nothing: a deletion.
	if got, _, err := runText(abcde, "CUT 1.=4", env); err != nil || got != "e\n" {
		t.Errorf("large anonymous deletion: %q, %v", got, err)
	}
	// Pasted, it is held to the limit, and the error names the CUT.
	_, _, err = runText(abcde, "CUT 1.=3\nPUT >5", env)
	wantErr(t, err, CodeInvalidArgument, 1, `"CUT 1.=3" captures 3 lines`)
}

func TestSpanPasteDeletesOnlyAfterTheRead(t *testing.T) {
	lines, _ := splitText(abcde)
	p, err := Parse("PUT 2.=3 @none", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ir, _ := lowerStep(p, len(lines), Limits{})
	out, err := expandLines(ir, lines, newMemRegisters())
	wantErr(t, err, CodeRegisterEmpty, 1)
	if len(out.Edits) != 0 {
		t.Errorf("a failed paste left edits: %+v", out.Edits)
	}
	// After a successful read the span becomes deletes and inserts.
	regs := newMemRegisters()
	regs.m["none"] = []string{"R"}
	out, err = expandLines(ir, lines, regs)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range out.Edits {
		kinds = append(kinds, map[Kind]string{KindDelete: "del", KindInsert: "ins"}[e.Kind])
	}
	if strings.Join(kinds, ",") != "del,del,ins" {
		t.Errorf("expanded kinds = %v", kinds)
	}
}
