package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// langServerSection is what a language server adds to an edit
// (docs/language-servers.md): the same edit of a Go file and of a
// TypeScript file, timed end to end over the daemon's socket, with the
// file's language server warm and with language servers off
// (languageServers.enabled false). Each edit changes one line of a
// 100-function file back and forth, both versions clean, so the result
// waits for the server's errors of the new version and reports none. A
// language whose server is not installed is skipped, and says so.
func langServerSection(ctx context.Context, o options) *Section {
	s := &Section{}
	edits := 200
	if o.quick {
		edits = 30
	}
	wait := 2000 // the default languageServers.diagnosticsMs
	s.Intro = fmt.Sprintf("The same edit with the file's language server warm and with language servers off: one line of a 100-function file changed, "+
		"both versions clean, %d times after 5 edits that warm the server (and the parse cache), one after another, each timed end to end over the "+
		"daemon's socket. With the server on, the result waits for its errors of the new version (up to languageServers.diagnosticsMs, %d ms) and "+
		"reports none; a result that named an error or was pending would end the run. The servers are the ones on the PATH (gopls; "+
		"typescript-language-server with the TypeScript beside it, as .ci/run installs them); memory is the daemon's last measure of each server "+
		"with everything it started. This section measures this checkout alone.", edits, wait)
	langs := []struct {
		name, server, file, head, body, line string
	}{
		{"Go", "gopls", "a.go", "package a\n\n", "func f%d(x int) int {\n\treturn x + %d\n}\n\n", "\treturn x + %d"},
		{"TypeScript", "typescript-language-server", "a.ts", "", "export function f%d(x: number): number {\n  return x + %d;\n}\n\n", "  return x + %d;"},
	}
	t := Table{Title: "An edit with its language server warm, beside the same edit with language servers off", Header: []string{"file", "server", "off p50", "off p99", "on p50", "on p99", "added at p50", "on/off p50", "server memory"}}
	var dir, bin string // a temporary directory with hostd built in it, once a server is found
	for _, l := range langs {
		goal := l.name + " edit with " + l.server + " warm, p99"
		target := "<= " + strconv.Itoa(wait) + " ms"
		if _, err := exec.LookPath(l.server); err != nil {
			why := l.server + " is not on the PATH (.ci/run installs it into .ci/lsp)"
			fmt.Fprintf(o.log, "langserver: %s skipped: %s\n", l.name, why)
			s.Notes = append(s.Notes, fmt.Sprintf("%s not measured: %s.", l.name, why))
			s.Goals = append(s.Goals, skippedGoal(goal, target, why))
			continue
		}
		if bin == "" {
			var err error
			if dir, bin, err = tempHostd(ctx, o, "lsp"); err != nil {
				s.Notes = append(s.Notes, "not measured: "+err.Error())
				return s
			}
			defer os.RemoveAll(dir)
		}
		var text strings.Builder
		text.WriteString(l.head)
		for i := range 100 {
			fmt.Fprintf(&text, l.body, i, i)
		}
		line := strings.Count(l.head, "\n") + 2 // the first function's body
		run := func(on bool) (p50, p99 time.Duration, rss int64, err error) {
			sub := filepath.Join(dir, fmt.Sprintf("%s-%v", l.server, on))
			ws := filepath.Join(sub, "ws")
			if err := os.MkdirAll(ws, 0o700); err != nil {
				return 0, 0, 0, err
			}
			cfg := filepath.Join(sub, "config.json")
			if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"languageServers": {"enabled": %v}}`, on)), 0o600); err != nil {
				return 0, 0, 0, err
			}
			files := map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n", l.file: text.String()}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o600); err != nil {
					return 0, 0, 0, err
				}
			}
			d, err := startDaemon(ctx, bin, sub, "--config", cfg)
			if err != nil {
				return 0, 0, 0, err
			}
			defer d.stop()
			c, err := dialRPC(ctx, d.sock)
			if err != nil {
				return 0, 0, 0, err
			}
			defer c.close()
			id, err := c.createSession(ctx, ws)
			if err != nil {
				return 0, 0, 0, err
			}
			r, err := c.execute(ctx, id, "read", jsonArgs("path", l.file))
			if err != nil {
				return 0, 0, 0, err
			}
			tag := r.Tag
			var took []time.Duration
			for i := range edits + 5 {
				start := time.Now()
				r, err := c.execute(ctx, id, "edit", jsonArgs("path", l.file, "tag", tag, "ops", fmt.Sprintf("PUT %d:\n+"+l.line, line, i%7+1)))
				elapsed := time.Since(start)
				if err != nil {
					return 0, 0, 0, err
				}
				if i < 5 && strings.Contains(r.Content, "\ndiagnostics: pending") {
					// The server's first check (loading the module or
					// project): wait for its answer, then go on warm.
					if err := awaitDiagnostics(ctx, c, id, l.file); err != nil {
						return 0, 0, 0, err
					}
				} else if strings.Contains(r.Content, "\ndiagnostics") {
					return 0, 0, 0, fmt.Errorf("edit %d of a clean file: %s", i, lastLines(r.Content, 3))
				}
				tag = r.Tag
				if i >= 5 {
					took = append(took, elapsed)
				}
			}
			if on {
				// The daemon measures each server's memory every 2 s.
				for try := 0; rss == 0 && try < 50 && ctx.Err() == nil; try++ {
					var st wire.LanguageServers
					if err := c.call(ctx, "host.languageServers", nil, &st); err != nil {
						return 0, 0, 0, err
					}
					for _, sv := range st.Servers {
						rss = max(rss, sv.RSSBytes)
					}
					if rss == 0 {
						time.Sleep(200 * time.Millisecond)
					}
				}
			}
			slices.Sort(took)
			return took[len(took)/2], took[min(len(took)-1, len(took)*99/100)], rss, nil
		}
		off50, off99, _, err := run(false)
		if err == nil {
			var on50, on99 time.Duration
			var rss int64
			if on50, on99, rss, err = run(true); err == nil {
				mem := "not measured"
				if rss > 0 {
					mem = fmtBytes(rss)
				}
				t.Add(l.name, l.server, fmtDur(off50), fmtDur(off99), fmtDur(on50), fmtDur(on99), fmtDur(on50-off50), fmtRatio(float64(on50)/float64(off50)), mem)
				fmt.Fprintf(o.log, "langserver: %s: off p50 %s p99 %s; with %s p50 %s p99 %s; its memory %s\n", l.name, fmtDur(off50), fmtDur(off99), l.server, fmtDur(on50), fmtDur(on99), mem)
				s.Goals = append(s.Goals, Goal{Name: goal, Against: "the diagnostics wait", Target: target, Measured: fmtDur(on99), Met: on99 <= time.Duration(wait)*time.Millisecond})
				continue
			}
		}
		s.Notes = append(s.Notes, fmt.Sprintf("%s not measured: %v", l.name, err))
		s.Goals = append(s.Goals, skippedGoal(goal, target, err.Error()))
	}
	if len(t.Rows) > 0 {
		s.Tables = append(s.Tables, t)
	}
	s.Notes = append(s.Notes, "The goal is the edit's p99 with a warm server within the time a result waits for it: past it, the result says the diagnostics are pending. "+
		"The first check after a server starts (loading the module or project) takes seconds and is not in these figures.")
	return s
}

// awaitDiagnostics asks the diagnostics tool for path until its server
// has answered for the file's current text (each ask waits up to 10 s).
func awaitDiagnostics(ctx context.Context, c *rpcClient, id, path string) error {
	for range 30 {
		r, err := c.execute(ctx, id, "diagnostics", jsonArgs("path", path))
		if err != nil {
			return err
		}
		if !strings.Contains(r.Content, "pending") {
			if !strings.HasSuffix(r.Content, "] 0 errors") {
				return fmt.Errorf("the clean file has errors: %s", lastLines(r.Content, 3))
			}
			return nil
		}
	}
	return fmt.Errorf("the %s server did not answer for %s in 30 asks", filepath.Ext(path), path)
}
