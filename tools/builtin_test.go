package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/testenv"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
	"github.com/hostd-dev/hostd/workspace"
)

// prodEnv is a workspace with one session, driven through the executor
// as the daemon drives it.
type prodEnv struct {
	t    *testing.T
	root string
	lim  config.Limits
	m    *session.Manager
	s    *session.Session
	x    *Executor
	n    int
}

func newProdEnv(t *testing.T, lim config.Limits) *prodEnv {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := session.NewManager(lim)
	s, err := m.Create("", ws)
	if err != nil {
		t.Fatal(err)
	}
	x := NewExecutor(Options{Sessions: m, Limits: lim, Tools: Builtin()})
	return &prodEnv{t: t, root: root, lim: lim, m: m, s: s, x: x}
}

// put writes a file of the workspace directly, as another program would.
func (e *prodEnv) put(rel, content string) string {
	e.t.Helper()
	p := filepath.Join(e.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *prodEnv) cat(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *prodEnv) callCtx(ctx context.Context, tool string, args any) Outcome {
	e.t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			e.t.Fatal(err)
		}
		raw = string(b)
	}
	e.n++
	out, err := e.x.Execute(ctx, Request{SessionID: e.s.ID, Tool: tool, Args: json.RawMessage(raw), ToolCallID: fmt.Sprintf("tc-%d", e.n)})
	if err != nil {
		e.t.Fatalf("%s %s: protocol error %v", tool, raw, err)
	}
	return out
}

func (e *prodEnv) call(tool string, args any) Outcome {
	e.t.Helper()
	return e.callCtx(context.Background(), tool, args)
}

func (e *prodEnv) read(args any) *wire.ReadResult {
	e.t.Helper()
	out := e.call("read", args)
	r, ok := out.(*wire.ReadResult)
	if !ok {
		e.t.Fatalf("read %v failed: %s", args, out.Base().Content)
	}
	return r
}

func (e *prodEnv) grep(args any) *wire.GrepResult {
	e.t.Helper()
	out := e.call("grep", args)
	r, ok := out.(*wire.GrepResult)
	if !ok {
		e.t.Fatalf("grep %v failed: %s", args, out.Base().Content)
	}
	return r
}

func (e *prodEnv) write(args any) *wire.WriteResult {
	e.t.Helper()
	out := e.call("write", args)
	r, ok := out.(*wire.WriteResult)
	if !ok {
		e.t.Fatalf("write %v failed: %s", args, out.Base().Content)
	}
	return r
}

// failure runs a call that must fail with code and returns its message.
func (e *prodEnv) failure(tool string, args any, code string) string {
	e.t.Helper()
	r := e.call(tool, args).Base()
	if r.OK || r.Error == nil || r.Error.Code != code {
		e.t.Fatalf("%s %v: got ok=%v %+v, want %s", tool, args, r.OK, r.Error, code)
	}
	return r.Error.Message
}

// versions returns the store's versions of a workspace-relative path.
func (e *prodEnv) versions(rel string) []session.Version {
	e.t.Helper()
	abs := filepath.Join(e.root, rel)
	for _, pv := range e.s.State().Store.Dump() {
		if pv.Path == abs {
			return pv.Versions
		}
	}
	return nil
}

func (e *prodEnv) head(rel string) session.Version {
	e.t.Helper()
	vs := e.versions(rel)
	if len(vs) == 0 {
		e.t.Fatalf("nothing recorded for %s", rel)
	}
	return vs[0]
}

func TestBuiltinServesTheProducers(t *testing.T) {
	var names []string
	for _, tool := range Builtin() {
		names = append(names, tool.Name())
		if _, err := LoadDefinition(tool.Name()); err != nil {
			t.Errorf("%s: %v", tool.Name(), err)
		}
	}
	for _, want := range []string{"read", "grep", "write"} {
		if !slices.Contains(names, want) {
			t.Errorf("Builtin() lacks %s", want)
		}
	}
}

// The input schemas must name exactly the arguments the tools accept: a
// drifted schema would have the model send arguments DecodeArgs rejects.
func TestDefinitionsMatchArguments(t *testing.T) {
	for name, args := range map[string]any{"read": readArgs{}, "grep": grepArgs{}, "write": writeArgs{}} {
		d, err := LoadDefinition(name)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		var inSchema, inStruct []string
		for p := range schema.Properties {
			inSchema = append(inSchema, p)
		}
		b, _ := json.Marshal(args)
		var fields map[string]any
		json.Unmarshal(b, &fields)
		for f := range fields {
			inStruct = append(inStruct, f)
		}
		slices.Sort(inSchema)
		slices.Sort(inStruct)
		if !slices.Equal(inSchema, inStruct) {
			t.Errorf("%s: schema properties %v, arguments %v", name, inSchema, inStruct)
		}
	}
}

// TestProducersGolden replays the exchanges of testdata/producers. Each
// archive sets up a workspace from its "ws/..." files (a name may end with
// "(crlf)", "(bom)" or "(nul)": LF becomes CRLF, a BOM is prepended, a
// NUL byte appended), optionally overrides limits with a "limits" JSON
// section, runs the "calls" section one line at a time (TOOL ARGS, "cat
// PATH" or "store") and compares the transcript with "want". Run with
// -update to rewrite "want".
func TestProducersGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/producers/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden exchanges in testdata/producers")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			lim := config.DefaultLimits()
			var calls, want string
			wantAt := -1
			for i, f := range ar.Files {
				switch {
				case f.Name == "limits":
					if err := json.Unmarshal(f.Data, &lim); err != nil {
						t.Fatal(err)
					}
				case f.Name == "calls":
					calls = string(f.Data)
				case f.Name == "want":
					want, wantAt = string(f.Data), i
				}
			}
			e := newProdEnv(t, lim)
			for _, f := range ar.Files {
				if rel, ok := strings.CutPrefix(f.Name, "ws/"); ok {
					e.put(goldenFile(rel, string(f.Data)))
				}
			}
			got := e.transcript(calls)
			if testenv.Update() {
				if wantAt < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					wantAt = len(ar.Files) - 1
				}
				ar.Files[wantAt].Data = []byte(got)
				if err := os.WriteFile(name, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("transcript differs from want (rerun with -update to accept):\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

func goldenFile(rel, data string) (string, string) {
	name, attrs, _ := strings.Cut(rel, " (")
	for _, a := range strings.Split(strings.TrimSuffix(attrs, ")"), ",") {
		switch strings.TrimSpace(a) {
		case "crlf":
			data = strings.ReplaceAll(data, "\n", "\r\n")
		case "bom":
			data = "\xEF\xBB\xBF" + data
		case "nul":
			data += "\x00"
		}
	}
	return name, data
}

func (e *prodEnv) transcript(calls string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(calls), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fmt.Fprintf(&b, "> %s\n", line)
		verb, arg, _ := strings.Cut(line, " ")
		switch verb {
		case "cat":
			fmt.Fprintf(&b, "%q\n", e.cat(arg))
		case "store":
			for _, pv := range e.s.State().Store.Dump() {
				rel, _ := filepath.Rel(e.root, pv.Path)
				for _, v := range pv.Versions {
					seen, _ := json.Marshal(v.Seen)
					fmt.Fprintf(&b, "%s #%s lines=%d bytes=%d retained=%v seen=%s\n", rel, v.Tag, v.Lines, v.Bytes, v.Retained, seen)
				}
			}
		default:
			b.WriteString(renderOutcome(e.call(verb, arg)))
		}
	}
	// Messages may name the workspace root; it differs on every run.
	return strings.ReplaceAll(b.String(), filepath.Dir(e.root), "$TMP")
}

// renderOutcome prints a result for a transcript: the content as the
// model sees it, then every other field as sorted JSON.
func renderOutcome(o Outcome) string {
	raw, _ := json.Marshal(o)
	var fields map[string]any
	json.Unmarshal(raw, &fields)
	delete(fields, "content")
	delete(fields, "toolCallId")
	rest, _ := json.Marshal(fields)
	var b strings.Builder
	for _, l := range strings.Split(o.Base().Content, "\n") {
		b.WriteString("| " + l + "\n")
	}
	b.WriteString(string(rest) + "\n")
	return b.String()
}
