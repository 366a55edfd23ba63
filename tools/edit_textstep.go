package tools

import (
	"errors"
	"strings"

	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// TextEdit is an edit applied to a file's text: the language's result,
// the new text as runs of the file's own lines (Copies) and new Rows, and
// the bytes to write.
type TextEdit struct {
	Result hashline.Result
	// Final says whether the new text ends with a newline.
	Final bool
	Data  []byte
	// NoChange says the ops left every line as it was: only an EOF op
	// may still change the file.
	NoChange bool
}

// EditText is the edit tool's text step: ir (lowered, expanded and
// validated for x) applied to the file's line index, and the new bytes
// encoded from the copies and rows, so that untouched lines keep their
// bytes and endings (edit-contract §3.1) and no line the edit leaves alone
// is split out or rebuilt. t is the file decoded from its bytes and x is
// t.Index of them. The EOF op of p decides the final newline. Edits that
// leave every line as it was return ErrNoChange unless p has an EOF op,
// which may still change the file: the caller's no-op check decides.
// hostbench section 2 times this same function as the edit tool's path.
func EditText(t workspace.Text, x workspace.Index, ir hashline.IR, p *hashline.Patch) (TextEdit, error) {
	res, err := hashline.ApplyText(x, ir)
	if err != nil {
		if !errors.Is(err, hashline.ErrNoChange) || p.EOF == hashline.EOFKeep {
			return TextEdit{}, err
		}
		te, err := encodeText(t, x, unchanged(x.Len()), p)
		te.NoChange = true
		return te, err
	}
	return encodeText(t, x, res, p)
}

// encodeText is EditText's second half, for a result already applied to
// x's lines (drift recovery applies its own, or a bare MV copies all).
func encodeText(t workspace.Text, x workspace.Index, res hashline.Result, p *hashline.Patch) (TextEdit, error) {
	final, err := p.FinalText(trailingNewline(t.Body), res.View(x))
	if err != nil {
		return TextEdit{}, err
	}
	data, err := t.EncodeRows(x, res.Rows, copiesOf(res.Copies), final)
	if err != nil {
		return TextEdit{}, err
	}
	return TextEdit{Result: res, Final: final, Data: data}, nil
}

// unchanged is the result of an edit that keeps all n lines.
func unchanged(n int) hashline.Result {
	var res hashline.Result
	if n > 0 {
		res.Copies = []hashline.Copy{{New: 1, Old: 1, N: n}}
	}
	return res
}

// trailingNewline says whether a body ends with a newline; an empty body
// counts as one, so adding lines to it ends them with one.
func trailingNewline(body string) bool {
	return body == "" || strings.HasSuffix(body, "\n")
}

// EditPath is the edit tool's text path without its gates, for
// benchmarks: the file decoded and indexed as the tool loads it, the edit
// language's pipeline (hashline.Plan, with the checker and resolver env
// carries), then EditText; it returns the bytes the tool would write. The
// tool runs the same pipeline with the version and provenance gates in
// env.Gate; cmd/hostbench section 2 and BenchmarkTextPath time this.
func EditPath(raw []byte, ops string, env hashline.Env) ([]byte, error) {
	p, err := hashline.Parse(ops, env.Limits)
	if err != nil {
		return nil, err
	}
	t, err := workspace.DecodeOwned(raw)
	if err != nil {
		return nil, err
	}
	x, err := t.Index(raw)
	if err != nil {
		return nil, err
	}
	ir, _, err := hashline.Plan(x, p, env)
	if err != nil {
		return nil, err
	}
	te, err := EditText(t, x, ir, p)
	if err != nil {
		return nil, err
	}
	return te.Data, nil
}
