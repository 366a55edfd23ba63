package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// crashRig runs hostd again and again on one state directory, socket and
// workspace, and kills it with SIGKILL the way a power cut or the OOM
// killer would: no deferred function, no flush, no socket removal. Each
// start re-attaches the same session id, as a client does after a crash.
type crashRig struct {
	t       *testing.T
	state   string
	socket  string
	ws      string
	session string
	d       *daemon
	c       *jsonrpc2.Conn
	args    []string // extra flags for every start
	// bin and env, when set, start that binary with env added to the
	// environment (a hostd built with test hooks).
	bin string
	env []string
}

func newCrashRig(t *testing.T) *crashRig { return newCrashRigWith(t) }

// newCrashRigWith is newCrashRig of a hostd started with the extra flags
// args as well, every time.
func newCrashRigWith(t *testing.T, args ...string) *crashRig {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &crashRig{
		t:       t,
		state:   t.TempDir(),
		socket:  filepath.Join(shortDir(t), "hostd.sock"),
		ws:      ws,
		session: "crash-session",
		args:    args,
	}
	r.start()
	return r
}

// start runs hostd on the rig's state directory and re-attaches the
// session. hostd prints "listening on" only after the review store has
// settled whatever the previous process left, so the disk is final here.
func (r *crashRig) start() {
	r.t.Helper()
	bin := r.bin
	if bin == "" {
		bin = hostdBinary(r.t)
	}
	d := launchBinary(r.t, bin, r.env, append([]string{"--socket", r.socket, "--state-dir", r.state}, r.args...)...)
	d.socket = r.socket
	d.Require(testenv.Listening(r.socket), 30*time.Second) // on the state directory it crashed with
	r.d, r.c = d, d.client()
	mustCall(r.t, r.c, "session.create", map[string]any{"workspace": r.ws, "sessionId": r.session}, nil)
}

// kill sends SIGKILL and waits until the process is gone.
func (r *crashRig) kill() {
	r.t.Helper()
	r.c.Close()
	r.d.Kill()
}

// stop shuts hostd down with SIGTERM, as a service manager does, and
// waits for its orderly exit.
func (r *crashRig) stop() {
	r.t.Helper()
	r.c.Close()
	if err := r.d.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		r.t.Fatal(err)
	}
	if code := r.d.wait(30 * time.Second); code != 0 {
		r.t.Fatalf("hostd exited %d on SIGTERM:\n%s", code, r.d.output())
	}
}

// settledAtStart reports whether the running hostd found an unfinished
// mutation or rollback when it started (review.Open logs each one).
func (r *crashRig) settledAtStart() bool {
	return strings.Contains(r.d.output(), "settled an interrupted change")
}

// exec runs one tool call to its end and returns its result.
func (r *crashRig) exec(tool, callID string, args map[string]any) map[string]any {
	r.t.Helper()
	var res map[string]any
	mustCall(r.t, r.c, "tools.execute", r.toolCall(tool, callID, args), &res)
	if res["ok"] != true {
		r.t.Fatalf("%s %s: %v", tool, callID, res)
	}
	return res
}

func (r *crashRig) toolCall(tool, callID string, args map[string]any) map[string]any {
	return map[string]any{"sessionId": r.session, "tool": tool, "toolCallId": callID, "args": args}
}

// readTag reads a file through hostd, so the session may edit it.
func (r *crashRig) readTag(rel string) string {
	r.t.Helper()
	var res map[string]any
	mustCall(r.t, r.c, "tools.execute", map[string]any{"sessionId": r.session, "tool": "read", "args": map[string]any{"path": rel}}, &res)
	tag, _ := res["tag"].(string)
	if res["ok"] != true || tag == "" {
		r.t.Fatalf("read %s: %v", rel, res)
	}
	return tag
}

// send writes one request on a connection of its own and returns without
// waiting for the answer: the caller kills hostd while it works.
func (r *crashRig) send(method string, params any) net.Conn {
	r.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		r.t.Fatal(err)
	}
	nc, err := net.Dial("unix", r.socket)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(nc, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		r.t.Fatal(err)
	}
	return nc
}

// reviewEntry is the part of a ReviewEntry (wire-contract §5) the checks use.
type reviewEntry struct {
	ID           string `json:"id"`
	ToolCallID   string `json:"toolCallId"`
	Path         string `json:"path"`
	Change       string `json:"change"`
	BeforeSHA256 string `json:"beforeSha256"`
	AfterSHA256  string `json:"afterSha256"`
	Diff         string `json:"diff"`
	At           string `json:"at"`
	RolledBack   bool   `json:"rolledBack"`
}

// entries lists the review entries of a case's tool call. It asks
// review.list for each of the case's paths: the session's whole list grows
// with every case and carries every diff.
func (r *crashRig) entries(cc crashCase) []reviewEntry {
	r.t.Helper()
	seen := map[string]bool{}
	var out []reviewEntry
	for p := range cc.before {
		var list struct{ Entries []reviewEntry }
		mustCall(r.t, r.c, "review.list", map[string]any{"sessionId": r.session, "path": p}, &list)
		for _, e := range list.Entries {
			if e.ToolCallID == cc.callID && !seen[e.ID] {
				seen[e.ID] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// list is review.list of the session, every entry.
func (r *crashRig) list() []reviewEntry {
	r.t.Helper()
	var list struct{ Entries []reviewEntry }
	mustCall(r.t, r.c, "review.list", map[string]any{"sessionId": r.session}, &list)
	return list.Entries
}

// pendingIntents is debug.stats' count of unsettled review intents.
func (r *crashRig) pendingIntents() int {
	r.t.Helper()
	var st struct {
		Review *struct{ PendingIntents int } `json:"review"`
	}
	mustCall(r.t, r.c, "debug.stats", nil, &st)
	if st.Review == nil {
		r.t.Fatal("debug.stats has no review figures")
	}
	return st.Review.PendingIntents
}

// fileState is what one path holds: nothing, or bytes under a mode.
type fileState struct {
	Exists bool
	Data   []byte
	Mode   fs.FileMode
}

func absent() fileState { return fileState{} }

func present(data []byte, mode fs.FileMode) fileState {
	return fileState{Exists: true, Data: data, Mode: mode}
}

func (s fileState) equal(o fileState) bool {
	if !s.Exists || !o.Exists {
		return s.Exists == o.Exists
	}
	return s.Mode == o.Mode && bytes.Equal(s.Data, o.Data)
}

func (s fileState) sha() string {
	if !s.Exists {
		return ""
	}
	sum := sha256.Sum256(s.Data)
	return hex.EncodeToString(sum[:])
}

func (s fileState) String() string {
	if !s.Exists {
		return "absent"
	}
	return fmt.Sprintf("%d bytes sha256 %.12s mode %04o", len(s.Data), s.sha(), s.Mode)
}

// observe reads what path holds now. Test files are small enough, or
// deliberately large but bounded by the test, to read whole.
func observe(t *testing.T, path string) fileState {
	t.Helper()
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return absent()
	}
	if err != nil {
		t.Fatal(err)
	}
	if !info.Mode().IsRegular() {
		t.Fatalf("%s is not a regular file: %v", path, info.Mode())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return present(data, info.Mode().Perm())
}

// put makes path hold s, mode exactly (umask-proof).
func put(t *testing.T, path string, s fileState) {
	t.Helper()
	if !s.Exists {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, s.Data, s.Mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, s.Mode); err != nil {
		t.Fatal(err)
	}
}

// atomicTemp matches the temporary files workspace.WriteFile creates
// beside its target: ".NAME.hostd-" and the digits os.CreateTemp adds.
var atomicTemp = regexp.MustCompile(`^\..+\.hostd-[0-9]+$`)

// tempFiles lists every atomic-write temporary file under dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && atomicTemp.MatchString(e.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (r *crashRig) rel(p string) string {
	if rel, err := filepath.Rel(r.ws, p); err == nil {
		return filepath.ToSlash(rel)
	}
	return p
}
