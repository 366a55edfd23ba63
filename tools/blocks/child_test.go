package blocks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/hostd-dev/hostd/config"
)

// A grammar's C code can abort the process (assert, heap corruption), and
// a test that parses in its own process dies with it before it can say
// which input did it. The tests below parse in a child: this test binary
// started again with childEnv set, which TestMain turns into a parse
// server reading requests on stdin and answering each on stdout. When the
// child dies, the parent still runs, names the input, and starts a new
// child for the next one.

// childEnv switches a test binary into the parse server.
const childEnv = "HOSTD_BLOCKS_PARSE_CHILD"

// How the child parses a request.
const (
	// modeGuarded goes through the package's API, as the daemon does:
	// one tree cache for the child's life (childTrees), a syntax check
	// and a resolver from it, with every pre-check. Each input is a new
	// version of one file per grammar, so it is parsed incrementally from
	// the tree of the grammar's previous input, as an edit's next version
	// is.
	modeGuarded byte = 'g'
	// modeRaw hands the text straight to the grammar, with no pre-check:
	// it finds what the grammars do, for the pre-checks to cover.
	modeRaw byte = 'r'
)

// childHang is how long the parent waits for one answer before it kills
// the child and reports a hang. A parse has its own time bound, far
// below this.
const childHang = 2 * time.Minute

// rawTimeout bounds a raw parse. The raw mode looks for aborts, not for
// slow inputs (the API bounds those): a short bound tries more inputs.
const rawTimeout = 2 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if err := serveParses(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "parse child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveParses is the child: one request is a mode byte, the grammar name
// (a length byte and the name), the text (a 4-byte big-endian length and
// the bytes); the answer is one byte.
func serveParses(in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	for {
		var head [2]byte
		if _, err := io.ReadFull(r, head[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		name := make([]byte, head[1])
		var size [4]byte
		if _, err := io.ReadFull(r, name); err != nil {
			return err
		}
		if _, err := io.ReadFull(r, size[:]); err != nil {
			return err
		}
		text := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(r, text); err != nil {
			return err
		}
		answer := childParse(head[0], string(name), string(text))
		if _, err := out.Write([]byte{answer}); err != nil {
			return err
		}
	}
}

// Answers of the child.
const (
	answerClean       byte = 'c' // parsed, no syntax error
	answerErrors      byte = 'e' // parsed, with syntax errors
	answerUnsupported byte = 'u' // not parsed, or the parse was cut short
)

// childTrees is the guarded mode's tree cache, with the daemon's bound.
var childTrees = func() *Trees {
	t, err := NewTrees(config.DefaultLimits().MaxParseTreeBytes)
	if err != nil {
		panic(err)
	}
	return t
}()

// childParse parses text in the grammar called name.
func childParse(mode byte, name, text string) byte {
	lang := languages[name]
	if mode == modeRaw {
		p := sitter.NewParser()
		defer p.Close()
		p.SetLanguage(lang.grammar())
		p.SetOperationLimit(int(rawTimeout / time.Microsecond))
		tree, err := p.ParseCtx(context.Background(), nil, []byte(text))
		if err != nil {
			return answerUnsupported
		}
		defer tree.Close()
		if tree.RootNode().HasError() {
			return answerErrors
		}
		return answerClean
	}
	// One edit call's parse time for both, as the daemon gives them.
	ctx, cancel := context.WithTimeout(context.Background(), config.DefaultLimits().ParseBudget())
	defer cancel()
	path := pathFor(name)
	s, err := childTrees.NewSyntax(ctx, path, text, defaultLimit)
	if err != nil {
		panic(err)
	}
	sup, clean := s.Check(text)
	r, err := childTrees.NewResolver(ctx, path, text, defaultLimit)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	// Resolve a few lines: the first parses, the others walk the tree.
	n := CountLines(text)
	for _, line := range []int{1, n / 2, n} {
		if line >= 1 {
			_, _, _ = r.Resolve(line)
		}
	}
	switch {
	case !sup:
		return answerUnsupported
	case clean:
		return answerClean
	}
	return answerErrors
}

// pathFor is a file name the grammar called name is picked for.
func pathFor(name string) string {
	for ext, n := range fileTypes {
		if n == name && strings.HasPrefix(ext, ".") {
			return "input" + ext
		}
	}
	panic("no file type for grammar " + name)
}

// parseChild is the parent's side: a child process it starts on demand
// and again after each death. Not safe for concurrent use.
type parseChild struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *os.File
	stderr *bytes.Buffer
	starts int
}

// childDeath describes a parse that took the child down.
type childDeath struct {
	Hang   bool   // no answer within childHang; the child was killed
	State  string // how the process ended
	Stderr string // the end of what it wrote to stderr
}

func (d *childDeath) String() string {
	if d.Hang {
		return "no answer within " + childHang.String() + "; the child was killed"
	}
	return d.State + ": " + d.Stderr
}

func (c *parseChild) start() error {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout = pw
	c.stderr = &bytes.Buffer{}
	cmd.Stderr = &tailWriter{buf: c.stderr, max: 4 << 10}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return err
	}
	pw.Close()
	c.cmd, c.in, c.out = cmd, in, pr
	c.starts++
	return nil
}

// parse sends one request. A nil death means the child answered.
func (c *parseChild) parse(mode byte, name, text string) (byte, *childDeath, error) {
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return 0, nil, err
		}
	}
	req := make([]byte, 0, 2+len(name)+4+len(text))
	req = append(req, mode, byte(len(name)))
	req = append(req, name...)
	req = binary.BigEndian.AppendUint32(req, uint32(len(text)))
	req = append(req, text...)
	// A dying child closes its stdin; the write error is the same death
	// the read below reports, so it is not returned on its own.
	_, _ = c.in.Write(req)
	var answer [1]byte
	if err := c.out.SetReadDeadline(time.Now().Add(childHang)); err != nil {
		return 0, nil, err
	}
	_, err := io.ReadFull(c.out, answer[:])
	if err == nil {
		return answer[0], nil, nil
	}
	d := &childDeath{Hang: errors.Is(err, os.ErrDeadlineExceeded)}
	if d.Hang {
		_ = c.cmd.Process.Kill()
	}
	_ = c.cmd.Wait()
	d.State = c.cmd.ProcessState.String()
	d.Stderr = firstLines(c.stderr.String(), 3)
	c.close()
	return 0, d, nil
}

func (c *parseChild) close() {
	if c.cmd == nil {
		return
	}
	c.in.Close()
	if c.cmd.ProcessState == nil {
		_ = c.cmd.Wait()
	}
	c.out.Close()
	c.cmd = nil
}

// tailWriter keeps the first max bytes written: the assertion message
// comes first, the goroutine dump after it.
type tailWriter struct {
	mu  sync.Mutex
	buf *bytes.Buffer
	max int
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], " | ")
}

// newParseChild returns a child closed when the test ends.
func newParseChild(t testing.TB) *parseChild {
	t.Helper()
	c := &parseChild{}
	t.Cleanup(c.close)
	return c
}
