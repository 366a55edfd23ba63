package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/hostd-dev/hostd/internal/quote"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// formatter renders results for people. Everything the daemon sends is
// passed through cell or safeLine before it reaches the terminal: a file
// name or file content holding escape sequences must not be able to
// rewrite the user's screen.
type formatter struct {
	loc *time.Location   // times are shown in this zone
	now func() time.Time // for "up 3m12s"
}

const timeLayout = "2006-01-02 15:04:05"

func (f formatter) when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(f.loc).Format(timeLayout)
}

func table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// row writes one table row; cells are joined by tabs.
func row(tw *tabwriter.Writer, cells ...string) {
	fmt.Fprintln(tw, strings.Join(cells, "\t"))
}

// listTable writes a table of one row per item under header, or the
// empty line when there are no items; it reports whether there were any.
func listTable[T any](w io.Writer, items []T, empty string, header []string, cells func(T) []string) bool {
	if len(items) == 0 {
		fmt.Fprintln(w, empty)
		return false
	}
	tw := table(w)
	row(tw, header...)
	for _, it := range items {
		row(tw, cells(it)...)
	}
	tw.Flush()
	return true
}

// cell makes a daemon-supplied string safe for one table cell: control
// characters (tabs and newlines included, which would break the table)
// force the quoted Go form.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// safeLine keeps tabs but shows every other control character as an
// escape, for diff lines and messages printed as they are.
func safeLine(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r != '\t' && unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// collectorLine is the collector row of stats: its target, its limit,
// the live heap and the collections so far.
func collectorLine(c wire.Collector) string {
	target, limit := fmt.Sprintf("GOGC %d", c.GCPercent), "limit "+humanBytes(c.LimitBytes)
	if c.GCPercent < 0 {
		target = "GOGC off"
	}
	if c.LimitBytes == math.MaxInt64 {
		limit = "no limit"
	}
	runs := fmt.Sprintf("%d collections", c.Collections)
	if c.Collections == 1 {
		runs = "1 collection"
	}
	return fmt.Sprintf("%s, %s, %s live, %s", target, limit, humanBytes(c.LiveBytes), runs)
}

// humanBytes renders a byte count in binary units: 512 B, 1.2 KiB, 64 MiB.
func humanBytes(n int64) string {
	if n < 1024 && n > -1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, unit := float64(n)/1024, "KiB"
	for _, next := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 && v > -1024 {
			break
		}
		v, unit = v/1024, next
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + unit
}

// micros renders a latency given in microseconds.
func micros(us float64) string {
	switch {
	case us < 1000:
		return strconv.FormatFloat(us, 'f', 0, 64) + "µs"
	case us < 1e6:
		return strconv.FormatFloat(us/1e3, 'f', 1, 64) + "ms"
	default:
		return strconv.FormatFloat(us/1e6, 'f', 2, 64) + "s"
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// reviewWarning prints the review store's health notice, if any, as the
// first thing a person sees.
func reviewWarning(w io.Writer, recovered *wire.ReviewRecovery, broken string) {
	if r := recovered; r != nil {
		fmt.Fprintf(w, "WARNING: the review store was damaged at start (%s); it was moved aside to %s and a fresh store started, so earlier review history is not shown\n\n",
			cell(r.Reason), cell(r.From))
	}
	if broken != "" {
		fmt.Fprintf(w, "WARNING: the review store turned out damaged while running (%s); review calls and changes fail until hostd restarts\n\n", cell(broken))
	}
}

func (f formatter) info(w io.Writer, socket string, in wire.HostInfo, limits map[string]json.RawMessage) {
	if h := in.Review; h != nil {
		reviewWarning(w, h.Recovered, h.Broken)
	}
	tw := table(w)
	row(tw, "name", cell(in.Name))
	row(tw, "version", cell(in.Version))
	row(tw, "protocol", strconv.Itoa(in.ProtocolVersion))
	row(tw, "pid", strconv.Itoa(in.PID))
	started := f.when(in.StartedAt)
	if !in.StartedAt.IsZero() {
		started += " (up " + f.now().Sub(in.StartedAt).Round(time.Second).String() + ")"
	}
	row(tw, "started", started)
	row(tw, "socket", cell(socket))
	grammars := "none"
	if len(in.Grammars) > 0 {
		g := make([]string, len(in.Grammars))
		for i, s := range in.Grammars {
			g[i] = cell(s)
		}
		grammars = strings.Join(g, ", ")
	}
	row(tw, "grammars", grammars)
	tw.Flush()

	if len(limits) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw = table(w)
	row(tw, "LIMIT", "VALUE")
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		row(tw, cell(name), limitValue(name, limits[name]))
	}
	tw.Flush()
}

// limitValue prints a limit as sent, with byte counts also in binary
// units so 67108864 reads as 64 MiB.
func limitValue(name string, raw json.RawMessage) string {
	s := safeLine(string(bytes.TrimSpace(raw)))
	if strings.Contains(name, "Bytes") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 1024 {
			s += " (" + humanBytes(n) + ")"
		}
	}
	return s
}

func (f formatter) sessions(w io.Writer, list []wire.SessionInfo) {
	listTable(w, list, "no sessions", []string{"SESSION", "WORKSPACE", "CREATED", "PATHS", "RETAINED"}, func(s wire.SessionInfo) []string {
		return []string{cell(s.SessionID), cell(s.Workspace), f.when(s.CreatedAt), strconv.Itoa(s.Paths), humanBytes(s.RetainedBytes)}
	})
}

func (f formatter) stats(w io.Writer, st wire.Stats) {
	if r := st.Review; r != nil {
		reviewWarning(w, r.Recovered, r.Broken)
	}
	tw := table(w)
	row(tw, "sessions", strconv.Itoa(st.Sessions))
	row(tw, "retained", humanBytes(st.RetainedBytes))
	row(tw, "snapshots", strconv.Itoa(st.Snapshots))
	row(tw, "registers", strconv.Itoa(st.Registers))
	row(tw, "uptime", (time.Duration(st.UptimeMs) * time.Millisecond).Round(time.Second).String())
	row(tw, "goroutines", strconv.Itoa(st.Goroutines))
	row(tw, "heap", humanBytes(int64(st.HeapBytes)))
	if c := st.Collector; c != (wire.Collector{}) {
		row(tw, "collector", collectorLine(c))
	}
	if r := st.Review; r != nil {
		row(tw, "review", fmt.Sprintf("%d entries of %d calls, %s; %d unsettled; %d calls evicted since start",
			r.Entries, r.Calls, humanBytes(r.Bytes), r.PendingIntents, r.EvictedCalls))
	}
	tw.Flush()

	fmt.Fprintln(w)
	listTable(w, slices.Sorted(maps.Keys(st.Calls)), "no calls yet", []string{"METHOD", "CALLS", "ERRORS", "P50", "P99"}, func(m string) []string {
		c := st.Calls[m]
		return []string{cell(m), strconv.FormatUint(c.Count, 10), strconv.FormatUint(c.Errors, 10), micros(float64(c.P50Us)), micros(float64(c.P99Us))}
	})
}

// maxSeenRanges is how many seen ranges one table cell shows before it
// summarizes the rest; a sparse grep can leave hundreds.
const maxSeenRanges = 4

func seen(s wire.LineSet) string {
	if s == nil {
		return "unknown"
	}
	if len(s) == 0 {
		return "none"
	}
	parts := make([]string, 0, maxSeenRanges+1)
	for i, r := range s {
		if i == maxSeenRanges {
			parts = append(parts, fmt.Sprintf("…(+%d ranges)", len(s)-i))
			break
		}
		if r[0] == r[1] {
			parts = append(parts, strconv.Itoa(r[0]))
		} else {
			parts = append(parts, strconv.Itoa(r[0])+"-"+strconv.Itoa(r[1]))
		}
	}
	return strings.Join(parts, ",")
}

// relative shows a path under the workspace relative to it, as the model
// sees it; anything else stays absolute.
func relative(workspace, path string) string {
	if workspace != "" {
		if rest, ok := strings.CutPrefix(path, strings.TrimSuffix(workspace, "/")+"/"); ok && rest != "" {
			return rest
		}
	}
	return path
}

func (f formatter) session(w io.Writer, d wire.SessionDump) {
	tw := table(w)
	row(tw, "session", cell(d.SessionID))
	row(tw, "workspace", cell(d.Workspace))
	row(tw, "retained", humanBytes(d.RetainedBytes))
	tw.Flush()

	fmt.Fprintln(w)
	if len(d.Paths) == 0 {
		fmt.Fprintln(w, "no snapshots (nothing read, grepped, written or edited yet)")
	} else {
		tw = table(w)
		row(tw, "PATH", "TAG", "BYTES", "LINES", "SEEN", "RETAINED", "RECORDED")
		for _, p := range d.Paths {
			name := cell(relative(d.Workspace, p.Path))
			for i, v := range p.Versions {
				if i > 0 {
					name = "" // older versions of the same path, newest first
				}
				row(tw, name, cell(v.Tag), strconv.FormatInt(v.Bytes, 10), strconv.Itoa(v.Lines), seen(v.SeenLines), yesNo(v.Retained), f.when(v.RecordedAt))
			}
		}
		tw.Flush()
	}

	fmt.Fprintln(w)
	listTable(w, d.Registers, "no named registers", []string{"REGISTER", "LINES", "BYTES"}, func(r wire.RegisterInfo) []string {
		return []string{"@" + cell(r.Name), strconv.Itoa(r.Lines), strconv.Itoa(r.Bytes)}
	})
}

func (f formatter) reviewSessions(w io.Writer, list []wire.ReviewSession) {
	shown := listTable(w, list, "no recorded changes", []string{"SESSION", "WORKSPACE", "CALLS", "ENTRIES", "LAST CHANGE"}, func(s wire.ReviewSession) []string {
		return []string{cell(s.SessionID), cell(s.Workspace), strconv.Itoa(s.Calls), strconv.Itoa(s.Entries), f.when(s.Last)}
	})
	if shown {
		fmt.Fprintln(w, "\nsee one session's changes with: hostctl review list SESSION")
	}
}

func (f formatter) reviewList(w io.Writer, sessionID string, entries []wire.ReviewEntry) {
	if len(entries) == 0 {
		fmt.Fprintf(w, "no review entries for session %s\n", cell(sessionID))
		return
	}
	// Entries come oldest first; a turn is the run of calls that share a
	// promptId. A session whose client sends none is one plain table.
	prompts := slices.ContainsFunc(entries, func(e wire.ReviewEntry) bool { return e.PromptID != "" })
	for start := 0; start < len(entries); {
		end := start + 1
		for end < len(entries) && sameTurn(entries[end-1], entries[end]) {
			end++
		}
		indent := ""
		if prompts {
			indent = "  "
			if start > 0 {
				fmt.Fprintln(w)
			}
			if id := entries[start].PromptID; id != "" {
				fmt.Fprintf(w, "turn %s\n", cell(id))
			} else {
				fmt.Fprintln(w, "calls without a turn (no promptId)")
			}
		} else {
			end = len(entries)
		}
		tw := table(w)
		row(tw, indent+"AT", "TOOL CALL", "TOOL", "CHANGE", "PATH", "STATE")
		for _, e := range entries[start:end] {
			state := "applied"
			if e.RolledBack {
				state = "rolled back"
			}
			row(tw, indent+f.when(e.At), cell(e.ToolCallID), cell(e.Tool), cell(e.Change), cell(e.Path), state)
		}
		tw.Flush()
		start = end
	}
	for _, e := range entries {
		fmt.Fprintln(w)
		f.entryDiff(w, e)
	}
	fmt.Fprintf(w, "\nundo one tool call with: hostctl review rollback %s TOOLCALL\n", cell(sessionID))
	if prompts {
		fmt.Fprintf(w, "undo a whole turn with:  hostctl review rewind %s --prompt ID [--dry-run]\n", cell(sessionID))
	}
}

// sameTurn reports whether b, listed right after a, belongs to a's turn:
// the same promptId, or, without one, the same call.
func sameTurn(a, b wire.ReviewEntry) bool {
	return a.PromptID == b.PromptID
}

// entryDiff prints one entry's heading and its diff. The heading's path is
// quoted as the diff's own headers quote it (git's C-style quoting), so a
// file name cannot print lines of its own.
func (f formatter) entryDiff(w io.Writer, e wire.ReviewEntry) {
	head := fmt.Sprintf("== %s %s %s (tool call %s, entry %s)", cell(e.Tool), cell(e.Change), quote.Path(e.Path), cell(e.ToolCallID), cell(e.ID))
	if e.RolledBack {
		head += " [rolled back]"
	}
	fmt.Fprintln(w, head)
	diff := strings.TrimSuffix(e.Diff, "\n")
	if diff == "" {
		fmt.Fprintln(w, "(no textual diff)")
		return
	}
	for line := range strings.SplitSeq(diff, "\n") {
		fmt.Fprintln(w, safeLine(line))
	}
}

// rollback reports what review.rollback restored and, when the entries
// could be fetched, the changes that were undone.
func (f formatter) rollback(w io.Writer, toolCallID string, res wire.RollbackResult, undone []wire.ReviewEntry) {
	fmt.Fprintf(w, "rolled back tool call %s: restored %d path(s)\n", cell(toolCallID), len(res.Restored))
	for _, p := range res.Restored {
		fmt.Fprintf(w, "  %s\n", cell(p))
	}
	if len(undone) == 0 {
		return
	}
	fmt.Fprintln(w, "\nundone changes (as the tool call made them):")
	for _, e := range undone {
		fmt.Fprintln(w)
		f.entryDiff(w, e)
	}
}

// rewind prints review.rewind's report: per file what it does (or would
// do), the diff it gets, and every conflict with its ways forward.
func (f formatter) rewind(w io.Writer, sessionID string, p wire.RewindParams, rep wire.RewindResult) {
	verb := "rewound"
	if rep.DryRun {
		verb = "would rewind"
	}
	calls := rep.Calls
	more := ""
	if len(calls) > maxCallsShown {
		calls, more = calls[:maxCallsShown], fmt.Sprintf(", … (%d more; --json lists every one)", len(rep.Calls)-maxCallsShown)
	}
	fmt.Fprintf(w, "%s %d tool call(s), newest first: %s%s\n", verb, len(rep.Calls), cell(strings.Join(calls, ", ")), more)
	tw := table(w)
	row(tw, "  PATH", "ACTION", "CALLS")
	for _, file := range rep.Files {
		row(tw, "  "+cell(file.Path), file.Action, cell(strings.Join(file.Calls, ", ")))
	}
	tw.Flush()
	for _, file := range rep.Files {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "== %s %s\n", file.Action, quote.Path(file.Path))
		if c := file.Conflict; c != nil {
			fmt.Fprintf(w, "conflict: %s\n", safeLine(c.Reason))
			for _, by := range c.ChangedBy {
				fmt.Fprintf(w, "  changed by session %s, tool call %s (%s, %s)\n", cell(by.SessionID), cell(by.ToolCallID), cell(by.Tool), f.when(by.At))
			}
			if len(c.ChangedBy) == 0 {
				fmt.Fprintln(w, "  changed outside hostd's record (a person, a formatter, a shell command)")
			}
			for _, o := range c.Overlap {
				for line := range strings.SplitSeq(strings.TrimSuffix(o, "\n"), "\n") {
					fmt.Fprintf(w, "  %s\n", safeLine(line))
				}
			}
			fmt.Fprintf(w, "  choices: %s\n", strings.Join(flagsOf(c.Choices), ", "))
		}
		diff := strings.TrimSuffix(file.Diff, "\n")
		if file.Conflict != nil && file.Action == "conflict" && diff != "" {
			fmt.Fprintln(w, "with --force:")
		}
		for line := range strings.SplitSeq(diff, "\n") {
			if line != "" {
				fmt.Fprintln(w, safeLine(line))
			}
		}
		if md := strings.TrimSuffix(file.MergeDiff, "\n"); md != "" {
			fmt.Fprintln(w, "with --merge:")
			for line := range strings.SplitSeq(md, "\n") {
				fmt.Fprintln(w, safeLine(line))
			}
		}
	}
	fmt.Fprintln(w)
	if rep.Recorded != "" {
		fmt.Fprintf(w, "what --force overwrote is recorded as tool call %s: hostctl review rollback %s %s brings it back\n", cell(rep.Recorded), cell(sessionID), cell(rep.Recorded))
	}
	if rep.DryRun {
		what := "--all"
		switch {
		case p.PromptID != "":
			what = "--prompt " + p.PromptID
		case p.Since != "":
			what = "--since " + p.Since
		case p.ToolCallID != "":
			what = "--call " + p.ToolCallID
		}
		fmt.Fprintf(w, "nothing was written; to do it: hostctl review rewind %s %s", cell(sessionID), cell(what))
		if rep.Conflicts > 0 {
			fmt.Fprint(w, " --keep-theirs|--merge|--force")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "note: %s\n", rep.Note)
}

// maxCallsShown bounds the calls a rewind's heading names.
const maxCallsShown = 12

// flagsOf names resolves as hostctl's flags.
func flagsOf(choices []string) []string {
	out := make([]string, len(choices))
	for i, c := range choices {
		switch c {
		case wire.ResolveKeepTheirs:
			out[i] = "--keep-theirs"
		case wire.ResolveMerge:
			out[i] = "--merge"
		case wire.ResolveForce:
			out[i] = "--force"
		default:
			out[i] = cell(c)
		}
	}
	return out
}

// rpcFailure prints a daemon error: its name, code and message, then any
// error.data beyond the name (details a person may need, e.g. the paths
// that conflicted).
func rpcFailure(w io.Writer, e *rpcError) {
	fmt.Fprintf(w, "hostctl: %s (%d): %s\n", cell(e.Name), e.Code, safeLine(e.Message))
	var data map[string]json.RawMessage
	if json.Unmarshal(e.Data, &data) != nil {
		return
	}
	// The name is printed already, and hostd's message for a params error
	// starts with the field it names.
	delete(data, "code")
	delete(data, "field")
	if len(data) == 0 {
		return
	}
	// Compact JSON escapes every control character, so it is safe as is.
	b, err := json.Marshal(data)
	if err == nil {
		fmt.Fprintf(w, "  details: %s\n", b)
	}
}

func (f formatter) languageServers(w io.Writer, l wire.LanguageServers) {
	switch {
	case !l.Enabled:
		fmt.Fprintln(w, "language servers are off (languageServers.enabled is false in the config file)")
		return
	case len(l.Servers) == 0:
		fmt.Fprintln(w, "no language server started yet: one starts at the first write, edit or diagnostics call on a file of its language")
		return
	}
	tw := table(w)
	row(tw, "ROOT", "LANGUAGE", "STATE", "PID", "MEMORY", "RESTARTS", "REFRESHES", "FILES", "IDLE", "LAST ERROR")
	for _, s := range l.Servers {
		pid, mem := "-", "-"
		if s.PID != 0 {
			pid = strconv.Itoa(s.PID)
		}
		if s.RSSBytes != 0 {
			mem = humanBytes(s.RSSBytes)
		}
		idle := (time.Duration(s.IdleMs) * time.Millisecond).Round(time.Second).String()
		lastErr := "-"
		if s.LastError != "" {
			lastErr = cell(s.LastError)
		}
		row(tw, cell(s.Root), cell(s.Language), cell(s.State), pid, mem, strconv.Itoa(s.Restarts), strconv.Itoa(s.Refreshes), strconv.Itoa(s.Documents), idle, lastErr)
	}
	tw.Flush()
}
