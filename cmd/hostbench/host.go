package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// hostSection is the real daemon end to end over its socket,
// read and edit calls on small files, sequential and from 16 concurrent
// sessions, beside a bare jsonrpc2 echo server answering the same request
// with the same bytes in the same run.
func hostSection(ctx context.Context, o options) *Section {
	s := &Section{}
	s.Intro = "hostd is built from this checkout and started on a temporary Unix socket; the client is " +
		"sourcegraph/jsonrpc2 with LSP framing, one connection per session. The baseline is the bare library serving a " +
		"Unix socket from a process of its own (as hostd has its own), with a handler that does no work: it receives the very same `tools.execute` request and answers with the " +
		"bytes of a real read result captured from hostd, so both sides move the same bytes. The two are measured in " +
		"alternating rounds; a ratio is the median of the per-round ratios (hostd calls/s / echo calls/s). Latencies are " +
		"per call as the client sees them."
	const workers = 16
	seqCalls, conCalls, rounds := 3000, 300, 3
	seqEdits, conEdits := 200, 20
	if o.quick {
		seqCalls, conCalls, rounds, seqEdits, conEdits = 300, 30, 1, 20, 3
	}
	goalNames := []string{"small read, sequential: hostd / echo throughput", "small read, 16 sessions: hostd / echo throughput"}
	fail := func(err error) *Section {
		s.Notes = append(s.Notes, "not measured: "+err.Error())
		for _, n := range goalNames {
			s.Goals = append(s.Goals, skippedGoal(n, ">= 0.70x", err.Error()).vs(againstEcho))
		}
		return s
	}
	dir, bin, err := tempHostd(ctx, o, "host")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "ws")
	for w := 0; w < workers; w++ {
		if err := writeSmallFiles(filepath.Join(ws, fmt.Sprintf("w%d", w))); err != nil {
			return fail(err)
		}
	}
	args, err := configArgs(dir, languageServersOff)
	if err != nil {
		return fail(err)
	}
	d, err := startDaemon(ctx, bin, dir, args...)
	if err != nil {
		return fail(err)
	}
	defer d.stop()
	h, err := newHostClients(ctx, d.sock, ws, workers)
	if err != nil {
		return fail(err)
	}
	defer h.close()

	canned, err := h.cannedRead(ctx)
	if err != nil {
		return fail(err)
	}
	echoSock, stopEcho, err := startEchoProcess(ctx, dir, canned)
	if err != nil {
		return fail(err)
	}
	defer stopEcho()
	e, err := newHostClients(ctx, echoSock, "", workers)
	if err != nil {
		return fail(err)
	}
	defer e.close()

	read := func(c *hostClients) func(ctx context.Context, w, i int) error {
		return func(ctx context.Context, w, i int) error {
			var raw json.RawMessage
			return c.clients[w].call(ctx, "tools.execute", h.readParams[w], &raw)
		}
	}
	t := Table{Title: fmt.Sprintf("Small read (a 40-line file of %s; the result is %s)", fmtBytes(int64(len(smallFile()))), fmtBytes(int64(len(canned)))),
		Header: []string{"load", "server", "calls/s", "p50", "p99", "ratio hostd / echo"}}
	for gi, mode := range []struct {
		name          string
		workers, each int
	}{{"sequential, 1 session", 1, seqCalls}, {"16 sessions at once", workers, conCalls}} {
		// Warm both up before timing: connections, caches, the JIT-free
		// but allocation-heavy first calls.
		if _, err := runLoad(ctx, mode.workers, 50, read(e)); err != nil {
			return fail(err)
		}
		if _, err := runLoad(ctx, mode.workers, 50, read(h)); err != nil {
			return fail(err)
		}
		var hostRuns, echoRuns []loadResult
		var ratios []float64
		for r := 0; r < rounds; r++ {
			er, err := runLoad(ctx, mode.workers, mode.each, read(e))
			if err != nil {
				return fail(err)
			}
			hr, err := runLoad(ctx, mode.workers, mode.each, read(h))
			if err != nil {
				return fail(err)
			}
			echoRuns, hostRuns = append(echoRuns, er), append(hostRuns, hr)
			ratios = append(ratios, hr.perSecond()/er.perSecond())
		}
		ratio := median(ratios)
		em, hm := medianRun(echoRuns), medianRun(hostRuns)
		t.Add(mode.name, "echo (bare jsonrpc2)", fmt.Sprintf("%.0f", em.perSecond()), fmtDur(em.quantile(0.5)), fmtDur(em.quantile(0.99)), "")
		t.Add(mode.name, "hostd read", fmt.Sprintf("%.0f", hm.perSecond()), fmtDur(hm.quantile(0.5)), fmtDur(hm.quantile(0.99)), fmtRatio(ratio))
		s.Goals = append(s.Goals, atLeast(goalNames[gi], ratio, 0.7, "x").vs(againstEcho))
	}
	s.Tables = append(s.Tables, t)
	s.Tables = append(s.Tables, editOverRPC(ctx, s, h, seqEdits, conEdits))
	s.Notes = append(s.Notes, fmt.Sprintf("%d rounds; sequential: %d calls per round; 16 sessions: %d calls per session per round.", rounds, seqCalls, conCalls))
	return s
}

// againstEcho is what the host's goals compare with.
const againstEcho = "a bare sourcegraph/jsonrpc2 server answering the same request with the same bytes"

// smallFile is the file read and edited end to end: 40 lines of Go.
func smallFile() string {
	var b strings.Builder
	b.WriteString("package small\n\n")
	for i := 0; i < 38; i++ {
		fmt.Fprintf(&b, "var value%02d = compute(%d, \"small\") // line\n", i, i)
	}
	return b.String()
}

func writeSmallFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"read.go", "edit.go"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(smallFile()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// hostClients is one connection and one session per worker.
type hostClients struct {
	clients    []*rpcClient
	sessions   []string
	readParams []wire.ExecuteParams
}

// newHostClients dials n connections; with a workspace it also opens a
// session on each and prepares its read call.
func newHostClients(ctx context.Context, sock, ws string, n int) (*hostClients, error) {
	h := &hostClients{}
	for w := 0; w < n; w++ {
		c, err := dialRPC(ctx, sock)
		if err != nil {
			h.close()
			return nil, err
		}
		h.clients = append(h.clients, c)
	}
	if ws == "" {
		return h, nil
	}
	for w, c := range h.clients {
		id, err := c.createSession(ctx, ws)
		if err != nil {
			h.close()
			return nil, err
		}
		h.sessions = append(h.sessions, id)
		h.readParams = append(h.readParams, wire.ExecuteParams{SessionID: id, Tool: "read", Args: json.RawMessage(jsonArgs("path", fmt.Sprintf("w%d/read.go", w)))})
	}
	return h, nil
}

// cannedRead is a real read result, for the echo server to send back.
func (h *hostClients) cannedRead(ctx context.Context) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := h.clients[0].call(ctx, "tools.execute", h.readParams[0], &raw); err != nil {
		return nil, err
	}
	var r wire.ExecuteResult
	if err := json.Unmarshal(raw, &r); err != nil || !r.OK {
		return nil, fmt.Errorf("the read to capture failed: %s", raw)
	}
	return raw, nil
}

func (h *hostClients) close() {
	for _, c := range h.clients {
		c.close()
	}
}

// medianRun is the run with the median throughput.
func medianRun(runs []loadResult) loadResult {
	s := slices.Clone(runs)
	slices.SortFunc(s, func(a, b loadResult) int { return cmp.Compare(a.perSecond(), b.perSecond()) })
	return s[len(s)/2]
}

// editOverRPC times whole edit calls over the socket: each session keeps
// editing line 3 of its own file with the tag the previous edit returned,
// so every call passes every gate, writes atomically and is recorded for
// review, as a real edit is.
func editOverRPC(ctx context.Context, s *Section, h *hostClients, seq, con int) Table {
	t := Table{Title: "Whole edit call over the socket (read once, then edit after edit on the returned tag; atomic write and review record each)",
		Header: []string{"load", "calls/s", "p50", "p99"}}
	tags := make([]string, len(h.clients))
	for w, c := range h.clients {
		r, err := c.execute(ctx, h.sessions[w], "read", jsonArgs("path", fmt.Sprintf("w%d/edit.go", w)))
		if err != nil {
			s.Notes = append(s.Notes, "edit over RPC not measured: the first read failed: "+err.Error())
			return t
		}
		tags[w] = r.Tag
	}
	// Each worker counts its own edits so that no edit repeats the line
	// it replaces (that would be EDIT_NO_CHANGE).
	count := make([]int, len(h.clients))
	edit := func(ctx context.Context, w, i int) error {
		count[w]++
		args := hostdEditArgs(fmt.Sprintf("w%d/edit.go", w), tags[w], fmt.Sprintf("PUT 3.=3:\n+var value00 = compute(%d, \"edited\") // edit", count[w]))
		r, err := h.clients[w].execute(ctx, h.sessions[w], "edit", args)
		if err != nil {
			return err
		}
		tags[w] = r.Tag
		return nil
	}
	for _, mode := range []struct {
		name          string
		workers, each int
	}{{"sequential, 1 session", 1, seq}, {"16 sessions at once", len(h.clients), con}} {
		r, err := runLoad(ctx, mode.workers, mode.each, edit)
		if err != nil {
			if strings.Contains(err.Error(), wire.CodeUnknownTool.Name) || strings.Contains(err.Error(), "unknown tool") {
				s.Notes = append(s.Notes, "edit over RPC not measured: this hostd build does not serve the edit tool ("+firstLine(err.Error())+")")
			} else {
				s.Notes = append(s.Notes, "edit over RPC failed: "+err.Error())
			}
			return t
		}
		t.Add(mode.name, fmt.Sprintf("%.0f", r.perSecond()), fmtDur(r.quantile(0.5)), fmtDur(r.quantile(0.99)))
	}
	return t
}
