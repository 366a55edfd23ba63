package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// command is one hostctl command. Each one makes its calls through c and
// prints either a table or, with --json, the raw result.
type command struct {
	name     string // "info", or "review list" for a two-word command
	args     string // argument synopsis, for errors
	min, max int    // positional arguments after the name
	run      func(ctx context.Context, a *app, c *daemonConn, args []string) error
	// untimed: --timeout bounds connecting only; the command runs until
	// it ends or is interrupted (watch).
	untimed bool
}

var commands = []command{
	{name: "info", run: cmdInfo},
	{name: "sessions", run: cmdSessions},
	{name: "stats", run: cmdStats},
	{name: "lsp", run: cmdLanguageServers},
	{name: "session", args: "ID", min: 1, max: 1, run: cmdSession},
	{name: "session delete", args: "ID", min: 1, max: 1, run: cmdSessionDelete},
	{name: "watch", args: "[SESSION]", max: 1, run: cmdWatch, untimed: true},
	{name: "shutdown", run: cmdShutdown},
	{name: "call", args: "METHOD [JSON|-]", min: 1, max: 2, run: cmdCall},
	{name: "review sessions", run: cmdReviewSessions},
	{name: "review list", args: "SESSION [PATH]", min: 1, max: 2, run: cmdReviewList},
	{name: "review rollback", args: "SESSION TOOLCALL", min: 2, max: 2, run: cmdReviewRollback},
	{name: "review rewind", args: "SESSION --prompt ID|--since TOOLCALL|--call TOOLCALL|--all [--dry-run] [--keep-theirs|--merge|--force]", min: 1, max: 1, run: cmdReviewRewind},
}

// find looks up the command named by the leading positional arguments and
// returns it with the arguments that follow its name.
func find(pos []string) (*command, []string, error) {
	if len(pos) == 0 {
		return nil, nil, usageErrorf("no command given")
	}
	name, rest := pos[0], pos[1:]
	if name == "review" {
		if len(rest) == 0 {
			return nil, nil, usageErrorf("review needs a subcommand: sessions, list, rollback or rewind")
		}
		name, rest = "review "+rest[0], rest[1:]
	}
	if name == "session" && len(rest) == 2 && rest[0] == "delete" {
		name, rest = "session delete", rest[1:]
	}
	for i := range commands {
		c := &commands[i]
		if c.name != name {
			continue
		}
		if len(rest) < c.min || len(rest) > c.max {
			return nil, nil, usageErrorf("usage: hostctl %s %s", c.name, c.args)
		}
		return c, rest, nil
	}
	return nil, nil, usageErrorf("unknown command %q", name)
}

// dispatch validates the command line fully before it connects, so a
// typo never reaches the daemon, then runs the command under --timeout.
func dispatch(ctx context.Context, a *app, pos []string) error {
	if pos[0] == "help" {
		if len(pos) == 1 {
			fmt.Fprint(a.io.out, usageText)
			return nil
		}
		text, err := helpFor(pos[1:])
		if err == nil {
			_, err = fmt.Fprint(a.io.out, text)
		}
		return err
	}
	if pos[0] == "version" {
		if len(pos) > 1 {
			return usageErrorf("usage: hostctl version")
		}
		ctx, cancel := context.WithTimeout(ctx, a.timeout)
		defer cancel()
		return cmdVersion(ctx, a)
	}
	if pos[0] == completeCommand {
		cmdComplete(ctx, a, pos[1:])
		return nil
	}
	if pos[0] == "completion" {
		if len(pos) != 2 {
			return usageErrorf("usage: hostctl completion bash|zsh|fish")
		}
		return cmdCompletion(a, pos[1])
	}
	cmd, args, err := find(pos)
	if err != nil {
		return err
	}
	if cmd.name == "review rewind" {
		if _, err := rewindParams(a.rewind, args[0]); err != nil {
			return err
		}
	} else if a.rewind.set() {
		return usageErrorf("--prompt, --since, --call, --all, --dry-run, --keep-theirs, --merge and --force belong to review rewind")
	}
	if cmd.name == "call" {
		// Params are checked (and stdin read) before dialing.
		params, err := callParams(a, args[1:])
		if err != nil {
			return err
		}
		args = append(args[:1:1], string(params))
	}
	runCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	c, err := dial(ctx, a.socket, a.maxFrame)
	if err != nil {
		return err
	}
	defer c.Close()
	if cmd.untimed {
		ctx = runCtx
	}
	return cmd.run(ctx, a, c, args)
}

// callParams reads `call`'s params: none, a JSON argument, or "-" for
// stdin (bounded like a frame). JSON-RPC params are an object or an array.
func callParams(a *app, args []string) (json.RawMessage, error) {
	if len(args) == 0 {
		return nil, nil
	}
	raw := []byte(args[0])
	if args[0] == "-" {
		b, err := io.ReadAll(io.LimitReader(a.io.in, a.maxFrame+1))
		if err != nil {
			return nil, fmt.Errorf("reading params from stdin: %w", err)
		}
		if int64(len(b)) > a.maxFrame {
			return nil, usageErrorf("params on stdin exceed %d bytes", a.maxFrame)
		}
		raw = b
	}
	raw = bytes.TrimSpace(raw)
	if !json.Valid(raw) {
		return nil, usageErrorf("params are not valid JSON: %s", clip(string(raw), 80))
	}
	if raw[0] != '{' && raw[0] != '[' {
		return nil, usageErrorf(`params must be a JSON object or array, e.g. '{"sessionId":"s-1"}'`)
	}
	return raw, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// asSent is the Caller under a command's typed calls: with --json it
// prints each result exactly as the daemon sent it instead of decoding it
// (printed says so), since a table cannot show what this hostctl does not
// know; otherwise it decodes the result, and a result that does not fit
// says that --json prints it as sent.
type asSent struct {
	a       *app
	c       *daemonConn
	raw     json.RawMessage // the last result, as sent
	printed bool
}

func (s *asSent) Call(ctx context.Context, method string, params, result any) error {
	s.raw = nil
	if err := s.c.call(ctx, method, params, &s.raw); err != nil {
		return err
	}
	if s.a.json {
		s.printed = true
		return printJSON(s.a.io.out, s.raw)
	}
	if result == nil {
		return nil
	}
	return decode(method, s.raw, result)
}

// typed is a command's typed calls on c, printing with --json (asSent).
func typed(a *app, c *daemonConn) (*client.Client, *asSent) {
	s := &asSent{a: a, c: c}
	return client.Typed(s), s
}

// printJSON prints a raw result indented; the content is exactly what the
// daemon sent.
func printJSON(w io.Writer, raw json.RawMessage) error {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return fmt.Errorf("the daemon sent a result that is not JSON: %w", err)
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// decode reads a result into the shape hostctl prints.
func decode(method string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: unexpected result shape (%v); --json prints it as sent", method, err)
	}
	return nil
}

func cmdInfo(ctx context.Context, a *app, c *daemonConn, _ []string) error {
	rpc, sent := typed(a, c)
	in, err := rpc.HostInfo(ctx)
	if err != nil || sent.printed {
		return err
	}
	// The limits print as the daemon sent them, every one: a newer
	// daemon's are shown too.
	var members, limits map[string]json.RawMessage
	if err := decode("host.info", sent.raw, &members); err != nil {
		return err
	}
	if raw, ok := members["limits"]; ok {
		if err := decode("host.info", raw, &limits); err != nil {
			return err
		}
	}
	a.fmt.info(a.io.out, a.socket, in, limits)
	return nil
}

func cmdSessions(ctx context.Context, a *app, c *daemonConn, _ []string) error {
	rpc, sent := typed(a, c)
	l, err := rpc.SessionList(ctx)
	if err != nil || sent.printed {
		return err
	}
	a.fmt.sessions(a.io.out, l.Sessions)
	return nil
}

func cmdStats(ctx context.Context, a *app, c *daemonConn, _ []string) error {
	rpc, sent := typed(a, c)
	st, err := rpc.DebugStats(ctx)
	if err != nil || sent.printed {
		return err
	}
	a.fmt.stats(a.io.out, st)
	return nil
}

func cmdSession(ctx context.Context, a *app, c *daemonConn, args []string) error {
	rpc, sent := typed(a, c)
	d, err := rpc.DebugSession(ctx, wire.SessionIDParams{SessionID: args[0]})
	if err != nil || sent.printed {
		return err
	}
	a.fmt.session(a.io.out, d)
	return nil
}

// cmdCall prints the raw result of any method: a table cannot know the
// shape of a method added after this hostctl was built.
func cmdCall(ctx context.Context, a *app, c *daemonConn, args []string) error {
	var params any
	if len(args) > 1 && args[1] != "" {
		params = json.RawMessage(args[1])
	}
	var raw json.RawMessage
	if err := c.call(ctx, args[0], params, &raw); err != nil {
		return err
	}
	if err := printJSON(a.io.out, raw); err != nil {
		return err
	}
	// A tool that fails answers a result, not a JSON-RPC error; a script
	// still needs to see that the call did not do what it asked.
	var tool wire.ExecuteResult
	if args[0] == "tools.execute" && json.Unmarshal(raw, &tool) == nil && tool.Raw != nil && !tool.OK {
		code := "an error"
		if tool.Error != nil {
			code = tool.Error.Code
		}
		return fmt.Errorf("the tool call failed with %s (the result above says why)", code)
	}
	return nil
}

// noReview explains a method-not-found from a review method: the daemon
// runs, it just was built without review records.
func noReview(method string, err error) error {
	if isMethodNotFound(err) {
		return fmt.Errorf("this daemon has no review support: it does not serve %s (upgrade hostd)", method)
	}
	return err
}

func cmdReviewSessions(ctx context.Context, a *app, c *daemonConn, _ []string) error {
	rpc, sent := typed(a, c)
	l, err := rpc.ReviewSessions(ctx)
	if err != nil || sent.printed {
		return noReview("review.sessions", err)
	}
	a.fmt.reviewSessions(a.io.out, l.Sessions)
	return nil
}

func cmdReviewList(ctx context.Context, a *app, c *daemonConn, args []string) error {
	params := wire.ReviewListParams{SessionID: args[0]}
	if len(args) > 1 {
		params.Path = args[1]
	}
	rpc, sent := typed(a, c)
	l, err := rpc.ReviewList(ctx, params)
	if err != nil || sent.printed {
		return noReview("review.list", err)
	}
	a.fmt.reviewList(a.io.out, args[0], l.Entries)
	return nil
}

func cmdReviewRollback(ctx context.Context, a *app, c *daemonConn, args []string) error {
	session, toolCall := args[0], args[1]
	rpc, sent := typed(a, c)
	res, err := rpc.ReviewRollback(ctx, wire.RollbackParams{SessionID: session, ToolCallID: toolCall})
	if err != nil || sent.printed {
		return noReview("review.rollback", err)
	}
	// The entries of the call show what was undone. The rollback already
	// succeeded, so failing to fetch them only shortens the report.
	var undone []wire.ReviewEntry
	if l, err := c.typed().ReviewList(ctx, wire.ReviewListParams{SessionID: session}); err == nil {
		for _, e := range l.Entries {
			if e.ToolCallID == toolCall {
				undone = append(undone, e)
			}
		}
	}
	a.fmt.rollback(a.io.out, toolCall, res, undone)
	return nil
}

// rewindParams are review.rewind's params from the command line, checked
// before anything is sent.
func rewindParams(f rewindFlags, session string) (wire.RewindParams, error) {
	p := wire.RewindParams{SessionID: session, PromptID: f.prompt, Since: f.since, ToolCallID: f.call, All: f.all, DryRun: f.dryRun}
	what := 0
	for _, on := range []bool{f.prompt != "", f.since != "", f.call != "", f.all} {
		if on {
			what++
		}
	}
	if what != 1 {
		return p, usageErrorf("review rewind needs exactly one of --prompt ID (a turn), --since TOOLCALL, --call TOOLCALL or --all; hostctl review list %s shows the turns and calls", session)
	}
	resolves := 0
	for _, r := range []struct {
		on   bool
		name string
	}{{f.keepTheirs, wire.ResolveKeepTheirs}, {f.merge, wire.ResolveMerge}, {f.force, wire.ResolveForce}} {
		if r.on {
			resolves++
			p.Resolve = r.name
		}
	}
	if resolves > 1 {
		return p, usageErrorf("--keep-theirs, --merge and --force are three different answers to a conflict: give one")
	}
	return p, nil
}

func cmdReviewRewind(ctx context.Context, a *app, c *daemonConn, args []string) error {
	params, err := rewindParams(a.rewind, args[0])
	if err != nil {
		return err
	}
	rpc, sent := typed(a, c)
	rep, err := rpc.ReviewRewind(ctx, params)
	if err != nil || sent.printed {
		return noReview("review.rewind", err)
	}
	a.fmt.rewind(a.io.out, args[0], params, rep)
	return nil
}

func cmdLanguageServers(ctx context.Context, a *app, c *daemonConn, _ []string) error {
	rpc, sent := typed(a, c)
	l, err := rpc.HostLanguageServers(ctx)
	if err != nil || sent.printed {
		return err
	}
	a.fmt.languageServers(a.io.out, l)
	return nil
}
