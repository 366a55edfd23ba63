package blocks

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
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
	// The check answers by its time whatever the parser does; the
	// reader's cut is what ends the parse itself, soon after.
	deadline := time.Now().Add(5 * time.Second)
	for {
		overruns.mu.Lock()
		n := overruns.running
		overruns.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the parse still runs %v after its time", time.Since(start))
		}
		time.Sleep(10 * time.Millisecond)
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

// waitOverrunsEnded waits until no parse left to finish alone still runs,
// so that a test's background parses do not outlive it.
func waitOverrunsEnded(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		overruns.mu.Lock()
		n := overruns.running
		overruns.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d overrunning parses still run after a minute", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestParseStress (HOSTD_STRESS=long) found Lua and Swift texts whose
// parse the reader's cut cannot stop: in error recovery the lexer rescans
// text it was already handed, once per character skipped (256 KiB of
// quotes as Lua took over three minutes with a one-second limit). The
// caller still gets its answer at its limit: parse leaves the overrunning
// parse to finish in the background on a demoted thread, refuses the
// same text at once afterwards, and starts no parse while maxOverrunning
// others still run. A grammar does not overrun reliably, so a hook stands
// for one that takes a second.
func TestAParseThatOverrunsIsLeftBehind(t *testing.T) {
	waitOverrunsEnded(t) // an earlier test's, which would count here
	const limit = 100 * time.Millisecond
	testHookParse = func(text string) {
		if strings.HasPrefix(text, "-- slow") {
			time.Sleep(time.Second)
		}
	}
	defer func() { waitOverrunsEnded(t); testHookParse = nil }()
	lua := languages["lua"]
	// Each run's texts are new: the daemon-wide memory of texts that
	// overran outlives a run (go test -count).
	run := strconv.FormatInt(time.Now().UnixNano(), 10)
	texts := []string{"-- slow " + run + " a\n", "-- slow " + run + " b\n", "-- slow " + run + " c\n"}

	start := time.Now()
	tree, why, reason := parse(context.Background(), lua, texts[0], nil, limit)
	if d := time.Since(start); d > limit+overrunGrace+500*time.Millisecond {
		t.Errorf("the parse answered after %v with a limit of %v", d, limit)
	}
	if tree != nil || why != timeout || reason != "100ms" {
		t.Fatalf("parse = %v, %v, %q; want a timeout of 100ms", tree, why, reason)
	}
	if runtime.GOOS == "linux" && demotedThreads(t) != 1 {
		t.Errorf("%d threads at the lowest priority, want the overrunning parse's", demotedThreads(t))
	}
	start = time.Now()
	if _, why, reason := parse(context.Background(), lua, texts[0], nil, limit); why != timeout || !strings.Contains(reason, "overran its parse time before") || time.Since(start) >= limit+overrunGrace {
		t.Errorf("the same text again: %v, %q after %v; want an immediate refusal", why, reason, time.Since(start))
	}
	if _, why, _ := parse(context.Background(), lua, texts[1], nil, limit); why != timeout {
		t.Fatalf("a second overrunning text parsed (%v)", why)
	}
	start = time.Now()
	if _, why, reason := parse(context.Background(), lua, texts[2], nil, limit); why != timeout || !strings.Contains(reason, "2 earlier texts that overran theirs are still being parsed") || time.Since(start) >= limit+overrunGrace {
		t.Errorf("a third text while two overrun: %v, %q after %v; want an immediate refusal", why, reason, time.Since(start))
	}
	// While two overrun every parse is refused; once they have ended, an
	// ordinary text parses as ever, and no demoted thread is left.
	waitOverrunsEnded(t)
	if runtime.GOOS == "linux" {
		deadline := time.Now().Add(5 * time.Second)
		for demotedThreads(t) != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := demotedThreads(t); n != 0 {
			t.Errorf("%d demoted threads outlived their parses", n)
		}
	}
	tree, why, _ = parse(context.Background(), lua, "local x = 1\n", nil, limit)
	if tree == nil || why != parsed {
		t.Fatalf("an ordinary text after the overruns: %v", why)
	}
	tree.Close()
}

// demotedThreads counts this process's threads at nice 19 (Linux).
func demotedThreads(t *testing.T) int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/self/task/*/stat")
	n := 0
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the thread ended meanwhile
		}
		// Fields after the command, which is in parentheses: state is
		// field 3, nice field 19.
		_, rest, ok := strings.Cut(string(data), ") ")
		if f := strings.Fields(rest); ok && len(f) > 16 && f[16] == "19" {
			n++
		}
	}
	return n
}
