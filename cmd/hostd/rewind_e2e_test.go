package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/review"
)

// The rewind tests drive review.rewind (wire-contract §5) through the
// real daemon: a whole turn undone exactly, a SIGKILL at every point of a
// rewind leaving all or nothing after the restart, each way forward from
// a conflict, and two sessions editing one file.

// rewindReport is the part of review.rewind's result the checks read.
type rewindReport struct {
	DryRun    bool
	Calls     []string
	Conflicts int
	Recorded  string
	Note      string
	Files     []struct {
		Path      string
		Action    string
		Diff      string
		MergeDiff string
		Calls     []string
		Conflict  *struct {
			Reason    string
			ChangedBy []struct{ SessionID, ToolCallID string }
			Choices   []string
			Overlap   []string
		}
	}
}

// turnCall runs one tool call of a user turn of session and fails the
// test unless it succeeds.
func (r *crashRig) turnCall(session, prompt, tool, callID string, args map[string]any) {
	r.t.Helper()
	var res map[string]any
	mustCall(r.t, r.c, "tools.execute", map[string]any{"sessionId": session, "tool": tool, "promptId": prompt, "toolCallId": callID, "args": args}, &res)
	if res["ok"] != true {
		r.t.Fatalf("%s %s: %v", tool, callID, res)
	}
}

// tagIn reads rel through session and returns its tag.
func (r *crashRig) tagIn(session, rel string) string {
	r.t.Helper()
	var res map[string]any
	mustCall(r.t, r.c, "tools.execute", map[string]any{"sessionId": session, "tool": "read", "args": map[string]any{"path": rel}}, &res)
	tag, _ := res["tag"].(string)
	if res["ok"] != true || tag == "" {
		r.t.Fatalf("read %s: %v", rel, res)
	}
	return tag
}

func (r *crashRig) rewind(params map[string]any) (rewindReport, *rpcError) {
	r.t.Helper()
	var rep rewindReport
	e := call(r.t, r.c, "review.rewind", params, &rep)
	return rep, e
}

// lines is n numbered lines, with line i replaced by its value in change.
func lines(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := change[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// turnFixture lays out a turn's files under dir and runs the turn: calls
// over several files, a creation, an MV and a REM among them. It returns
// every path the turn touched, as it was before the turn and as the turn
// left it.
func (r *crashRig) turnFixture(dir, prompt string, long bool) (before, after map[string]fileState) {
	abs := func(rel string) string { return filepath.Join(r.ws, dir, rel) }
	rel := func(name string) string { return filepath.ToSlash(filepath.Join(dir, name)) }
	before = map[string]fileState{
		abs("src/a.go"):    present([]byte(lines(12, nil)), 0o644),
		abs("src/b.sh"):    present([]byte("#!/bin/sh\necho one\necho two\n"), 0o755),
		abs("bin/b.sh"):    absent(),
		abs("docs/c.md"):   present([]byte("# gone\n"), 0o640),
		abs("new/d.txt"):   absent(),
		abs("e.txt"):       present([]byte("e\n"), 0o600),
		abs("notes/f.txt"): absent(),
	}
	for p, s := range before {
		put(r.t, p, s)
	}
	s := r.session
	n := 0
	id := func() string { n++; return fmt.Sprintf("%s-c%d", prompt, n) }
	r.turnCall(s, prompt, "write", id(), map[string]any{"path": rel("src/a.go"), "content": lines(12, map[int]string{2: "TWO"})})
	r.turnCall(s, prompt, "edit", id(), map[string]any{"path": rel("src/a.go"), "tag": r.tagIn(s, rel("src/a.go")), "ops": "PUT 5.=5:\n+FIVE"})
	r.turnCall(s, prompt, "write", id(), map[string]any{"path": rel("new/d.txt"), "content": "fresh\n"})
	r.turnCall(s, prompt, "edit", id(), map[string]any{"path": rel("src/b.sh"), "tag": r.tagIn(s, rel("src/b.sh")), "ops": "PUT 2.=2:\n+echo ONE\nMV " + rel("bin/b.sh")})
	r.turnCall(s, prompt, "edit", id(), map[string]any{"path": rel("docs/c.md"), "tag": r.tagIn(s, rel("docs/c.md")), "ops": "REM"})
	if long {
		r.turnCall(s, prompt, "write", id(), map[string]any{"path": rel("e.txt"), "content": "E\n"})
		r.turnCall(s, prompt, "write", id(), map[string]any{"path": rel("new/d.txt"), "content": "fresher\n"})
		r.turnCall(s, prompt, "write", id(), map[string]any{"path": rel("src/a.go"), "content": lines(12, map[int]string{2: "TWO", 5: "FIVE", 11: "ELEVEN"})})
		r.turnCall(s, prompt, "edit", id(), map[string]any{"path": rel("bin/b.sh"), "tag": r.tagIn(s, rel("bin/b.sh")), "ops": "PUT 3.=3:\n+echo TWO"})
		r.turnCall(s, prompt, "write", id(), map[string]any{"path": rel("e.txt"), "content": "E2\n"})
		r.turnCall(s, prompt, "write", id(), map[string]any{"path": rel("notes/f.txt"), "content": "note\n"})
	} else {
		r.turnCall(s, prompt, "write", id(), map[string]any{"path": rel("e.txt"), "content": "E\n"})
	}
	after = map[string]fileState{}
	for p := range before {
		after[p] = observe(r.t, p)
	}
	return before, after
}

// wantFiles fails the test for every path that does not hold want.
func (r *crashRig) wantFiles(when string, want map[string]fileState) {
	r.t.Helper()
	for p, s := range want {
		if now := observe(r.t, p); !now.equal(s) {
			r.t.Errorf("%s: %s holds %v, want %v", when, r.rel(p), now, s)
		}
	}
}

// rolledBack reports, per toolCallId of the prompt, whether all its
// entries are rolled back (true), none (false), or some (the test fails).
func (r *crashRig) turnRolledBack(prompt string) bool {
	r.t.Helper()
	var list struct {
		Entries []review.Entry
	}
	mustCall(r.t, r.c, "review.list", map[string]any{"sessionId": r.session}, &list)
	var got []bool
	for _, e := range list.Entries {
		if e.PromptID == prompt {
			got = append(got, e.RolledBack)
		}
	}
	if len(got) == 0 {
		r.t.Fatalf("no entries of turn %s", prompt)
	}
	if slices.Contains(got, true) && slices.Contains(got, false) {
		r.t.Fatalf("turn %s is half rolled back: %v", prompt, got)
	}
	return got[0]
}

// A turn of eleven calls over seven paths, with a creation, an MV and a
// REM, comes undone exactly in one call; its preview writes nothing; the
// next turn stays.
func TestE2ERewindATurnExactly(t *testing.T) {
	r := newCrashRig(t)
	before, after := r.turnFixture("t", "turn-1", true)
	later := filepath.Join(r.ws, "later.txt")
	r.turnCall(r.session, "turn-2", "write", "turn-2-c1", map[string]any{"path": "later.txt", "content": "stays\n"})

	rep, e := r.rewind(map[string]any{"sessionId": r.session, "promptId": "turn-1", "dryRun": true})
	if e != nil {
		t.Fatal(e)
	}
	if !rep.DryRun || rep.Conflicts != 0 || len(rep.Calls) != 11 || len(rep.Files) != 7 || rep.Calls[0] != "turn-1-c11" || !strings.Contains(rep.Note, "outside hostd") {
		t.Fatalf("preview: %+v", rep)
	}
	for _, f := range rep.Files {
		if f.Diff == "" || f.Conflict != nil {
			t.Errorf("preview of %s: %+v", f.Path, f)
		}
	}
	r.wantFiles("after a preview", after)

	rep, e = r.rewind(map[string]any{"sessionId": r.session, "promptId": "turn-1"})
	if e != nil || rep.DryRun || rep.Recorded != "" {
		t.Fatalf("rewind: %+v %v", rep, e)
	}
	r.wantFiles("after the rewind", before)
	r.wantFiles("after the rewind", map[string]fileState{later: present([]byte("stays\n"), 0o644)})
	if !r.turnRolledBack("turn-1") || r.turnRolledBack("turn-2") {
		t.Error("the record does not say turn-1, and only it, is rolled back")
	}
	if _, e := r.rewind(map[string]any{"sessionId": r.session, "promptId": "turn-1"}); e == nil || e.Name != "ROLLBACK_CONFLICT" || !strings.Contains(e.Msg, "already rolled back") {
		t.Errorf("a second rewind: %v", e)
	}
	if _, e := r.rewind(map[string]any{"sessionId": r.session, "promptId": "no-such-turn"}); e == nil || e.Name != "REVIEW_NOT_FOUND" {
		t.Errorf("an unknown turn: %v", e)
	}
	if _, e := r.rewind(map[string]any{"sessionId": r.session, "promptId": "turn-2", "all": true}); e == nil || e.Name != "INVALID_PARAMS" {
		t.Errorf("two selections: %v", e)
	}
	// Every change since a call, here the whole later turn.
	if _, e := r.rewind(map[string]any{"sessionId": r.session, "since": "turn-2-c1"}); e != nil {
		t.Fatal(e)
	}
	r.wantFiles("after rewinding since turn-2-c1", map[string]fileState{later: absent()})
}

// rewindPoints are where a SIGKILL lands in a rewind of paths paths:
// before its intent, right after it, after each write, after the last
// write, and after the answer.
func rewindPoints(paths int) []string {
	points := []string{"before", "intent"}
	for i := 1; i <= paths; i++ {
		points = append(points, fmt.Sprintf("step%d", i))
	}
	return append(points, "written", "after")
}

// A SIGKILL at any point of a rewind leaves, after the restart, every
// file of the turn at its before (the rewind happened, finished by the
// restart) or every one at the agent's (it did not start), never a mix,
// and the record agrees. The kill lands where the daemon, built with
// test hooks, stops and says so: the test waits for that line, not for
// time to pass.
func TestE2ERewindSIGKILLIsAllOrNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the real hostd many times; skipped under -short")
	}
	r := newCrashRig(t)
	r.stop()
	r.bin = hostdWithTestHooks(t)
	points := rewindPoints(6) // turnFixture's short turn touches six paths
	for i, point := range points {
		prompt := fmt.Sprintf("kill-%d", i)
		r.env = []string{review.RewindHookEnv + "=" + point}
		r.start()
		before, after := r.turnFixture(prompt, prompt, false)
		nc := r.send("review.rewind", map[string]any{"sessionId": r.session, "promptId": prompt})
		if point == "after" {
			body, err := readFrame(bufio.NewReader(nc))
			var resp struct{ Error json.RawMessage }
			if err != nil || json.Unmarshal(body, &resp) != nil || resp.Error != nil {
				t.Fatalf("the rewind failed: %v %s", err, body)
			}
		} else if !r.d.waitStderr("rewind hook: stopped at "+point, 30*time.Second) {
			t.Fatalf("the rewind never reached %s:\n%s", point, r.d.output())
		}
		r.kill()
		nc.Close()

		r.env = nil
		r.start()
		if point == "before" {
			r.wantFiles("killed before the rewind's intent", after)
			if r.turnRolledBack(prompt) {
				t.Errorf("killed before the intent, the record says %s is rolled back", prompt)
			}
			// Nothing was left busy: the same rewind now goes through.
			if _, e := r.rewind(map[string]any{"sessionId": r.session, "promptId": prompt}); e != nil {
				t.Fatalf("the rewind after the restart: %v", e)
			}
		} else if point != "after" && !r.settledAtStart() {
			t.Errorf("killed at %s, the restart settled nothing", point)
		}
		r.wantFiles("killed at "+point, before)
		if !r.turnRolledBack(prompt) {
			t.Errorf("killed at %s, the record does not say %s is rolled back", point, prompt)
		}
		if n := r.pendingIntents(); n != 0 {
			t.Errorf("killed at %s: %d intents left", point, n)
		}
		if left := tempFiles(t, r.ws); len(left) > 0 {
			t.Errorf("killed at %s: temporary files left: %v", point, left)
		}
		r.stop()
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("killed a rewind at %d points: %s", len(points), strings.Join(points, ", "))
}

// Every way forward from a conflict, through the daemon: refused without
// one, keepTheirs, a merge of edits on other lines, a merge refused with
// the lines when they overlap, and force, whose record brings the
// person's work back.
func TestE2ERewindConflictChoices(t *testing.T) {
	r := newCrashRig(t)
	abs := func(rel string) string { return filepath.Join(r.ws, rel) }
	orig := lines(10, nil)
	for _, name := range []string{"a.txt", "c.txt", "d.txt"} {
		put(t, abs(name), present([]byte(orig), 0o644))
	}
	put(t, abs("b.txt"), present([]byte("bee\n"), 0o644))
	s := r.session

	// keepTheirs: the person changed a.txt after the turn.
	r.turnCall(s, "t1", "write", "t1-a", map[string]any{"path": "a.txt", "content": lines(10, map[int]string{2: "TWO"})})
	r.turnCall(s, "t1", "write", "t1-b", map[string]any{"path": "b.txt", "content": "BEE\n"})
	theirs := present([]byte(lines(10, map[int]string{2: "TWO", 9: "person's nine"})), 0o644)
	put(t, abs("a.txt"), theirs)
	_, e := r.rewind(map[string]any{"sessionId": s, "promptId": "t1"})
	if e == nil || e.Name != "ROLLBACK_CONFLICT" || !strings.Contains(e.Msg, "a.txt") || !strings.Contains(e.Msg, "keepTheirs") || !strings.Contains(e.Msg, "nothing was restored") {
		t.Fatalf("a conflict without a resolve: %v", e)
	}
	r.wantFiles("after a refused rewind", map[string]fileState{abs("a.txt"): theirs, abs("b.txt"): present([]byte("BEE\n"), 0o644)})
	// A single call's rollback names the same ways forward.
	e = call(t, r.c, "review.rollback", map[string]any{"sessionId": s, "toolCallId": "t1-a"}, nil)
	if e == nil || !strings.Contains(e.Msg, "keepTheirs") || !strings.Contains(e.Msg, "force") {
		t.Errorf("review.rollback's conflict names no way forward: %v", e)
	}
	rep, e := r.rewind(map[string]any{"sessionId": s, "promptId": "t1", "dryRun": true})
	if e != nil || rep.Conflicts != 1 {
		t.Fatalf("preview: %+v %v", rep, e)
	}
	for _, f := range rep.Files {
		if f.Path == "a.txt" && (f.Conflict == nil || !slices.Equal(f.Conflict.Choices, []string{"keepTheirs", "merge", "force"}) || len(f.Conflict.ChangedBy) != 0 || !strings.Contains(f.MergeDiff, "-TWO")) {
			t.Errorf("preview of a.txt: %+v", f)
		}
	}
	if _, e := r.rewind(map[string]any{"sessionId": s, "promptId": "t1", "resolve": "keepTheirs"}); e != nil {
		t.Fatal(e)
	}
	r.wantFiles("after keepTheirs", map[string]fileState{abs("a.txt"): theirs, abs("b.txt"): present([]byte("bee\n"), 0o644)})

	// merge: the person's edit is on another line than the agent's.
	r.turnCall(s, "t2", "edit", "t2-c", map[string]any{"path": "c.txt", "tag": r.tagIn(s, "c.txt"), "ops": "PUT 2.=2:\n+TWO"})
	put(t, abs("c.txt"), present([]byte(lines(10, map[int]string{2: "TWO", 8: "person's eight"})), 0o644))
	if _, e := r.rewind(map[string]any{"sessionId": s, "promptId": "t2", "resolve": "merge"}); e != nil {
		t.Fatal(e)
	}
	r.wantFiles("after a merge", map[string]fileState{abs("c.txt"): present([]byte(lines(10, map[int]string{8: "person's eight"})), 0o644)})

	// An overlapping merge is refused with the lines; force overwrites,
	// and the person's work comes back by rolling its record back.
	r.turnCall(s, "t3", "edit", "t3-d", map[string]any{"path": "d.txt", "tag": r.tagIn(s, "d.txt"), "ops": "PUT 4.=4:\n+FOUR"})
	mine := present([]byte(lines(10, map[int]string{4: "person's four"})), 0o644)
	put(t, abs("d.txt"), mine)
	_, e = r.rewind(map[string]any{"sessionId": s, "promptId": "t3", "resolve": "merge"})
	if e == nil || e.Name != "ROLLBACK_CONFLICT" || !strings.Contains(e.Msg, "person's four") || !strings.Contains(e.Msg, "FOUR") {
		t.Fatalf("an overlapping merge: %v", e)
	}
	r.wantFiles("after a refused merge", map[string]fileState{abs("d.txt"): mine})
	rep, e = r.rewind(map[string]any{"sessionId": s, "promptId": "t3", "resolve": "force"})
	if e != nil || rep.Recorded == "" {
		t.Fatalf("force: %+v %v", rep, e)
	}
	r.wantFiles("after force", map[string]fileState{abs("d.txt"): present([]byte(orig), 0o644)})
	mustCall(t, r.c, "review.rollback", map[string]any{"sessionId": s, "toolCallId": rep.Recorded}, nil)
	r.wantFiles("after rolling back what force overwrote", map[string]fileState{abs("d.txt"): mine})

	// One way forward per file: merge one, force the other.
	for _, name := range []string{"e.txt", "f.txt"} {
		put(t, abs(name), present([]byte(orig), 0o644))
		r.turnCall(s, "t4", "edit", "t4-"+name, map[string]any{"path": name, "tag": r.tagIn(s, name), "ops": "PUT 3.=3:\n+THREE"})
	}
	put(t, abs("e.txt"), present([]byte(lines(10, map[int]string{3: "THREE", 7: "person's seven"})), 0o644))
	put(t, abs("f.txt"), present([]byte(lines(10, map[int]string{3: "person's three"})), 0o644))
	if _, e := r.rewind(map[string]any{"sessionId": s, "promptId": "t4", "resolveFiles": map[string]string{"nope.txt": "force"}}); e == nil || e.Name != "INVALID_PARAMS" {
		t.Errorf("resolveFiles naming a file the rewind does not touch: %v", e)
	}
	if _, e := r.rewind(map[string]any{"sessionId": s, "promptId": "t4", "resolveFiles": map[string]string{"e.txt": "merge", "f.txt": "force"}}); e != nil {
		t.Fatal(e)
	}
	r.wantFiles("after a merge of one file and a force of the other", map[string]fileState{
		abs("e.txt"): present([]byte(lines(10, map[int]string{7: "person's seven"})), 0o644),
		abs("f.txt"): present([]byte(orig), 0o644),
	})
}

// Two sessions edit one file in turns; one rewinds its turn. The other's
// edit in between is named as a recorded change of the other session,
// and a merge keeps it.
func TestE2ERewindTwoSessionsInterleaved(t *testing.T) {
	r := newCrashRig(t)
	other := "other-session"
	mustCall(t, r.c, "session.create", map[string]any{"workspace": r.ws, "sessionId": other}, nil)
	p := filepath.Join(r.ws, "shared.txt")
	put(t, p, present([]byte(lines(10, nil)), 0o644))
	s := r.session
	r.turnCall(s, "mine", "edit", "m-1", map[string]any{"path": "shared.txt", "tag": r.tagIn(s, "shared.txt"), "ops": "PUT 2.=2:\n+MINE TWO"})
	r.turnCall(other, "theirs", "edit", "o-1", map[string]any{"path": "shared.txt", "tag": r.tagIn(other, "shared.txt"), "ops": "PUT 8.=8:\n+THEIRS EIGHT"})
	r.turnCall(s, "mine", "edit", "m-2", map[string]any{"path": "shared.txt", "tag": r.tagIn(s, "shared.txt"), "ops": "PUT 3.=3:\n+MINE THREE"})
	r.turnCall(other, "theirs", "edit", "o-2", map[string]any{"path": "shared.txt", "tag": r.tagIn(other, "shared.txt"), "ops": "PUT 9.=9:\n+THEIRS NINE"})

	rep, e := r.rewind(map[string]any{"sessionId": s, "promptId": "mine", "dryRun": true})
	if e != nil || rep.Conflicts != 1 || len(rep.Files) != 1 {
		t.Fatalf("preview: %+v %v", rep, e)
	}
	c := rep.Files[0].Conflict
	if c == nil || len(c.ChangedBy) == 0 || c.ChangedBy[0].SessionID != other || !slices.Contains(c.Choices, "merge") {
		t.Fatalf("the conflict does not name the other session: %+v", c)
	}
	if _, e := r.rewind(map[string]any{"sessionId": s, "promptId": "mine", "resolve": "merge"}); e != nil {
		t.Fatal(e)
	}
	r.wantFiles("after the merge", map[string]fileState{p: present([]byte(lines(10, map[int]string{8: "THEIRS EIGHT", 9: "THEIRS NINE"})), 0o644)})
	var list struct{ Entries []review.Entry }
	mustCall(t, r.c, "review.list", map[string]any{"sessionId": other}, &list)
	for _, e := range list.Entries {
		if e.RolledBack {
			t.Errorf("the other session's %s was rolled back", e.ToolCallID)
		}
	}
}
