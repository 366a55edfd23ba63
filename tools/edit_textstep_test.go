package tools

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/benchkit"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// splitEdit is the edit tool's text step as it was before EditText: the
// file split into lines, Apply building the new lines, Final on them,
// EncodeEdit. EditText must write the same bytes.
func splitEdit(raw []byte, ir hashline.IR, p *hashline.Patch) ([]byte, error) {
	t, err := workspace.DecodeOwned(raw)
	if err != nil {
		return nil, err
	}
	old := workspace.Lines(t.Body)
	res, err := hashline.Apply(old, ir)
	if errors.Is(err, hashline.ErrNoChange) && p.EOF != hashline.EOFKeep {
		res, err = hashline.Result{Lines: old}, nil
		if len(old) > 0 {
			res.Copies = []hashline.Copy{{New: 1, Old: 1, N: len(old)}}
		}
	}
	if err != nil {
		return nil, err
	}
	final, err := p.Final(trailingNewline(t.Body), res.Lines)
	if err != nil {
		return nil, err
	}
	return t.EncodeEdit(raw, old, res.Lines, copiesOf(res.Copies), final), nil
}

// lowerFor parses ops and plans them for x through the edit language's
// pipeline, as the tool does (no checker).
func lowerFor(t *testing.T, ops string, x hashline.Text) (*hashline.Patch, hashline.IR, error) {
	t.Helper()
	lim := hashline.DefaultLimits()
	p, err := hashline.Parse(ops, lim)
	if err != nil {
		t.Fatalf("%q: %v", ops, err)
	}
	ir, _, err := hashline.Plan(x, p, hashline.Env{Limits: lim})
	return p, ir, err
}

// TestEditTextAgreesWithTheSplitPath: the tool's text step on the line
// index writes the bytes the split path writes, and fails the same way,
// on LF, CRLF and mixed files, with a BOM, without a final newline, and
// with EOF ops that change only the last line's ending.
func TestEditTextAgreesWithTheSplitPath(t *testing.T) {
	mixed := append([]byte("\xEF\xBB\xBF"), textPathFile(40, "\r\n")...)
	mixed = append(mixed, textPathFile(60, "\n")...)
	unterminated := strings.TrimSuffix(string(textPathFile(100, "\r\n")), "\r\n")
	files := map[string][]byte{
		"LF": textPathFile(100, "\n"), "CRLF": textPathFile(100, "\r\n"), "BOM+mixed": mixed,
		"unterminated CRLF": []byte(unterminated), "one empty line": []byte("\n"),
	}
	opsList := []string{
		singleOp100, benchkit.SpreadOps(20, 100), "CUT 3.=5\nPUT >90:\n+x",
		"EOF NO-NEWLINE", "EOF NEWLINE", "PUT >$:\n+tail\nEOF NO-NEWLINE",
		"CUT 1.=%d", "CUT 1.=%d\nEOF NEWLINE", "PUT 1.=1:\n+\nEOF NO-NEWLINE",
		// Lines left as they were, and only the ending changes.
		"PUT 1.=1:\n+%s\nEOF NO-NEWLINE", "PUT 1.=1:\n+%s\nEOF NEWLINE",
	}
	compared := 0
	for name, raw := range files {
		tx, err := workspace.DecodeOwned(raw)
		if err != nil {
			t.Fatal(err)
		}
		x, err := tx.Index(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, ops := range opsList {
			if strings.Contains(ops, "1.=1:") && x.Len() != 1 {
				continue
			}
			switch {
			case strings.Contains(ops, "%d"):
				ops = fmt.Sprintf(ops, x.Len())
			case strings.Contains(ops, "%s"):
				ops = fmt.Sprintf(ops, x.Line(1))
			}
			t.Run(fmt.Sprintf("%s/%.20q", name, ops), func(t *testing.T) {
				p, ir, lerr := lowerFor(t, ops, x)
				if lerr != nil {
					return // a refusal before the text step
				}
				want, werr := splitEdit(raw, ir, p)
				got, gerr := EditText(tx, x, ir, p)
				if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
					t.Fatalf("errors differ: EditText %v, split path %v", gerr, werr)
				}
				if werr != nil {
					return
				}
				compared++
				if string(got.Data) != string(want) {
					t.Errorf("EditText wrote %q, the split path %q", got.Data, want)
				}
			})
		}
	}
	if compared < 30 {
		t.Errorf("only %d edits reached the text step; the cases no longer test it", compared)
	}
}
