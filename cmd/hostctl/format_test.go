package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Canned results in the shapes of wire-contract §3 and §5, shared with the
// command tests.
const (
	infoJSON = `{"name":"hostd","version":"0.1.0","protocolVersion":1,"pid":4242,
		"startedAt":"2026-01-02T10:00:00Z","grammars":[],
		"limits":{"maxSessions":256,"maxFrameBytes":67108864,"maxLineChars":16384,"maxRetainedFileBytes":2097152,"maxLedgerEntries":4096,"maxRetainedBytesPerSession":8388608}}`

	sessionsJSON = `{"sessions":[
		{"sessionId":"s-1","workspace":"/src/app","createdAt":"2026-01-02T10:01:00Z","paths":3,"retainedBytes":5120},
		{"sessionId":"agent-2","workspace":"/src/lib","createdAt":"2026-01-02T10:02:30Z","paths":0,"retainedBytes":0}]}`

	statsJSON = `{"sessions":2,"retainedBytes":5120,"snapshots":4,"registers":1,"uptimeMs":192400,
		"goroutines":14,"heapBytes":3460300,
		"collector":{"limitBytes":54525952,"gcPercent":612,"liveBytes":3460300,"collections":37},
		"review":{"entries":37,"calls":30,"bytes":125952,"pendingIntents":0,"evictedCalls":2},
		"calls":{"tools.execute":{"count":12,"errors":1,"p50Us":850,"p99Us":12500},
		         "host.info":{"count":3,"errors":0,"p50Us":41,"p99Us":90}}}`

	sessionJSON = `{"sessionId":"s-1","workspace":"/src/app","retainedBytes":5120,
		"paths":[
		  {"path":"/src/app/main.go","versions":[
		    {"tag":"A1B2","bytes":2048,"lines":80,"seenLines":[[1,40],[50,50]],"retained":true,"recordedAt":"2026-01-02T10:02:00Z"},
		    {"tag":"9F00","bytes":2000,"lines":78,"seenLines":null,"retained":false,"recordedAt":"2026-01-02T10:01:30Z"}]},
		  {"path":"/etc/hosts","versions":[
		    {"tag":"0C3D","bytes":220,"lines":7,"seenLines":[],"retained":true,"recordedAt":"2026-01-02T10:02:10Z"}]}],
		"registers":[{"name":"fn","lines":12,"bytes":340}]}`

	reviewJSON = `{"entries":[
		{"id":"r-1","toolCallId":"tc-1","tool":"write","path":"notes.txt","change":"create",
		 "afterSha256":"ab","diff":"--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+hello\n","at":"2026-01-02T10:04:00Z","rolledBack":false},
		{"id":"r-2","toolCallId":"tc-2","tool":"edit","path":"main.go","change":"modify",
		 "beforeSha256":"cd","afterSha256":"ef","diff":"--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-a\n+b\n","at":"2026-01-02T10:05:00Z","rolledBack":true}]}`
)

func testFormatter() formatter {
	return formatter{loc: time.UTC, now: func() time.Time { return time.Date(2026, 1, 2, 10, 3, 12, 0, time.UTC) }}
}

// limitsOf is host.info's limits as hostctl prints them: as sent.
func limitsOf(t *testing.T, raw string) map[string]json.RawMessage {
	t.Helper()
	var v struct{ Limits map[string]json.RawMessage }
	mustDecode(t, raw, &v)
	return v.Limits
}

func mustDecode(t *testing.T, raw string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		t.Fatalf("canned result does not decode: %v", err)
	}
}

func TestTablesFromCannedResults(t *testing.T) {
	f := testFormatter()
	tests := []struct {
		name   string
		render func(*bytes.Buffer)
		want   string
	}{
		{"info", func(b *bytes.Buffer) {
			var in wire.HostInfo
			mustDecode(t, infoJSON, &in)
			f.info(b, "/run/user/1000/hostd/hostd.sock", in, limitsOf(t, infoJSON))
		}, `name      hostd
version   0.1.0
protocol  1
pid       4242
started   2026-01-02 10:00:00 (up 3m12s)
socket    /run/user/1000/hostd/hostd.sock
grammars  none

LIMIT                       VALUE
maxFrameBytes               67108864 (64 MiB)
maxLedgerEntries            4096
maxLineChars                16384
maxRetainedBytesPerSession  8388608 (8 MiB)
maxRetainedFileBytes        2097152 (2 MiB)
maxSessions                 256
`},
		{"sessions", func(b *bytes.Buffer) {
			var l wire.SessionList
			mustDecode(t, sessionsJSON, &l)
			f.sessions(b, l.Sessions)
		}, `SESSION  WORKSPACE  CREATED              PATHS  RETAINED
s-1      /src/app   2026-01-02 10:01:00  3      5 KiB
agent-2  /src/lib   2026-01-02 10:02:30  0      0 B
`},
		{"no sessions", func(b *bytes.Buffer) { f.sessions(b, nil) }, "no sessions\n"},
		{"stats", func(b *bytes.Buffer) {
			var st wire.Stats
			mustDecode(t, statsJSON, &st)
			f.stats(b, st)
		}, `sessions    2
retained    5 KiB
snapshots   4
registers   1
uptime      3m12s
goroutines  14
heap        3.3 MiB
collector   GOGC 612, limit 52 MiB, 3.3 MiB live, 37 collections
review      37 entries of 30 calls, 123 KiB; 0 unsettled; 2 calls evicted since start

METHOD         CALLS  ERRORS  P50    P99
host.info      3      0       41µs   90µs
tools.execute  12     1       850µs  12.5ms
`},
		// A review store found damaged is the first thing info and stats
		// print.
		{"info after a recovery", func(b *bytes.Buffer) {
			var in wire.HostInfo
			mustDecode(t, `{"name":"hostd","version":"0.1.0","review":{"recovered":{"from":"/state/review.db.corrupt-20260102T100000Z","reason":"the file is empty (0 bytes)","at":"2026-01-02T10:00:00Z"}}}`, &in)
			f.info(b, "/s", in, nil)
		}, `WARNING: the review store was damaged at start (the file is empty (0 bytes)); it was moved aside to /state/review.db.corrupt-20260102T100000Z and a fresh store started, so earlier review history is not shown

name      hostd
version   0.1.0
protocol  0
pid       0
started   -
socket    /s
grammars  none
`},
		{"stats of a broken store", func(b *bytes.Buffer) {
			var st wire.Stats
			mustDecode(t, `{"review":{"entries":3,"calls":2,"bytes":900,"pendingIntents":1,"evictedCalls":0,"broken":"bbolt panicked"}}`, &st)
			f.stats(b, st)
		}, `WARNING: the review store turned out damaged while running (bbolt panicked); review calls and changes fail until hostd restarts

sessions    0
retained    0 B
snapshots   0
registers   0
uptime      0s
goroutines  0
heap        0 B
review      3 entries of 2 calls, 900 B; 1 unsettled; 0 calls evicted since start

no calls yet
`},
		{"stats before any call", func(b *bytes.Buffer) { f.stats(b, wire.Stats{}) }, `sessions    0
retained    0 B
snapshots   0
registers   0
uptime      0s
goroutines  0
heap        0 B

no calls yet
`},
		// Paths under the workspace show as the model sees them; older
		// versions of a path follow it with the name left blank; null,
		// [] and ranges of seenLines print differently (edit-contract §4.3).
		{"session", func(b *bytes.Buffer) {
			var d wire.SessionDump
			mustDecode(t, sessionJSON, &d)
			f.session(b, d)
		}, `session    s-1
workspace  /src/app
retained   5 KiB

PATH        TAG   BYTES  LINES  SEEN     RETAINED  RECORDED
main.go     A1B2  2048   80     1-40,50  yes       2026-01-02 10:02:00
            9F00  2000   78     unknown  no        2026-01-02 10:01:30
/etc/hosts  0C3D  220    7      none     yes       2026-01-02 10:02:10

REGISTER  LINES  BYTES
@fn       12     340
`},
		{"empty session", func(b *bytes.Buffer) {
			f.session(b, wire.SessionDump{SessionID: "s-9", Workspace: "/w"})
		}, `session    s-9
workspace  /w
retained   0 B

no snapshots (nothing read, grepped, written or edited yet)

no named registers
`},
		{"review list", func(b *bytes.Buffer) {
			var l wire.ReviewList
			mustDecode(t, reviewJSON, &l)
			f.reviewList(b, "s-1", l.Entries)
		}, `AT                   TOOL CALL  TOOL   CHANGE  PATH       STATE
2026-01-02 10:04:00  tc-1       write  create  notes.txt  applied
2026-01-02 10:05:00  tc-2       edit   modify  main.go    rolled back

== write create notes.txt (tool call tc-1, entry r-1)
--- /dev/null
+++ b/notes.txt
@@ -0,0 +1 @@
+hello

== edit modify main.go (tool call tc-2, entry r-2) [rolled back]
--- a/main.go
+++ b/main.go
@@ -1 +1 @@
-a
+b

undo one tool call with: hostctl review rollback s-1 TOOLCALL
`},
		{"empty review list", func(b *bytes.Buffer) { f.reviewList(b, "s-1", nil) }, "no review entries for session s-1\n"},
		{"rollback", func(b *bytes.Buffer) {
			var l wire.ReviewList
			mustDecode(t, reviewJSON, &l)
			f.rollback(b, "tc-2", wire.RollbackResult{Restored: []string{"main.go"}}, l.Entries[1:])
		}, `rolled back tool call tc-2: restored 1 path(s)
  main.go

undone changes (as the tool call made them):

== edit modify main.go (tool call tc-2, entry r-2) [rolled back]
--- a/main.go
+++ b/main.go
@@ -1 +1 @@
-a
+b
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tt.render(&b)
			if got := b.String(); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// A file name or file content is the daemon's to send and the model's to
// choose: escape sequences in it must not reach the terminal raw, and a
// tab or newline must not break a table.
func TestDaemonTextCannotDriveTheTerminal(t *testing.T) {
	f := testFormatter()
	var b bytes.Buffer
	f.sessions(&b, []wire.SessionInfo{{SessionID: "s\x1b[2J", Workspace: "/w\tx\ny"}})
	f.reviewList(&b, "s", []wire.ReviewEntry{{Path: "a\x1b]0;pwned\a", Diff: "+ok\ttab\n+\x1b[31mred\n"}})
	out := b.String()
	if strings.ContainsAny(out, "\x1b\a") {
		t.Fatalf("raw control characters reached the output:\n%q", out)
	}
	for _, want := range []string{`"s\x1b[2J"`, `"/w\tx\ny"`, `"a\x1b]0;pwned\a"`, "+ok\ttab", `+\x1b[31mred`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

func TestSeenLines(t *testing.T) {
	tests := []struct {
		json string
		want string
	}{
		{`null`, "unknown"},
		{`[]`, "none"},
		{`[[7,7]]`, "7"},
		{`[[1,40],[42,44]]`, "1-40,42-44"},
		{`[[1,1],[3,3],[5,5],[7,7],[9,9],[11,11]]`, "1,3,5,7,…(+2 ranges)"},
	}
	for _, tt := range tests {
		var v wire.VersionDump
		mustDecode(t, `{"seenLines":`+tt.json+`}`, &v)
		if got := seen(v.SeenLines); got != tt.want {
			t.Errorf("seenLines %s: got %q, want %q", tt.json, got, tt.want)
		}
	}
	// An absent field is as unknown as null.
	var v wire.VersionDump
	mustDecode(t, `{}`, &v)
	if got := seen(v.SeenLines); got != "unknown" {
		t.Errorf("absent seenLines: got %q, want unknown", got)
	}
}

func TestHumanBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1 KiB"}, {1536, "1.5 KiB"},
		{64 << 20, "64 MiB"}, {3 << 30, "3 GiB"}, {5 << 40, "5 TiB"}, {2048 << 40, "2048 TiB"},
	}
	for _, tt := range tests {
		if got := humanBytes(tt.n); got != tt.want {
			t.Errorf("humanBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestMicros(t *testing.T) {
	tests := []struct {
		us   float64
		want string
	}{
		{0, "0µs"}, {41, "41µs"}, {999, "999µs"}, {1000, "1.0ms"}, {12500, "12.5ms"}, {2.5e6, "2.50s"},
	}
	for _, tt := range tests {
		if got := micros(tt.us); got != tt.want {
			t.Errorf("micros(%v) = %q, want %q", tt.us, got, tt.want)
		}
	}
}
