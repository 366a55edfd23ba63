package blocks

import (
	"context"
	"strings"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
)

// TestParseTimeHoldsInsideLexing: an unterminated bash heredoc of quotes
// makes error recovery lex the rest of the text once per character, all
// in one parse operation, where tree-sitter never looks at its clock
// (TestParseStress found it: 240 KB held a parse for minutes; 100 KB
// takes about 20 s). The parse still ends near the call's deadline, in
// the process that made it: the reader cuts the text.
func TestParseTimeHoldsInsideLexing(t *testing.T) {
	text := "cat <<END\nte" + strings.Repeat("'", 100_000) + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	s, err := NewSyntaxContext(ctx, "a.sh", text, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	// The verdict is that the check was cut short by its time (Spent),
	// not how long a loaded machine took to get there; a check that the
	// time did not end would run for minutes, into the test's timeout.
	start := time.Now()
	sup, _ := s.Check(text)
	t.Logf("the check ended after %v with a 500ms parse time", time.Since(start))
	if sup || !s.Spent() {
		t.Errorf("supported=%v spent=%v; want a check cut short by its time", sup, s.Spent())
	}
}

// Once the time is up the reader ends the text where it has served
// chunks so far, and serves those chunks again: answering "end of text"
// for an offset it had served left the parser inconsistent, and the bash
// scanner spun forever (one run in a hundred of the test above hung).
func TestReaderEndsTheTextConsistently(t *testing.T) {
	text := []byte(strings.Repeat("x", 3*readChunk))
	ctx, cancel := context.WithCancel(context.Background())
	r := &reader{ctx: ctx, text: text, deadline: time.Now().Add(time.Hour)}
	if got := r.read(0, sitter.Point{}); len(got) != readChunk {
		t.Fatalf("first chunk %d bytes", len(got))
	}
	if got := r.read(readChunk, sitter.Point{}); len(got) != readChunk {
		t.Fatalf("second chunk %d bytes", len(got))
	}
	cancel()
	if got := r.read(readChunk/2, sitter.Point{}); len(got) != readChunk {
		t.Fatalf("after the cut, text already served must be served again: %d bytes", len(got))
	}
	if got := r.read(2*readChunk, sitter.Point{}); got != nil || !r.cut {
		t.Fatalf("after the cut the text must end where it was served: %d bytes, cut %v", len(got), r.cut)
	}
}
