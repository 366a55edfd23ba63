package blocks

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestParseTimeHoldsInsideLexing: an unterminated bash heredoc of quotes
// makes error recovery lex the rest of the text once per character, all
// in one parse operation, where tree-sitter never looks at its clock
// (TestParseStress found it: 240 KB held a parse for minutes; 100 KB
// takes about 20 s). The parse still ends near the call's deadline.
func TestParseTimeHoldsInsideLexing(t *testing.T) {
	text := "cat <<END\nte" + strings.Repeat("'", 100_000) + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	s, err := NewSyntaxContext(ctx, "a.sh", text, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	sup, _ := s.Check(text)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the check took %v with a 500ms parse time", d)
	}
	if sup || !s.Spent() {
		t.Errorf("supported=%v spent=%v; want a check cut short by its time", sup, s.Spent())
	}
}
