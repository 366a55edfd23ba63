package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The crash test proves issue 5's promise on the real binary: a SIGKILL at
// any moment of a write, an edit, an MV, a REM or a rollback leaves every
// path either its before or its after (bytes and mode), never half and
// never with an atomic write's temporary file left behind; and after the
// restart review.list shows a change exactly when it is on disk, and
// rolling back what it shows restores the before state.
//
// Kill points come two ways. Timed points spread over the whole call, as
// measured by one uninterrupted run. Triggered points watch the disk and
// kill a little after a step became visible there (a temporary file
// appeared, a file appeared or vanished), so the narrow windows inside a
// call are hit on every run, not only when the timing happens to fall in
// them. Neither needs a hook in the daemon.

// crashCase is one call to kill hostd during: every path it touches, as it
// was before the call and as the call leaves it.
type crashCase struct {
	method string
	params map[string]any
	// callID is the tool call whose review entries say what happened;
	// entries is how many it records (two for an MV).
	callID  string
	entries int
	// rollback marks a review.rollback of callID: its entries exist on
	// both sides, and rolledBack says which side the disk is on.
	rollback      bool
	before, after map[string]fileState
	// watch is the path whose step a triggered kill waits for: the first
	// path the call writes.
	watch string
}

// caseBuilder sets up one case's files, through or beside the running
// daemon; n names its files and its tool call, size is its files' size
// (0: a small file).
type caseBuilder func(r *crashRig, n string, size int) crashCase

// trigger is what a triggered kill waits for, or timed.
type trigger int

const (
	timed      trigger = iota
	tempFile           // an atomic write's temporary file beside watch
	flipsWatch         // watch appears or vanishes
)

func (tr trigger) String() string {
	switch tr {
	case tempFile:
		return "a temp file appeared"
	case flipsWatch:
		return "a file appeared or vanished"
	}
	return "sending"
}

// triggeredSpan is how long after its trigger a triggered point kills, at
// most: a few of the fsyncs that follow a step.
const triggeredSpan = 3 * time.Millisecond

// crashPoints is how many times a scenario kills hostd: n, or a quarter
// of n (at least 2) under the race detector. The daemon under test is a
// plain build either way, so the race run checks only the rig again; the
// plain run kills at every point (94 s of the race run went here).
func crashPoints(n int) int {
	if raceEnabled {
		return max(2, n/4)
	}
	return n
}

// crashScenario is one kind of call and how many times, and when, to kill
// hostd during it.
type crashScenario struct {
	name   string
	points int
	size   int
	at     trigger
	build  caseBuilder
}

func TestCrashSafetyUnderSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the real hostd many times; skipped under -short")
	}
	r := newCrashRig(t)
	start := time.Now()
	total := r.runScenarios(crashScenarios())
	if left := tempFiles(t, r.ws); len(left) > 0 {
		t.Errorf("temporary files left in the workspace: %v", left)
	}
	t.Logf("total in %v: %v", time.Since(start).Round(time.Millisecond), total)
	if total.points < crashPoints(50) {
		t.Errorf("only %d kill points", total.points)
	}
}

// runScenarios kills hostd during each scenario's calls, failing the test
// at the first point that leaves the disk or the review record wrong.
func (r *crashRig) runScenarios(scs []crashScenario) crashTally {
	t := r.t
	var total crashTally
	for _, sc := range scs {
		began := time.Now()
		// One uninterrupted run measures how long the call takes here, so
		// timed points spread over the whole call on a fast machine and a
		// slow one alike.
		took := r.measure(sc.build(r, sc.name+"-warm", sc.size))
		span := max(2*took, 6*time.Millisecond)
		if sc.at != timed {
			span = triggeredSpan
		}
		var tally crashTally
		points := crashPoints(sc.points)
		for i := range points {
			delay := span * time.Duration(i) / time.Duration(points-1)
			n := fmt.Sprintf("%s-%d", sc.name, i)
			cc := sc.build(r, n, sc.size)
			r.killDuring(fmt.Sprintf("%s (kill %.2f ms after %s)", n, ms(delay), sc.at), cc, sc.at, 2*took+time.Second, delay, &tally)
			if t.Failed() {
				t.FailNow()
			}
		}
		how := fmt.Sprintf("kills 0-%.1f ms after sending", ms(span))
		if sc.at != timed {
			how = fmt.Sprintf("kills 0-%.1f ms after %s, fired %d/%d", ms(span), sc.at, tally.triggered, tally.points)
		}
		t.Logf("%-16s call %6.1f ms, %s: %v [%.1fs]", sc.name, ms(took), how, tally, time.Since(began).Seconds())
		total.add(tally)
	}
	return total
}

// Review entries are durable (wire-contract §5): after hostd stops, gracefully or
// killed right after it answered, and starts again on the same state
// directory, session.create with the same sessionId sees every entry as it
// was and can roll each back, refusing one whose file changed since;
// another session sees none of them.
func TestE2EReviewEntriesSurviveRestart(t *testing.T) {
	r := newCrashRig(t)
	abs := func(rel string) string { return filepath.Join(r.ws, rel) }
	original := map[string]fileState{
		abs("keep/a.txt"):      present([]byte("alpha\nbeta\n"), 0o644),
		abs("keep/b.sh"):       present([]byte("#!/bin/sh\necho hi\n"), 0o755),
		abs("keep/gone.txt"):   present([]byte("bye\n"), 0o640),
		abs("keep/new.txt"):    absent(),
		abs("keep/moved/b.sh"): absent(),
	}
	for p, s := range original {
		put(t, p, s)
	}
	r.exec("write", "c-create", map[string]any{"path": "keep/new.txt", "content": "fresh\n"})
	edited := r.exec("edit", "c-edit", map[string]any{"path": "keep/a.txt", "tag": r.readTag("keep/a.txt"), "ops": "PUT 2.=2:\n+BETA"})
	r.exec("edit", "c-mv", map[string]any{"path": "keep/b.sh", "tag": r.readTag("keep/b.sh"), "ops": "PUT 2.=2:\n+echo moved\nMV keep/moved/b.sh"})
	before := r.list()
	if len(before) != 4 {
		t.Fatalf("entries before the restart: %+v", before)
	}

	r.stop()
	r.start()
	if after := r.list(); !reflect.DeepEqual(after, before) {
		t.Fatalf("entries after a graceful restart:\n%+v\nwant\n%+v", after, before)
	}
	var other struct{ Entries []reviewEntry }
	mustCall(t, r.c, "session.create", map[string]any{"workspace": r.ws, "sessionId": "another-session"}, nil)
	mustCall(t, r.c, "review.list", map[string]any{"sessionId": "another-session"}, &other)
	if len(other.Entries) != 0 {
		t.Errorf("another session sees %+v", other.Entries)
	}
	// A tag minted before the restart names a snapshot the new process
	// never held (edit-contract §4.4): the edit is refused, nothing changes.
	var res map[string]any
	mustCall(t, r.c, "tools.execute", map[string]any{"sessionId": r.session, "tool": "edit", "args": map[string]any{"path": "keep/a.txt", "tag": edited["tag"], "ops": "PUT 1.=1:\n+ALPHA"}}, &res)
	if code, _ := res["error"].(map[string]any)["code"].(string); res["ok"] != false || code != "EDIT_TAG_UNKNOWN" {
		t.Errorf("an edit with a tag from the previous process: %v", res)
	}

	// An answered call is durable even if hostd dies right after.
	r.exec("edit", "c-rem", map[string]any{"path": "keep/gone.txt", "tag": r.readTag("keep/gone.txt"), "ops": "REM"})
	r.kill()
	r.start()
	all := r.list()
	if len(all) != 5 || !reflect.DeepEqual(all[:4], before) || all[4].ToolCallID != "c-rem" || all[4].Change != "delete" {
		t.Fatalf("entries after a kill:\n%+v", all)
	}
	// The conflict check works on the record of a previous process: a file
	// changed since the call is never overwritten (peer lesson 11).
	edit := observe(t, abs("keep/a.txt"))
	theirs := present([]byte("someone else's work\n"), 0o644)
	put(t, abs("keep/a.txt"), theirs)
	wantCode(t, call(t, r.c, "review.rollback", map[string]any{"sessionId": r.session, "toolCallId": "c-edit"}, nil), -32003, "ROLLBACK_CONFLICT")
	if now := observe(t, abs("keep/a.txt")); !now.equal(theirs) {
		t.Fatalf("a refused rollback changed the file: %v", now)
	}
	put(t, abs("keep/a.txt"), edit)
	for _, id := range []string{"c-rem", "c-mv", "c-edit", "c-create"} {
		mustCall(t, r.c, "review.rollback", map[string]any{"sessionId": r.session, "toolCallId": id}, nil)
	}
	for p, s := range original {
		if now := observe(t, p); !now.equal(s) {
			t.Errorf("%s after rolling back every call: %v, want %v", r.rel(p), now, s)
		}
	}
	// The rollbacks are as durable as the changes.
	r.stop()
	r.start()
	for _, e := range r.list() {
		if !e.RolledBack {
			t.Errorf("after another restart %s of %s is not rolled back", e.Path, e.ToolCallID)
		}
	}
}

// largeFile is the size of the large scenarios' files: big enough that
// capturing, writing and restoring one takes a while (tens of
// milliseconds), so a kill lands well inside the write.
const largeFile = 1 << 20

func crashScenarios() []crashScenario {
	return []crashScenario{
		{"write-modify", 16, 0, timed, buildWrite},
		{"write-create", 16, 0, timed, buildCreate},
		{"edit", 16, 0, timed, buildEdit},
		{"edit-MV", 16, 0, timed, buildMove},
		{"edit-REM", 16, 0, timed, buildRemove},
		{"rollback-edit", 16, 0, timed, rollbackOf(buildEdit)},
		{"rollback-MV", 16, 0, timed, rollbackOf(buildMove)},
		{"rollback-REM", 16, 0, timed, rollbackOf(buildRemove)},
		{"write@temp", 8, 0, tempFile, buildWrite},
		{"edit@temp", 8, 0, tempFile, buildEdit},
		{"edit-MV@dest", 8, 0, flipsWatch, buildMove},
		{"edit-REM@unlink", 8, 0, flipsWatch, buildRemove},
		{"rollback-edit@temp", 8, 0, tempFile, rollbackOf(buildEdit)},
		{"rollback-MV@src", 8, 0, flipsWatch, rollbackOf(buildMove)},
		{"write-large@temp", 8, largeFile, tempFile, buildWrite},
		{"MV-large@temp", 8, largeFile / 2, tempFile, buildMove},
		{"rollback-REM-lg@temp", 8, largeFile / 2, tempFile, rollbackOf(buildRemove)},
	}
}

// text is the content of a test file: numbered lines, distinct per seed,
// about size bytes (30 lines when size is 0).
func text(size int, seed string) []byte {
	n := 30
	if size > 0 {
		n = size/(len(seed)+14) + 1
	}
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", seed, i)
	}
	return []byte(b.String())
}

// buildWrite: write replaces a 0640 file, which keeps its mode.
func buildWrite(r *crashRig, n string, size int) crashCase {
	rel := "write/" + n + ".txt"
	p := filepath.Join(r.ws, rel)
	before, content := present(text(size, "old "+n), 0o640), text(size, "new "+n)
	put(r.t, p, before)
	return crashCase{
		method: "tools.execute", params: r.toolCall("write", n, map[string]any{"path": rel, "content": string(content)}),
		callID: n, entries: 1, watch: p,
		before: map[string]fileState{p: before},
		after:  map[string]fileState{p: present(content, 0o640)},
	}
}

// buildCreate: write creates a file in a directory that does not exist.
func buildCreate(r *crashRig, n string, size int) crashCase {
	rel := "create/" + n + "/new.txt"
	p := filepath.Join(r.ws, rel)
	content := text(size, "created "+n)
	return crashCase{
		method: "tools.execute", params: r.toolCall("write", n, map[string]any{"path": rel, "content": string(content)}),
		callID: n, entries: 1, watch: p,
		before: map[string]fileState{p: absent()},
		after:  map[string]fileState{p: present(content, 0o644)},
	}
}

// buildEdit: edit replaces lines 3-4 of an executable file.
func buildEdit(r *crashRig, n string, size int) crashCase {
	rel := "edit/" + n + ".py"
	p := filepath.Join(r.ws, rel)
	before := present(text(size, "orig "+n), 0o755)
	put(r.t, p, before)
	ops := fmt.Sprintf("PUT 3.=4:\n+changed A %s\n+changed B %s", n, n)
	rows := strings.SplitAfter(string(before.Data), "\n")
	after := strings.Join(rows[:2], "") + fmt.Sprintf("changed A %s\nchanged B %s\n", n, n) + strings.Join(rows[4:], "")
	return crashCase{
		method: "tools.execute", params: r.toolCall("edit", n, map[string]any{"path": rel, "tag": r.readTag(rel), "ops": ops}),
		callID: n, entries: 1, watch: p,
		before: map[string]fileState{p: before},
		after:  map[string]fileState{p: present([]byte(after), 0o755)},
	}
}

// buildMove: edit changes the first line of a 0600 file and moves it into
// a new directory: a "delete" and a "create" under one tool call.
func buildMove(r *crashRig, n string, size int) crashCase {
	rel, destRel := "mv/"+n+".txt", "mv/to-"+n+"/"+n+".txt"
	src, dest := filepath.Join(r.ws, rel), filepath.Join(r.ws, destRel)
	before := present(text(size, "moving "+n), 0o600)
	put(r.t, src, before)
	_, rest, _ := strings.Cut(string(before.Data), "\n")
	moved := present([]byte("moved "+n+"\n"+rest), 0o600)
	ops := fmt.Sprintf("PUT 1.=1:\n+moved %s\nMV %s", n, destRel)
	return crashCase{
		method: "tools.execute", params: r.toolCall("edit", n, map[string]any{"path": rel, "tag": r.readTag(rel), "ops": ops}),
		callID: n, entries: 2, watch: dest,
		before: map[string]fileState{src: before, dest: absent()},
		after:  map[string]fileState{src: absent(), dest: moved},
	}
}

// buildRemove: REM deletes a 0640 file; its rollback must bring back the
// bytes and the mode.
func buildRemove(r *crashRig, n string, size int) crashCase {
	rel := "rem/" + n + ".txt"
	p := filepath.Join(r.ws, rel)
	before := present(text(size, "doomed "+n), 0o640)
	put(r.t, p, before)
	return crashCase{
		method: "tools.execute", params: r.toolCall("edit", n, map[string]any{"path": rel, "tag": r.readTag(rel), "ops": "REM"}),
		callID: n, entries: 1, watch: p,
		before: map[string]fileState{p: before},
		after:  map[string]fileState{p: absent()},
	}
}

// rollbackOf makes the mutation of build land (uninterrupted), then kills
// hostd during its review.rollback.
func rollbackOf(build caseBuilder) caseBuilder {
	return func(r *crashRig, n string, size int) crashCase {
		r.t.Helper()
		m := build(r, n, size)
		var res map[string]any
		mustCall(r.t, r.c, m.method, m.params, &res)
		if res["ok"] != true {
			r.t.Fatalf("the change to roll back failed: %v", res)
		}
		for p, s := range m.after {
			if now := observe(r.t, p); !now.equal(s) {
				r.t.Fatalf("%s after the change: %v, want %v", r.rel(p), now, s)
			}
		}
		// A rollback first writes back the paths that had content.
		watch := m.watch
		for p, s := range m.before {
			if s.Exists {
				watch = p
			}
		}
		return crashCase{
			method: "review.rollback", params: map[string]any{"sessionId": r.session, "toolCallId": m.callID},
			callID: m.callID, entries: m.entries, rollback: true, watch: watch,
			before: m.after, after: m.before,
		}
	}
}
