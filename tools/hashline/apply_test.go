package hashline

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// runText runs ops on a text the way the tool addresses it.
func runText(input, ops string, env Env) (string, Result, error) {
	lines, trailing := splitText(input)
	res, err := Run(lines, ops, env)
	if err != nil {
		return "", res, err
	}
	return joinText(res.Lines, trailing), res, nil
}

const abcde = "a\nb\nc\nd\ne\n"

func TestApplySemantics(t *testing.T) {
	tests := []struct {
		name, input, ops, want string
	}{
		{"replace a range", abcde, "PUT 2.=3:\n+X", "a\nX\nd\ne\n"},
		{"replace one line with several", abcde, "PUT 2.=2:\n+X\n+Y", "a\nX\nY\nc\nd\ne\n"},
		{"insert before", abcde, "PUT <3:\n+X", "a\nb\nX\nc\nd\ne\n"},
		{"insert after", abcde, "PUT >3:\n+X", "a\nb\nc\nX\nd\ne\n"},
		{"insert at the head", abcde, "PUT <1:\n+X", "X\na\nb\nc\nd\ne\n"},
		{"append", abcde, "PUT >$:\n+X", "a\nb\nc\nd\ne\nX\n"},
		{"after the last line", abcde, "PUT >5:\n+X", "a\nb\nc\nd\ne\nX\n"},
		{"append without terminal newline", "a\nb", "PUT >$:\n+X", "a\nb\nX"},
		{"write an empty file from the head", "", "PUT <1:\n+X\n+Y", "X\nY"},
		{"append to an empty file", "", "PUT >$:\n+X", "X"},
		{"delete", abcde, "CUT 2.=3", "a\nd\ne\n"},
		{"delete everything", abcde, "CUT 1.=5", ""},
		{"empty rows and sigils", abcde, "PUT 1.=1:\n+\n++x\n+-y", "\n+x\n-y\nb\nc\nd\ne\n"},
		{"whitespace kept verbatim", abcde, "PUT 2.=2:\n+\t  x  \t", "a\n\t  x  \t\nc\nd\ne\n"},
		{"numbers never shift", abcde, "PUT 1.=1:\n+a1\n+a2\nCUT 3.=3\nPUT >4:\n+Z\nPUT 5.=5:\n+E", "a1\na2\nb\nd\nZ\nE\n"},
		{"before and after one line are two places", abcde, "PUT <2:\n+before\nPUT >2:\n+after", "a\nbefore\nb\nafter\nc\nd\ne\n"},
		{"gap just above a range lands above its body", abcde, "PUT >1:\n+G\nPUT 2.=3:\n+R", "a\nG\nR\nd\ne\n"},
		{"gap just below a range lands below its body", abcde, "PUT 2.=3:\n+R\nPUT <4:\n+G", "a\nR\nG\nd\ne\n"},
		{"head beside a range on line 1", abcde, "PUT 1.=2:\n+R\nPUT <1:\n+H", "H\nR\nc\nd\ne\n"},
		{"end beside a range on the last line", abcde, "PUT >$:\n+T\nPUT 4.=5:\n+R", "a\nb\nc\nR\nT\n"},
		{"adjacent ranges", abcde, "PUT 3.=3:\n+C\nPUT 2.=2:\n+B", "a\nB\nC\nd\ne\n"},
		{"move down with the anonymous register", abcde, "CUT 1.=2\nPUT >4", "c\nd\na\nb\ne\n"},
		{"move up with the anonymous register", abcde, "CUT 4.=5\nPUT <1", "d\ne\na\nb\nc\n"},
		{"paste over a span with a named register", abcde, "CUT 1.=1 @x\nPUT 4.=5 @x", "b\nc\na\n"},
		{"section header is not content", abcde, "[f.txt#ABCD]\nCUT 5.=5", "a\nb\nc\nd\n"},
		{"CRLF ops", abcde, "PUT 2.=2:\r\n+X\r\n", "a\nX\nc\nd\ne\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := runText(tt.input, tt.ops, Env{Registers: newMemRegisters()})
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOpOrderDoesNotMatter(t *testing.T) {
	ops := []string{"PUT 1.=1:\n+A", "PUT <3:\n+G", "CUT 4.=4", "PUT >$:\n+T", "PUT 2.=2:\n+B\n+B2"}
	want, _, err := runText(abcde, strings.Join(ops, "\n"), Env{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ops {
		rot := append(append([]string(nil), ops[i:]...), ops[:i]...)
		got, _, err := runText(abcde, strings.Join(rot, "\n"), Env{})
		if err != nil || got != want {
			t.Errorf("order %d: got %q, %v; want %q", i, got, err, want)
		}
	}
}

func TestApplyRejections(t *testing.T) {
	tests := []struct {
		name, input, ops string
		code             Code
		frags            []string
	}{
		{"line past the end", abcde, "PUT 4.=7:\n+X", CodeRangeInvalid, []string{"line 7", "the file has 5 lines"}},
		{"gap past the end", abcde, "PUT <6:\n+X", CodeRangeInvalid, []string{"the file has 5 lines", "PUT >$:"}},
		{"after past the end", abcde, "PUT >6:\n+X", CodeRangeInvalid, []string{"the file has 5 lines"}},
		{"empty file", "", "PUT 1.=1:\n+X", CodeRangeInvalid, []string{"the file is empty", "PUT <1:"}},
		{"reversed range", abcde, "CUT 5.=2", CodeRangeInvalid, []string{"backwards", "CUT 2.=5", "CUT 5.=6"}},
		{"overlapping ranges", abcde, "PUT 2.=4:\n+X\nPUT 3.=5:\n+Y", CodeRangeInvalid, []string{"both change line 3", "PUT 2.=5:", "None of the 2 ops"}},
		{"CUT inside a PUT", abcde, "CUT 2.=4\nPUT 3.=3:\n+x", CodeRangeInvalid, []string{"both change line 3"}},
		{"one gap, two ops", abcde, "PUT >4:\n+X\nPUT <5:\n+Y", CodeRangeInvalid, []string{"between lines 4 and 5", "one of the two headers"}},
		{"two heads", abcde, "PUT <1:\n+X\nPUT <1:\n+Y", CodeRangeInvalid, []string{"at the top of the file"}},
		{"end twice", abcde, "PUT >$:\n+X\nPUT >5:\n+Y", CodeRangeInvalid, []string{"at the end of the file"}},
		{"after a replaced line", abcde, "PUT 3.=4:\n+X\nPUT >4:\n+Y", CodeRangeInvalid, []string{"after line 4", "PUT 3.=4:"}},
		{"before a replaced line", abcde, "PUT <3:\n+Y\nPUT 3.=4:\n+X", CodeRangeInvalid, []string{"before line 3"}},
		{"inside a deleted range", abcde, "CUT 2.=4\nPUT >3:\n+Y", CodeRangeInvalid, []string{"after line 3"}},
		{"paste next to a cut", abcde, "CUT 2.=3\nPUT >3", CodeRangeInvalid, []string{"after line 3"}},
		{"no change", abcde, "PUT 2.=2:\n+b", CodeNoChange, []string{"exactly as it is", "no edit is needed"}},
		{"cut and paste back", abcde, "CUT 2.=2\nPUT <3", CodeNoChange, nil},
		{"changes that cancel out", "a\na\na\n", "PUT <1:\n+a\nCUT 2.=2", CodeNoChange, nil},
		{"empty PUT is not a delete", abcde, "PUT 2.=2:", CodeParseFailed, []string{"CUT 2.=2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res, err := runText(tt.input, tt.ops, Env{})
			wantErr(t, err, tt.code, -1, tt.frags...)
			if res.Lines != nil {
				t.Errorf("a failed call returned lines %q", res.Lines)
			}
		})
	}
}

func TestAmplificationLimit(t *testing.T) {
	lim := Limits{MaxExpandedLines: 5}
	if _, _, err := runText(abcde, "PUT 1.=2:\n+x\n+y\n+z", Env{Limits: lim}); err != nil {
		t.Fatalf("5 line edits at a cap of 5: %v", err)
	}
	_, _, err := runText(abcde, "PUT 1.=3:\n+x\n+y\n+z", Env{Limits: lim})
	wantErr(t, err, CodeAmplificationLimit, 1, "more than 5")
	// Pastes multiply a register: the cap holds after expansion too.
	_, _, err = runText(abcde, "CUT 1.=2 @r\nPUT >3 @r\nPUT >4 @r", Env{Limits: lim, Registers: newMemRegisters()})
	wantErr(t, err, CodeAmplificationLimit, 3)
	// The contract's own example: a 100,001-line range.
	lines := make([]string, 100001)
	_, err = Run(lines, "PUT 1.=100001:\n+x", Env{})
	wantErr(t, err, CodeAmplificationLimit, 1, "100000")
}

func TestChangedRegions(t *testing.T) {
	tests := []struct {
		name, ops string
		want      []Region
	}{
		{"replacement", "PUT 2.=3:\n+X", []Region{{Start: 2, End: 2, Inserted: 1, Removed: 2}}},
		{"growth", "PUT 2.=2:\n+X\n+Y\n+Z", []Region{{Start: 2, End: 4, Inserted: 3, Removed: 1}}},
		{"deletion names the join", "CUT 2.=3", []Region{{Start: 2, End: 1, Removed: 2}}},
		{"deletion at the head", "CUT 1.=1", []Region{{Start: 1, End: 0, Removed: 1}}},
		{"deletion at the end", "CUT 5.=5", []Region{{Start: 5, End: 4, Removed: 1}}},
		{"append", "PUT >$:\n+X", []Region{{Start: 6, End: 6, Inserted: 1}}},
		{"touching ops are one region", "PUT >1:\n+X\nCUT 2.=2\nPUT <3:\n+Y", []Region{{Start: 2, End: 3, Inserted: 2, Removed: 1}}},
		{"separate regions in new numbers", "PUT <1:\n+H\n+H\nCUT 3.=3\nPUT 5.=5:\n+E", []Region{
			{Start: 1, End: 2, Inserted: 2}, {Start: 5, End: 4, Removed: 1}, {Start: 6, End: 6, Inserted: 1, Removed: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res, err := runText(abcde, tt.ops, Env{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Changed, tt.want) {
				t.Errorf("Changed = %+v, want %+v", res.Changed, tt.want)
			}
		})
	}
}

func TestApplyRefusesUnexpandedOrForeignIR(t *testing.T) {
	lines := []string{"a", "b"}
	p, _ := Parse("CUT 1.=1", Limits{})
	ir, _ := lowerStep(p, 2, Limits{})
	_, err := Apply(lines, ir)
	wantErr(t, err, CodeInvalidArgument, 1, "not expanded")
	_, err = Apply([]string{"a"}, ir)
	wantErr(t, err, CodeInvalidArgument, 0, "lowered for 2")
	_, err = expandLines(ir, []string{"a", "b", "c"}, nil)
	wantErr(t, err, CodeInvalidArgument, 0, "lowered for 2")
}

func TestFileOpsLeaveLinesToTheTool(t *testing.T) {
	// MV composes with line ops, which apply to the source first.
	p, err := Parse("PUT 1.=1:\n+A\nMV \"new dir/f.txt\"", Limits{})
	if err != nil || p.MoveTo != "new dir/f.txt" || len(p.Ops) != 1 {
		t.Fatalf("Parse: %+v, %v", p, err)
	}
	got, _, err := runText(abcde, "PUT 1.=1:\n+A\nMV \"new dir/f.txt\"", Env{})
	if err != nil || got != "A\nb\nc\nd\ne\n" {
		t.Errorf("MV with an op: %q, %v", got, err)
	}
	// REM or MV alone change no line.
	for _, ops := range []string{"REM", "MV g.txt"} {
		got, _, err := runText(abcde, ops, Env{})
		if err != nil || got != abcde {
			t.Errorf("%s: %q, %v", ops, got, err)
		}
		ir, err := lowerStep(mustParse(t, ops), 5, Limits{})
		if err != nil || len(ir.Edits) != 0 || ir.HeadTailOnly() {
			t.Errorf("%s lowers to %+v, %v", ops, ir, err)
		}
	}
}

func mustParse(t *testing.T, ops string) *Patch {
	t.Helper()
	p, err := Parse(ops, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkPieces checks Result.Pieces against the text: they cover the new
// lines in order, and a piece that names original lines holds exactly
// their text.
func checkPieces(lines []string, res Result) error {
	next := 1
	for _, p := range res.Pieces {
		if p.Start != next || p.Len < 1 || p.From < 0 || p.From > 0 && p.From+p.Len-1 > len(lines) {
			return fmt.Errorf("piece %+v after line %d of %d original lines", p, next-1, len(lines))
		}
		for k := 0; p.From > 0 && k < p.Len; k++ {
			if res.Lines[p.Start-1+k] != lines[p.From-1+k] {
				return fmt.Errorf("piece %+v: new line %d %q is not original line %d %q", p, p.Start+k, res.Lines[p.Start-1+k], p.From+k, lines[p.From-1+k])
			}
		}
		next += p.Len
	}
	if next != len(res.Lines)+1 {
		return fmt.Errorf("pieces cover %d of %d new lines", next-1, len(res.Lines))
	}
	return nil
}

// Pieces say where each new line came from: kept lines and rows pasted
// from a capture of the call name their original line; written rows and
// rows from an earlier call's register name none.
func TestApplyPieces(t *testing.T) {
	lines := []string{"a", "b", "c", "d", "e", "f"}
	tests := []struct {
		name, ops string
		want      []Piece
	}{
		{"a replacement", "PUT 2.=3:\n+B\n+C\n+X", []Piece{{1, 1, 1}, {2, 3, 0}, {5, 3, 4}}},
		{"an insert at the top", "PUT <1:\n+top", []Piece{{1, 1, 0}, {2, 6, 1}}},
		{"a deletion", "CUT 3.=4", []Piece{{1, 2, 1}, {3, 2, 5}}},
		{"an anonymous move keeps its lines' origin", "CUT 2.=3\nPUT >5", []Piece{{1, 1, 1}, {2, 2, 4}, {4, 2, 2}, {6, 1, 6}}},
		{"a named move too", "CUT 5.=6 @r\nPUT <1 @r", []Piece{{1, 2, 5}, {3, 4, 1}}},
		{"a paste continuing the kept line before it is one piece", "CUT 3.=3\nPUT >2\nPUT 6.=6:\n+F", []Piece{{1, 5, 1}, {6, 1, 0}}},
		{"a register filled earlier is written content", "PUT >6 @old", []Piece{{1, 6, 1}, {7, 2, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			regs := newMemRegisters()
			regs.m["old"] = []string{"x", "y"}
			res, err := Run(lines, tt.ops, Env{Registers: regs})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Pieces, tt.want) {
				t.Errorf("pieces %+v, want %+v (lines %q)", res.Pieces, tt.want, res.Lines)
			}
			if err := checkPieces(lines, res); err != nil {
				t.Error(err)
			}
		})
	}
}

// Copies name every new line that is an original line: the runs no edit
// touched and the lines a paste of this call's cut moved, so the tool can
// write them back with their own bytes.
func TestApplyReportsCopies(t *testing.T) {
	tests := []struct {
		ops  string
		want []Copy
	}{
		{"PUT 2.=3:\n+X", []Copy{{1, 1, 1}, {3, 4, 2}}},
		{"PUT <1:\n+X", []Copy{{2, 1, 5}}},
		{"CUT 1.=5\nPUT >$:\n+x", nil},
		{"CUT 2.=3\nPUT >5", []Copy{{1, 1, 1}, {2, 4, 2}, {4, 2, 1}, {5, 3, 1}}},
		{"CUT 1.=1 @r\nPUT >3 @r", []Copy{{1, 2, 2}, {3, 1, 1}, {4, 4, 2}}},
	}
	for _, tt := range tests {
		env := Env{Registers: newMemRegisters()}
		_, res, err := runText(abcde, tt.ops, env)
		if err != nil {
			t.Fatalf("%q: %v", tt.ops, err)
		}
		if !reflect.DeepEqual(res.Copies, tt.want) {
			t.Errorf("%q: copies %v, want %v", tt.ops, res.Copies, tt.want)
		}
	}
}
