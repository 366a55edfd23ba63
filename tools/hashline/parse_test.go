package hashline

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

// wantErr checks an error's code, ops line and message fragments.
func wantErr(t *testing.T, err error, code Code, opsLine int, fragments ...string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want %s error, got %v", code, err)
	}
	if e.Code != code {
		t.Fatalf("code = %s, want %s (message: %s)", e.Code, code, e.Message)
	}
	if opsLine >= 0 && e.OpsLine != opsLine {
		t.Errorf("OpsLine = %d, want %d (message: %s)", e.OpsLine, opsLine, e.Message)
	}
	for _, f := range fragments {
		if !strings.Contains(e.Message, f) {
			t.Errorf("message lacks %q:\n%s", f, e.Message)
		}
	}
	if !errors.Is(err, sentinels[code]) {
		t.Errorf("errors.Is(err, sentinel of %s) is false", code)
	}
}

func TestParseAcceptsTheGrammar(t *testing.T) {
	tests := []struct {
		ops  string
		want []Op
	}{
		{"PUT 3.=5:\n+a\n+b", []Op{{Kind: OpPut, Loc: Locator{LocRange, 3, 5}, Colon: true, Body: []string{"a", "b"}}}},
		{"PUT 7.=7:\n+x", []Op{{Kind: OpPut, Loc: Locator{LocRange, 7, 7}, Colon: true, Body: []string{"x"}}}},
		// The one-line spelling of N.=N (edit-contract §7.1).
		{"PUT 7:\n+x", []Op{{Kind: OpPut, Loc: Locator{LocRange, 7, 7}, Colon: true, Body: []string{"x"}}}},
		{"CUT 7", []Op{{Kind: OpCut, Loc: Locator{LocRange, 7, 7}}}},
		{"CUT 7 @r", []Op{{Kind: OpCut, Loc: Locator{LocRange, 7, 7}, Register: "r"}}},
		{"PUT 7 @r", []Op{{Kind: OpPut, Loc: Locator{LocRange, 7, 7}, Register: "r"}}},
		{"PUT 12*:\n+x", []Op{{Kind: OpPut, Loc: Locator{LocBlock, 12, 12}, Colon: true, Body: []string{"x"}}}},
		{"PUT <4:\n+x", []Op{{Kind: OpPut, Loc: Locator{LocBefore, 4, 4}, Colon: true, Body: []string{"x"}}}},
		{"PUT >4:\n+x", []Op{{Kind: OpPut, Loc: Locator{LocAfter, 4, 4}, Colon: true, Body: []string{"x"}}}},
		{"PUT >$:\n+x", []Op{{Kind: OpPut, Loc: Locator{LocEnd, 0, 0}, Colon: true, Body: []string{"x"}}}},
		{"PUT >9*:\n+x", []Op{{Kind: OpPut, Loc: Locator{LocAfterBlock, 9, 9}, Colon: true, Body: []string{"x"}}}},
		{"CUT 2.=3", []Op{{Kind: OpCut, Loc: Locator{LocRange, 2, 3}}}},
		{"CUT 2*", []Op{{Kind: OpCut, Loc: Locator{LocBlock, 2, 2}}}},
		{"CUT 2.=3 @fn_1-a", []Op{{Kind: OpCut, Loc: Locator{LocRange, 2, 3}, Register: "fn_1-a"}}},
		{"CUT 1.=1 @" + strings.Repeat("r", 32), []Op{{Kind: OpCut, Loc: Locator{LocRange, 1, 1}, Register: strings.Repeat("r", 32)}}},
		{"PUT <1 @fn", []Op{{Kind: OpPut, Loc: Locator{LocBefore, 1, 1}, Register: "fn"}}},
		{"PUT >3", []Op{{Kind: OpPut, Loc: Locator{LocAfter, 3, 3}}}},
		{"PUT >$", []Op{{Kind: OpPut, Loc: Locator{LocEnd, 0, 0}}}},
		{"PUT 4.=6 @r", []Op{{Kind: OpPut, Loc: Locator{LocRange, 4, 6}, Register: "r"}}},
		{"PUT 4* @r", []Op{{Kind: OpPut, Loc: Locator{LocBlock, 4, 4}, Register: "r"}}},
	}
	for _, tt := range tests {
		p, err := Parse(tt.ops, Limits{})
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.ops, err)
			continue
		}
		for i := range p.Ops {
			p.Ops[i].Line, p.Ops[i].Header = 0, ""
		}
		if !reflect.DeepEqual(p.Ops, tt.want) {
			t.Errorf("Parse(%q) =\n%+v\nwant\n%+v", tt.ops, p.Ops, tt.want)
		}
	}
}

func TestBodyRowsAreFinalTextVerbatim(t *testing.T) {
	ops := "PUT 1.=1:\n+\n++x\n+-x\n+  indented\t \n+plain\n+PUT 2.=2:"
	p, err := Parse(ops, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "+x", "-x", "  indented\t ", "plain", "PUT 2.=2:"}
	if !reflect.DeepEqual(p.Ops[0].Body, want) {
		t.Errorf("body = %q, want %q", p.Ops[0].Body, want)
	}
}

func TestParseKeepsSourceLinesAndHeaders(t *testing.T) {
	p, err := Parse("[src/a.go#1A2B]\nCUT 4.=4\n\nPUT >2:  \n+x\nMV \"docs/new name.md\"", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Header == nil || p.Header.Path != "src/a.go" || p.Header.Tag != "1A2B" || p.Header.Line != 1 {
		t.Errorf("header = %+v", p.Header)
	}
	if p.Ops[0].Line != 2 || p.Ops[0].Header != "CUT 4.=4" || p.Ops[1].Line != 4 || p.Ops[1].Header != "PUT >2:" {
		t.Errorf("ops = %+v", p.Ops)
	}
	if p.MoveTo != "docs/new name.md" || p.MoveLine != 6 {
		t.Errorf("MoveTo = %q line %d", p.MoveTo, p.MoveLine)
	}
}

func TestParseCRLFAndTrailingBlankLines(t *testing.T) {
	p, err := Parse("PUT 1.=1:\r\n+a \r\n+\r\nCUT 3.=3\r\n\r\n  \n\n", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Ops[0].Body; !reflect.DeepEqual(got, []string{"a ", ""}) {
		t.Errorf("body = %q", got)
	}
	if len(p.Ops) != 2 || p.Ops[1].Header != "CUT 3.=3" {
		t.Errorf("ops = %+v", p.Ops)
	}
}

func TestBlankLines(t *testing.T) {
	// Between blocks whose previous block takes no body: fine.
	for _, ops := range []string{"CUT 1.=1\n\nCUT 3.=3", "[a#ABCD]\n\nCUT 1.=1", "\n\nCUT 1.=1", "PUT >1 @r\n\nCUT 3.=3", "CUT 1.=1\n\t\nPUT >3:\n+x"} {
		if _, err := Parse(ops, Limits{}); err != nil {
			t.Errorf("Parse(%q): %v", ops, err)
		}
	}
	// Inside or after a body: ambiguous.
	for _, ops := range []string{"PUT 1.=1:\n+a\n\n+b", "PUT 1.=1:\n+a\n\nCUT 3.=3", "PUT >1:\n+a\n   \nCUT 3.=3"} {
		_, err := Parse(ops, Limits{})
		wantErr(t, err, CodeParseFailed, 3, "bare '+'")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, ops string
		code      Code
		line      int
		frags     []string
	}{
		{"colonless PUT with body", "PUT 48.=48\n+x", CodeParseFailed, 1,
			[]string{`"PUT 48.=48"`, "a PUT with body rows must end its header with ':', for example PUT 48.=48:"}},
		{"reference range", "PUT 2-4:\n+x", CodeParseFailed, 1, []string{`"PUT 2-4:"`, "Write: PUT 2.=4:"}},
		{"dotdot range", "CUT 2..4", CodeParseFailed, 1, []string{"Write: CUT 2.=4"}},
		{"ellipsis range", "CUT 2…4", CodeParseFailed, 1, []string{"Write: CUT 2.=4"}},
		{"space range", "CUT 2 4", CodeParseFailed, 1, []string{"Write: CUT 2.=4"}},
		{"dangling separator", "CUT 2.=", CodeParseFailed, 1, []string{"Write: CUT 2.=2"}},
		{"reference range without colon, body follows", "PUT 2-4\n+x", CodeParseFailed, 1, []string{"Write: PUT 2.=4:"}},
		{"lowercase op", "put 3.=4:\n+x", CodeParseFailed, 1, []string{"upper case", "Write: PUT 3.=4:"}},
		{"lowercase cut", "Cut 3.=4", CodeParseFailed, 1, []string{"Write: CUT 3.=4"}},
		{"line zero", "PUT 0.=1:\n+x", CodeParseFailed, 1, []string{"start at 1", "PUT <1:", "Write: PUT 1.=1:"}},
		{"after zero", "PUT >0:\n+x", CodeParseFailed, 1, []string{"Write: PUT <1:"}},
		{"leading zero", "CUT 03.=4", CodeParseFailed, 1, []string{"Write: CUT 3.=4"}},
		{"blank inside locator", "PUT < 2:\n+x", CodeParseFailed, 1, []string{"Write: PUT <2:"}},
		{"missing space", "PUT3.=4:\n+x", CodeParseFailed, 1, []string{"Write: PUT 3.=4:"}},
		{"double space", "PUT  3.=4:\n+x", CodeParseFailed, 1, []string{"Write: PUT 3.=4:"}},
		{"double blank before a register", "PUT >3  @r", CodeParseFailed, 1, []string{"Write: PUT >3 @r"}},
		{"text after colon", "PUT 3.=4: foo()", CodeParseFailed, 1, []string{"+foo()", "Write: PUT 3.=4:"}},
		{"garbage after CUT", "CUT 3.=4 please", CodeParseFailed, 1, []string{`"please"`, "Write: CUT 3.=4"}},
		{"CUT with colon", "CUT 3.=4:", CodeParseFailed, 1, []string{"Write: CUT 3.=4"}},
		{"CUT with gap", "CUT >3", CodeParseFailed, 1, []string{"CUT N.=M"}},
		{"register paste with colon", "PUT >2 @name:", CodeParseFailed, 1, []string{"never takes ':'", "Write: PUT >2 @name"}},
		{"bad register", "CUT 1.=2 @a.b", CodeParseFailed, 1, []string{"1 to 32"}},
		{"long register", "CUT 1.=2 @" + strings.Repeat("r", 33), CodeParseFailed, 1, []string{"1 to 32"}},
		{"empty register", "CUT 1.=2 @", CodeParseFailed, 1, []string{"1 to 32"}},
		{"lt dollar", "PUT <$:\n+x", CodeParseFailed, 1, []string{"PUT >$:"}},
		{"dollar in range", "PUT 2.=$:\n+x", CodeParseFailed, 1, []string{">$"}},
		{"huge line", "CUT 1.=99999999999999999999", CodeParseFailed, 1, []string{"re-read"}},
		{"missing locator", "PUT :\n+x", CodeParseFailed, 1, []string{"needs a locator"}},
		{"REM with argument", "REM a.go", CodeParseFailed, 1, []string{"Write: REM"}},
		{"MV without destination", "MV", CodeParseFailed, 1, []string{"destination"}},
		{"MV unquoted blank", "MV a b.go", CodeParseFailed, 1, []string{`Write: MV "a b.go"`}},
		{"MV bad quote", `MV "a.go`, CodeParseFailed, 1, []string{"double-quoted"}},
		{"empty range PUT", "PUT 2.=3:", CodeParseFailed, 1, []string{"CUT 2.=3", "not a deletion"}},
		{"empty range PUT before next op", "PUT 2.=3:\nCUT 5.=5", CodeParseFailed, 1, []string{"CUT 2.=3"}},
		{"empty block PUT", "PUT 4*:", CodeParseFailed, 1, []string{"CUT 4*"}},
		{"empty gap PUT", "PUT >$:", CodeParseFailed, 1, []string{"+TEXT", "PUT >$ @name"}},
		{"span paste without register", "PUT 3.=4", CodeParseFailed, 1, []string{"PUT 3.=4 @name", "PUT 3.=4:"}},
		{"block paste without register", "PUT 3*", CodeParseFailed, 1, []string{"PUT 3* @name"}},
		{"minus row", "PUT 2.=2:\n-old\n+new", CodeParseFailed, 2, []string{"no '-' rows", `"+-old"`}},
		{"minus row at top", "- item", CodeParseFailed, 1, []string{`"+- item"`}},
		{"context row", "PUT 2.=2:\n+new\n  keep()", CodeParseFailed, 3, []string{"no context rows", `"+  keep()"`}},
		{"read row in body", "PUT 2.=2:\n2:new", CodeParseFailed, 2, []string{`"+new"`}},
		{"orphan body row", "+x", CodeParseFailed, 1, []string{"no op header above it"}},
		{"body row after section", "[a.go#ABCD]\n+x", CodeParseFailed, 2, []string{"no op header above it"}},
		{"body under CUT", "CUT 2.=3\n+x", CodeParseFailed, 2, []string{"takes no body rows", "PUT 2.=3:"}},
		{"body under block CUT", "CUT 2*\n+x", CodeParseFailed, 2, []string{"PUT 2*:"}},
		{"body under REM", "REM\n+x", CodeParseFailed, 2, []string{"takes no body rows"}},
		{"body under MV", "MV b.go\n+x", CodeParseFailed, 2, []string{"takes no body rows"}},
		{"body under anonymous paste", "PUT <1\n+X", CodeInvalidArgument, 2, []string{"anonymous register", "PUT <1:"}},
		{"body under named paste", "PUT >2 @r\n+X", CodeInvalidArgument, 2, []string{"register @r", "PUT >2:"}},
		{"body under named span paste", "PUT 2.=3 @r\n+X", CodeInvalidArgument, 2, []string{"register @r", "PUT 2.=3:"}},
		{"read-output row", "12:foo", CodeParseFailed, 1, []string{"PUT 12.=12:", `"+foo"`}},
		{"bare range header", "2.=3:\n+X", CodeParseFailed, 1, []string{"PUT 2.=3:"}},
		{"bare number header", "2\n+X", CodeParseFailed, 1, []string{"PUT 2.=2:"}},
		{"unknown op", "DEL 2", CodeParseFailed, 1, []string{"DEL is not an op"}},
		{"unified diff", "@@ -1,3 +1,3 @@\nPUT 2.=2:\n+X", CodeParseFailed, 1, []string{"unified-diff"}},
		{"apply_patch", "*** Begin Patch", CodeParseFailed, 1, []string{"apply_patch"}},
		{"indented header", "CUT 1.=1\n  CUT 3.=3", CodeParseFailed, 2, []string{"beginning of the line", "CUT 3.=3"}},
		{"second section", "CUT 1.=1\n[b.go#ABCD]", CodeParseFailed, 2, []string{"one file"}},
		{"malformed section", "[a.go]\nCUT 1.=1", CodeParseFailed, 1, []string{"[path#TAG]"}},
		{"no ops", "", CodeParseFailed, 0, []string{"no operations"}},
		{"only a section", "[a.go#ABCD]\n", CodeParseFailed, 0, []string{"no operations"}},
		{"REM with others", "PUT 1.=1:\n+one\nREM", CodeInvalidArgument, 3, []string{"only op"}},
		{"REM with MV", "REM\nMV b.go", CodeInvalidArgument, 1, []string{"only op"}},
		{"two REM", "REM\nREM", CodeInvalidArgument, 2, []string{"twice"}},
		{"two MV", "MV a.go\nMV b.go", CodeInvalidArgument, 2, []string{"at most once"}},
		{"NUL", "PUT 1.=1:\n+a\x00", CodeInvalidArgument, 2, []string{"NUL"}},
		{"invalid UTF-8", "PUT 1.=1:\n+\xff", CodeInvalidArgument, 0, []string{"UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.ops, Limits{})
			wantErr(t, err, tt.code, tt.line, tt.frags...)
		})
	}
}

func TestParseLimits(t *testing.T) {
	lim := Limits{MaxOpsPayloadBytes: 64, MaxOpsPerCall: 3}
	ok := "CUT 1.=1\nCUT 2.=2\nCUT 3.=3"
	if _, err := Parse(ok, lim); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
	_, err := Parse(ok+"\nCUT 4.=4", lim)
	wantErr(t, err, CodeInvalidArgument, 4, "more than 3 ops", "several calls")
	_, err = Parse("PUT 1.=1:\n+"+strings.Repeat("x", 60), lim)
	wantErr(t, err, CodeInvalidArgument, 0, "over the limit of 64")
	// The defaults are the contract's (edit-contract §12).
	d := DefaultLimits()
	if d.MaxOpsPayloadBytes != 256<<10 || d.MaxOpsPerCall != 200 || d.MaxExpandedLines != 100000 ||
		d.MaxRegisterLines != 4096 || d.MaxRegisterBytes != 1<<20 {
		t.Errorf("DefaultLimits() = %+v", d)
	}
	if got := LimitsFrom(config.Limits{MaxOpsPerCall: 7, MaxRegisterBytes: 9}); got.MaxOpsPerCall != 7 || got.MaxRegisterBytes != 9 {
		t.Errorf("LimitsFrom dropped configured values: %+v", got)
	}
	if (Limits{}).orDefault() != d {
		t.Errorf("a zero Limits does not mean the defaults")
	}
}

func TestFormatRoundTrips(t *testing.T) {
	ops := "[a b.go#ABCD]\nPUT 2.=3:\n+x\n+\n++y\nCUT 5*\nCUT 7.=8 @r\nPUT >9 @r\nPUT >$\nPUT <1:\n+top\nEOF NO-NEWLINE\nMV \"new dir/b.go\""
	p, err := Parse(ops, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse(p.Format(), Limits{})
	if err != nil {
		t.Fatalf("reparse of %q: %v", p.Format(), err)
	}
	if !samePatch(p, q) {
		t.Errorf("round trip changed the patch:\n%q\n%q", p.Format(), q.Format())
	}
}

// samePatch compares patches ignoring source positions and spelling.
func samePatch(a, b *Patch) bool {
	strip := func(p *Patch) Patch {
		c := *p
		c.Ops = append([]Op(nil), p.Ops...)
		for i := range c.Ops {
			c.Ops[i].Line, c.Ops[i].Header = 0, ""
			if len(c.Ops[i].Body) == 0 {
				c.Ops[i].Body = nil
			}
		}
		if c.Header != nil {
			h := *c.Header
			h.Line = 0
			c.Header = &h
		}
		c.RemLine, c.MoveLine, c.EOFLine = 0, 0, 0
		return c
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

func TestParseEOF(t *testing.T) {
	for ops, want := range map[string]EOF{
		"EOF NEWLINE":                 EOFNewline,
		"EOF NO-NEWLINE":              EOFNoNewline,
		"PUT 1.=1:\n+x\nEOF NEWLINE":  EOFNewline,
		"EOF NO-NEWLINE\nPUT >$:\n+x": EOFNoNewline,
		"PUT 1.=1:\n+x":               EOFKeep,
	} {
		p, err := Parse(ops, Limits{})
		if err != nil {
			t.Fatalf("%q: %v", ops, err)
		}
		if p.EOF != want {
			t.Errorf("%q: EOF %v, want %v", ops, p.EOF, want)
		}
	}
	// Lenient spellings are refused with the canonical form shown.
	for ops, says := range map[string]string{
		"eof newline":    "Write: EOF NEWLINE",
		"EOF no newline": "Write: EOF NO-NEWLINE",
		"EOF  NEWLINE":   "Write: EOF NEWLINE",
	} {
		_, err := Parse(ops, Limits{})
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want a refusal saying %q", ops, err, says)
		}
	}
}

func TestPatchFinal(t *testing.T) {
	p := func(e EOF) *Patch { return &Patch{EOF: e, EOFLine: 1} }
	tests := []struct {
		eof   EOF
		had   bool
		lines []string
		want  bool
		code  Code
	}{
		{EOFKeep, true, []string{"a"}, true, 0},
		{EOFKeep, false, []string{"a"}, false, 0},
		{EOFNewline, false, []string{"a"}, true, 0},
		{EOFNoNewline, true, []string{"a"}, false, 0},
		{EOFNoNewline, true, []string{"a", ""}, false, CodeRangeInvalid},
		{EOFNewline, true, nil, false, CodeRangeInvalid},
		{EOFNoNewline, true, nil, false, CodeRangeInvalid},
	}
	for _, tt := range tests {
		got, err := p(tt.eof).Final(tt.had, tt.lines)
		var he *Error
		switch {
		case tt.code == 0 && (err != nil || got != tt.want):
			t.Errorf("%v had %v %q: %v, %v; want %v", tt.eof, tt.had, tt.lines, got, err, tt.want)
		case tt.code != 0 && (!errors.As(err, &he) || he.Code != tt.code):
			t.Errorf("%v had %v %q: %v, want %s", tt.eof, tt.had, tt.lines, err, tt.code)
		}
	}
}
