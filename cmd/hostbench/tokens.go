package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hostd-dev/hostd/tools/hashline"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// This file builds, for each replacement of the token benchmark, the exact
// text each contract makes the model emit, and counts its cl100k_base
// tokens. The builders are pure so the unit tests can hold them to the
// published figures.

// benchEdit is one replacement of the token benchmark (edits.json).
// Orig* are line numbers in the original file; Seq* are the numbers once
// every earlier replacement has been applied in list order.
type benchEdit struct {
	I           int      `json:"i"`
	Note        string   `json:"note"`
	Span        int      `json:"span"`
	OrigStart   int      `json:"orig_start"`
	OrigEnd     int      `json:"orig_end"`
	SeqStart    int      `json:"seq_start"`
	SeqEnd      int      `json:"seq_end"`
	Replacement []string `json:"replacement"`
}

// tokenCorpus is the token benchmark: a file and its replacements.
type tokenCorpus struct {
	Text  string
	Edits []benchEdit
}

// benchPath is the path every arm names, as the published benchmark does.
const benchPath = "src/shopping-cart.ts"

func loadTokenCorpus(dir string) (tokenCorpus, error) {
	dir = filepath.Join(dir, "token-bench")
	text, err := os.ReadFile(filepath.Join(dir, "shopping-cart.ts"))
	if err != nil {
		return tokenCorpus{}, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "edits.json"))
	if err != nil {
		return tokenCorpus{}, err
	}
	c := tokenCorpus{Text: string(text)}
	if err := json.Unmarshal(raw, &c.Edits); err != nil {
		return tokenCorpus{}, fmt.Errorf("edits.json: %w", err)
	}
	if len(c.Edits) == 0 {
		return tokenCorpus{}, fmt.Errorf("edits.json: no edits")
	}
	return c, nil
}

// cl100k counts tokens with the cl100k_base encoding. The loader ships the
// encoding inside the binary, so counting needs no network.
type cl100k struct{ enc *tiktoken.Tiktoken }

var (
	encOnce sync.Once
	encErr  error
	encVal  *tiktoken.Tiktoken
)

func newCL100k() (cl100k, error) {
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		encVal, encErr = tiktoken.GetEncoding("cl100k_base")
	})
	return cl100k{enc: encVal}, encErr
}

// Count is the number of tokens of s, with special-token text counted as
// ordinary text (a payload is data, never control).
func (c cl100k) Count(s string) int { return len(c.enc.EncodeOrdinary(s)) }

// jsonArgs marshals tool-call arguments the way a model's tool call
// carries them and JSON.stringify writes them: keys in the given order, no
// spaces, and <, >, & left as they are (Go escapes them by default, which
// would inflate every payload holding a generic type or an arrow).
func jsonArgs(kv ...any) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonValue(kv[i]))
		b.WriteByte(':')
		b.WriteString(jsonValue(kv[i+1]))
	}
	b.WriteByte('}')
	return b.String()
}

func jsonValue(v any) string {
	if raw, ok := v.(json.RawMessage); ok {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // only strings and string slices reach here, which always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// putOp is one replacement as an op of this project's edit language (and
// of oh-my-pi's, whose PUT syntax is the same).
func putOp(start, end int, lines []string) string {
	return fmt.Sprintf("PUT %d.=%d:\n%s", start, end, hashline.Body(lines))
}

// hostdOp is one replacement as this project's edit tool teaches it: a
// one-line range in its one-line spelling, "PUT 7:" (edit-contract §7.1).
func hostdOp(start, end int, lines []string) string {
	if start == end {
		return fmt.Sprintf("PUT %d:\n%s", start, hashline.Body(lines))
	}
	return putOp(start, end, lines)
}

// hostdEditArgs are the arguments of this project's edit tool with the
// tag in its own argument.
func hostdEditArgs(path, tag, ops string) string {
	return jsonArgs("path", path, "tag", tag, "ops", ops)
}

// hostdArgs are the arguments of this project's edit tool as its
// description teaches them: the path spelled as the header shows it,
// PATH#TAG (edit-contract §6).
func hostdArgs(path, tag, ops string) string {
	return jsonArgs("path", path+"#"+tag, "ops", ops)
}

// strReplaceArgs are the arguments of a str_replace tool: the replaced
// text is echoed verbatim.
func strReplaceArgs(path, old, new string) string {
	return jsonArgs("path", path, "old_string", old, "new_string", new)
}

// ompSection is one oh-my-pi patch section: the [PATH#TAG] header and the
// ops under it.
func ompSection(path, tag, ops string) string {
	return "[" + path + "#" + tag + "]\n" + ops
}

// ompWrapped is an oh-my-pi patch as the argument of a tool call: the
// patch inside a JSON string, newlines escaped, as a model emits it.
func ompWrapped(patch string) string { return jsonArgs("input", patch) }

// dshArgs is dsh-hashline-edittool's edit call for one replacement: the
// edits[] shape with two bare anchors (its README, "edit").
func dshArgs(path, startAnchor, endAnchor string, lines []string) string {
	edit := jsonArgs("op", "replace", "anchor_start", startAnchor, "anchor_end", endAnchor, "lines", json.RawMessage(jsonValue(lines)))
	return jsonArgs("path", path, "edits", json.RawMessage("["+edit+"]"))
}

// base62Anchor is a dsh-style 2-character Base62 anchor for a 0-based
// line index (distinct per line; 2 characters cover 3,844 lines).
func base62Anchor(i int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	return string([]byte{alphabet[(i/62)%62], alphabet[i%62]})
}

// batchOps is every replacement as one ops text in original line numbers,
// ordered by line, as one call (or one oh-my-pi document) carries them;
// op spells each replacement.
func batchOps(edits []benchEdit, op func(start, end int, lines []string) string) string {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b benchEdit) int { return a.OrigStart - b.OrigStart })
	ops := make([]string, len(sorted))
	for i, e := range sorted {
		ops[i] = op(e.OrigStart, e.OrigEnd, e.Replacement)
	}
	return strings.Join(ops, "\n")
}

// overlapping returns the pairs (by edit number) whose original ranges
// overlap: one call anchored on the original file cannot carry both.
func overlapping(edits []benchEdit) [][2]int {
	var out [][2]int
	for i, a := range edits {
		for _, b := range edits[i+1:] {
			if a.OrigStart <= b.OrigEnd && b.OrigStart <= a.OrigEnd {
				out = append(out, [2]int{a.I, b.I})
			}
		}
	}
	return out
}

// numberedSnippet is what str_replace tools typically return after an
// edit: the changed lines with four lines of context each side, numbered
// as `cat -n` numbers them.
func numberedSnippet(path string, lines []string, from, to int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The file %s has been edited. Here's the result of running `cat -n` on a snippet of %s:\n", path, path)
	for n := max(1, from-4); n <= min(len(lines), to+4); n++ {
		fmt.Fprintf(&b, "%6d\t%s\n", n, lines[n-1])
	}
	return b.String()
}

// catN is a whole file numbered as `cat -n` numbers it: the read output of
// str_replace-style tools, for scale beside this project's read.
func catN(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	return b.String()
}
