package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// The golden wire exchanges: each archive of ../../testdata/golden is
// replayed against a daemon of its own, started in this process by run
// (the whole daemon: review store, tools, grammars) on a Unix socket, and
// every answer is compared with the archive's. testdata/README.md is the
// format; a client in another language replays the same files.

const goldenDir = "../../testdata/golden"

// sectionName is an exchange's section: 3.request.json, 3.response.json,
// 3.notifications.json.
var sectionName = regexp.MustCompile(`^([0-9]+)\.(request|response|notifications)\.json$`)

// archive is one parsed golden file.
type archive struct {
	path      string
	ar        *txtar.Archive
	config    []byte            // config.json, or nil
	files     map[string][]byte // tree to create under the root (ws/...)
	after     map[string][]byte // after/<path>: a file's content once every exchange ran
	exchanges []*exchange
}

type exchange struct {
	n             int
	request       []byte
	response      []byte // nil: the request is a notification, nothing is awaited
	notifications []byte // a JSON array, or nil for none
}

func loadArchive(path string) (*archive, error) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	a := &archive{path: path, ar: ar, files: map[string][]byte{}, after: map[string][]byte{}}
	byN := map[int]*exchange{}
	for _, f := range ar.Files {
		switch m := sectionName.FindStringSubmatch(f.Name); {
		case f.Name == "config.json":
			a.config = f.Data
		case strings.HasPrefix(f.Name, "after/"):
			a.after[strings.TrimPrefix(f.Name, "after/")] = f.Data
		case m != nil:
			n, _ := strconv.Atoi(m[1])
			x := byN[n]
			if x == nil {
				x = &exchange{n: n}
				byN[n] = x
			}
			switch m[2] {
			case "request":
				x.request = f.Data
			case "response":
				x.response = f.Data
			case "notifications":
				x.notifications = f.Data
			}
		case strings.HasSuffix(f.Name, ".json") && !strings.Contains(f.Name, "/"):
			return nil, fmt.Errorf("section %q: not a section name testdata/README.md knows", f.Name)
		default:
			if strings.HasPrefix(f.Name, "/") || strings.Contains("/"+f.Name+"/", "/../") {
				return nil, fmt.Errorf("section %q: a file must stay under the archive's root", f.Name)
			}
			a.files[f.Name] = f.Data
		}
	}
	for n := 1; n <= len(byN); n++ {
		x := byN[n]
		if x == nil || x.request == nil {
			return nil, fmt.Errorf("exchange %d: no %d.request.json (exchanges are numbered 1, 2, 3, ... each with a request)", n, n)
		}
		a.exchanges = append(a.exchanges, x)
	}
	if len(a.exchanges) != len(byN) {
		return nil, fmt.Errorf("exchanges are not numbered 1..%d", len(byN))
	}
	return a, nil
}

func TestGoldenWire(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden archives in %s: %v", goldenDir, err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			a, err := loadArchive(path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			replay(t, a)
		})
	}
}

// goldenDaemon is a daemon run in this process for one archive.
type goldenDaemon struct {
	conn   net.Conn
	in     *bufio.Reader
	cancel context.CancelFunc
	done   chan error
}

// discard is the daemon's stdout and stderr: run reports on them, and
// failures show through the answers.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }
func (discard) Read([]byte) (int, error)    { return 0, io.EOF }

func startGoldenDaemon(t *testing.T, root string, config []byte) *goldenDaemon {
	t.Helper()
	sockDir := shortDir(t)
	sock := filepath.Join(sockDir, "hostd.sock")
	args := []string{"--socket", sock, "--state-dir", filepath.Join(sockDir, "state"), "--log-level", "error"}
	// The transcripts are the same whatever language servers this machine
	// has: they run with none.
	config = withoutLanguageServers(t, config)
	if config != nil {
		cfg := filepath.Join(sockDir, "config.json")
		if err := os.WriteFile(cfg, config, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", cfg)
	}
	// The daemon's memory governor sets the process's soft memory limit;
	// the other tests of this binary get theirs back once it stops.
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(limit) })
	ctx, cancel := context.WithCancel(context.Background())
	d := &goldenDaemon{cancel: cancel, done: make(chan error, 1)}
	go func() { d.done <- run(ctx, args, stdio{in: discard{}, out: discard{}, err: discard{}}) }()
	var stopped error
	if !testenv.Poll(20*time.Second, func() bool {
		select {
		case stopped = <-d.done:
			return true
		default:
		}
		c, err := net.Dial("unix", sock)
		if err == nil {
			d.conn, d.in = c, bufio.NewReader(c)
		}
		return err == nil
	}) || d.conn == nil {
		cancel()
		t.Fatalf("the daemon did not listen on %s (stopped: %v)", sock, stopped)
	}
	t.Cleanup(func() {
		d.conn.Close()
		cancel()
		select {
		case err := <-d.done:
			if err != nil {
				t.Errorf("the daemon: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("the daemon did not stop")
		}
	})
	return d
}

func (d *goldenDaemon) send(body []byte) error {
	d.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := fmt.Fprintf(d.conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// receive reads one frame's body.
func (d *goldenDaemon) receive() ([]byte, error) {
	d.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	n := -1
	for {
		line, err := d.in.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if n, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("header %q: %v", line, err)
			}
		}
	}
	if n < 0 {
		return nil, errors.New("a frame without Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(d.in, body)
	return body, err
}

// replay runs one archive: lay out its files, start its daemon, make each
// exchange, then check the files it names under after/.
func replay(t *testing.T, a *archive) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(a.files))
	for name := range a.files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			err = os.MkdirAll(p, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(p, a.files[name], 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	subst := strings.NewReplacer("${WS}", filepath.Join(root, "ws"), "${ROOT}", root)
	unsubst := strings.NewReplacer(filepath.Join(root, "ws"), "${WS}", root, "${ROOT}")
	d := startGoldenDaemon(t, root, a.config)

	updated := map[string][]byte{}
	for _, x := range a.exchanges {
		req := bytes.TrimRight([]byte(subst.Replace(string(x.request))), "\n")
		if err := d.send(req); err != nil {
			t.Fatalf("%d.request.json: sending: %v", x.n, err)
		}
		if isNotification(req) {
			if x.response != nil || x.notifications != nil {
				t.Fatalf("%d.request.json is a notification (no id): nothing answers it, so it takes no response or notifications section", x.n)
			}
			continue
		}
		if x.response == nil && !testenv.Update() {
			t.Fatalf("%d.request.json: no %d.response.json; every request but a notification is answered", x.n, x.n)
		}
		var notes []*jval
		var answer *jval
		for answer == nil {
			body, err := d.receive()
			if err != nil {
				t.Fatalf("%d.request.json: no answer: %v", x.n, err)
			}
			v, err := parseJSON(body)
			if err != nil {
				t.Fatalf("%d: the daemon sent a frame that is not JSON: %v: %q", x.n, err, body)
			}
			v = v.mapStrings(unsubst.Replace)
			if v.get("method") != nil && v.get("id") == nil {
				notes = append(notes, v)
			} else {
				answer = v
			}
		}
		gotNotes := &jval{isArr: true, arr: notes}
		if testenv.Update() {
			updated[fmt.Sprintf("%d.response.json", x.n)] = []byte(merged(t, x.response, answer) + "\n")
			if len(notes) > 0 {
				updated[fmt.Sprintf("%d.notifications.json", x.n)] = []byte(merged(t, x.notifications, gotNotes) + "\n")
			} else if x.notifications != nil {
				updated[fmt.Sprintf("%d.notifications.json", x.n)] = nil
			}
			continue
		}
		compare(t, fmt.Sprintf("%d.response.json", x.n), x.response, answer)
		wantNotes := x.notifications
		if wantNotes == nil {
			wantNotes = []byte("[]")
		}
		compare(t, fmt.Sprintf("%d.notifications.json", x.n), wantNotes, gotNotes)
	}
	for name, want := range a.after {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("after/%s: %v", name, err)
			continue
		}
		if testenv.Update() {
			updated["after/"+name] = got
		} else if !bytes.Equal(got, want) {
			t.Errorf("after/%s: the file holds\n%s\nwant\n%s", name, got, want)
		}
	}
	if testenv.Update() {
		rewrite(t, a, updated)
	}
}

// isNotification reports whether req is a JSON-RPC notification: an
// object with a method and no id. Everything else, valid or not, is
// answered.
func isNotification(req []byte) bool {
	v, err := parseJSON(req)
	return err == nil && v.isObj && v.get("method") != nil && v.get("id") == nil
}

// compare fails the test when got does not match the section's value.
func compare(t *testing.T, section string, want []byte, got *jval) {
	t.Helper()
	w, err := parseJSON(want)
	if err != nil {
		t.Fatalf("%s: not one JSON value: %v", section, err)
	}
	if diff := match("$", w, got); diff != "" {
		t.Errorf("%s: %s\ngot:\n%s", section, diff, got.pretty())
	}
}

// merged is got, pretty, with the placeholders of the old section kept.
func merged(t *testing.T, old []byte, got *jval) string {
	if old != nil {
		if w, err := parseJSON(old); err == nil {
			got = keepPlaceholders(w, got)
		}
	}
	return got.pretty()
}

// rewrite writes the archive back with the updated sections: each
// exchange's response, then its notifications, right after its request.
func rewrite(t *testing.T, a *archive, updated map[string][]byte) {
	section := func(name string) (txtar.File, bool) {
		if data, ok := updated[name]; ok {
			return txtar.File{Name: name, Data: data}, data != nil
		}
		for _, f := range a.ar.Files {
			if f.Name == name {
				return f, true
			}
		}
		return txtar.File{}, false
	}
	var files []txtar.File
	for _, f := range a.ar.Files {
		m := sectionName.FindStringSubmatch(f.Name)
		if m != nil && m[2] != "request" {
			continue // placed after its request
		}
		if data, ok := updated[f.Name]; ok {
			f.Data = data
		}
		files = append(files, f)
		if m != nil {
			for _, kind := range []string{"response", "notifications"} {
				if f, ok := section(m[1] + "." + kind + ".json"); ok {
					files = append(files, f)
				}
			}
		}
	}
	a.ar.Files = files
	if err := os.WriteFile(a.path, txtar.Format(a.ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// withoutLanguageServers is config (a config file's JSON, nil for none)
// with "languageServers": {"enabled": false} unless it sets them.
func withoutLanguageServers(t *testing.T, config []byte) []byte {
	t.Helper()
	m := map[string]json.RawMessage{}
	if config != nil {
		if err := json.Unmarshal(config, &m); err != nil {
			t.Fatalf("a test's config is not a JSON object: %v", err)
		}
	}
	if _, set := m["languageServers"]; !set {
		m["languageServers"] = json.RawMessage(`{"enabled": false}`)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
