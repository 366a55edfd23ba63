package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// crashTally counts where the kill points of one scenario landed.
type crashTally struct {
	points, before, after int
	answered              int // the result reached the client before the kill
	recorded              int // so did a review.recorded notification of the call
	triggered             int // the trigger fired (triggered points)
	midway                int // before the restart the disk held neither side, or a temp file
	temps                 int // atomic-write temp files found before the restart
	settled               int // the restart found an unfinished mutation or rollback
}

func (a *crashTally) add(b crashTally) {
	a.points += b.points
	a.before += b.before
	a.after += b.after
	a.answered += b.answered
	a.recorded += b.recorded
	a.triggered += b.triggered
	a.midway += b.midway
	a.temps += b.temps
	a.settled += b.settled
}

func (a crashTally) String() string {
	return fmt.Sprintf("%3d points: %3d before, %3d after (%d answered, %d announced); midway on disk %d, temp files %d, settled at restart %d",
		a.points, a.before, a.after, a.answered, a.recorded, a.midway, a.temps, a.settled)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// measure runs a case to its end without a kill and returns how long it
// took; check verifies that it landed and rolls it back.
func (r *crashRig) measure(cc crashCase) time.Duration {
	r.t.Helper()
	began := time.Now()
	var res map[string]any
	mustCall(r.t, r.c, cc.method, cc.params, &res)
	took := time.Since(began)
	if ok, isTool := res["ok"]; isTool && ok != true {
		r.t.Fatalf("the uninterrupted call failed: %v", res)
	}
	if !r.check("uninterrupted", cc) {
		r.t.Fatal("the uninterrupted call left the files as they were")
	}
	return took
}

// killDuring sends the case's call, waits for its trigger (at most limit)
// and then delay, kills hostd, restarts it and checks the disk and the
// review store.
func (r *crashRig) killDuring(label string, cc crashCase, at trigger, limit, delay time.Duration, tally *crashTally) {
	r.t.Helper()
	if at != timed && r.waitTrigger(cc, at, nil) {
		r.t.Fatalf("%s: the trigger holds before the call was sent", label)
	}
	fired := false
	nc := r.send(cc.method, cc.params)
	if at != timed {
		deadline := time.Now().Add(limit)
		fired = r.waitTrigger(cc, at, &deadline)
	}
	time.Sleep(delay)
	r.kill()
	answered, recorded := r.heard(label, nc, cc.callID)

	midway := false
	for p := range cc.before {
		if now := observe(r.t, p); !now.equal(cc.before[p]) && !now.equal(cc.after[p]) {
			midway = true
		}
	}
	temps := len(tempFiles(r.t, r.ws))
	r.start()

	tally.points++
	if fired && at != timed {
		tally.triggered++
	}
	if midway || temps > 0 {
		tally.midway++
	}
	tally.temps += temps
	if r.settledAtStart() {
		tally.settled++
	}
	landed := r.check(label, cc)
	if landed {
		tally.after++
	} else {
		tally.before++
	}
	if recorded {
		tally.recorded++
	}
	if answered {
		tally.answered++
		if !landed {
			r.t.Errorf("%s: the call answered before the kill, but its change is not on disk after the restart", label)
		}
	}
	if recorded && !landed {
		r.t.Errorf("%s: review.recorded announced the call before the kill, but its change is not on disk after the restart", label)
	}
}

// heard reads what reached the client before the kill: whether the call
// answered, and whether a review.recorded notification announced it. Both
// promise that the change is durable (wire-contract §5), so the disk must then
// hold it after the restart. A call that failed on its own proves nothing
// and stops the test.
func (r *crashRig) heard(label string, nc net.Conn, callID string) (answered, recorded bool) {
	r.t.Helper()
	defer nc.Close()
	nc.SetReadDeadline(time.Now().Add(time.Second)) // the kill closed the socket; this only guards a hang
	br := bufio.NewReader(nc)
	for {
		frame, err := readFrame(br)
		if err != nil {
			return answered, recorded
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ToolCallID string `json:"toolCallId"`
			} `json:"params"`
		}
		if err := json.Unmarshal(frame, &m); err != nil {
			r.t.Fatalf("%s: %q: %v", label, frame, err)
		}
		switch {
		case m.Method == "review.recorded":
			recorded = recorded || m.Params.ToolCallID == callID
		case m.ID != nil:
			if !succeeded(frame) {
				r.t.Fatalf("%s: the call failed on its own, so the kill proves nothing: %.500s", label, frame)
			}
			answered = true
		}
	}
}

// waitTrigger spins until the case's trigger shows on disk, or until the
// deadline (nil: checks once). It spins rather than sleeps because the
// windows it aims at last a millisecond or less.
func (r *crashRig) waitTrigger(cc crashCase, at trigger, deadline *time.Time) bool {
	dir, prefix := filepath.Dir(cc.watch), "."+filepath.Base(cc.watch)+".hostd-"
	existed := cc.before[cc.watch].Exists
	for {
		switch at {
		case tempFile:
			if names, err := readNames(dir); err == nil {
				for _, name := range names {
					if strings.HasPrefix(name, prefix) {
						return true
					}
				}
			}
		case flipsWatch:
			if _, err := os.Lstat(cc.watch); (err == nil) != existed {
				return true
			}
		}
		if deadline == nil || time.Now().After(*deadline) {
			return false
		}
	}
}

// readNames lists a directory's names without sorting or stat calls.
func readNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// check verifies the state after a call ended or hostd restarted: every
// path all before or all after, no temp file, no pending intent, and the
// review entries agree with the disk. Then it rolls back what review.list
// shows and checks that the before state is back. It reports whether the
// call's change was on disk.
func (r *crashRig) check(label string, cc crashCase) bool {
	r.t.Helper()
	atBefore, atAfter := true, true
	var got []string
	for p := range cc.before {
		now := observe(r.t, p)
		atBefore = atBefore && now.equal(cc.before[p])
		atAfter = atAfter && now.equal(cc.after[p])
		got = append(got, fmt.Sprintf("%s: %v (before %v, after %v)", r.rel(p), now, cc.before[p], cc.after[p]))
	}
	if !atBefore && !atAfter {
		r.t.Fatalf("%s: the files are neither all before nor all after:\n  %s", label, strings.Join(got, "\n  "))
	}
	if left := tempFiles(r.t, r.ws); len(left) > 0 {
		r.t.Errorf("%s: atomic-write temp files left visible: %v", label, left)
	}
	if n := r.pendingIntents(); n != 0 {
		r.t.Errorf("%s: %d review intents still pending after the restart", label, n)
	}

	// before and after differ, so atAfter says whether the call's effect
	// is on disk.
	landed := atAfter
	entries := r.entries(cc)
	if cc.rollback {
		if len(entries) != cc.entries {
			r.t.Fatalf("%s: %d entries for %s, want %d whichever side the rollback is on: %+v", label, len(entries), cc.callID, cc.entries, entries)
		}
		for _, e := range entries {
			if e.RolledBack != landed {
				r.t.Errorf("%s: %s rolledBack=%v, but the disk says %v (all or nothing)", label, e.Path, e.RolledBack, landed)
			}
		}
	} else {
		r.checkEntries(label, cc, entries, landed)
	}

	// Roll back what review.list shows; the original files are back.
	original := cc.before
	if cc.rollback {
		original = cc.after
	}
	if landed != cc.rollback {
		var rb struct{ Restored []string }
		mustCall(r.t, r.c, "review.rollback", map[string]any{"sessionId": r.session, "toolCallId": cc.callID}, &rb)
		if len(rb.Restored) != cc.entries {
			r.t.Errorf("%s: rollback restored %v, want %d paths", label, rb.Restored, cc.entries)
		}
	}
	for p, s := range original {
		if now := observe(r.t, p); !now.equal(s) {
			r.t.Errorf("%s: after rolling back what review.list shows, %s is %v, want %v", label, r.rel(p), now, s)
		}
	}
	for _, e := range r.entries(cc) {
		if !e.RolledBack {
			r.t.Errorf("%s: %s is still listed as not rolled back", label, e.Path)
		}
	}
	return landed
}

// checkEntries: a mutation has entries exactly when it is on disk, with
// the digests of what it replaced and what it left.
func (r *crashRig) checkEntries(label string, cc crashCase, entries []reviewEntry, onDisk bool) {
	r.t.Helper()
	if !onDisk {
		if len(entries) != 0 {
			r.t.Errorf("%s: the change is not on disk, yet review.list shows %+v", label, entries)
		}
		return
	}
	if len(entries) != cc.entries {
		r.t.Fatalf("%s: the change is on disk, review.list shows %d entries, want %d: %+v", label, len(entries), cc.entries, entries)
	}
	for _, e := range entries {
		p := filepath.Join(r.ws, filepath.FromSlash(e.Path))
		before, after := cc.before[p], cc.after[p]
		kind := "modify"
		switch {
		case !before.Exists:
			kind = "create"
		case !after.Exists:
			kind = "delete"
		}
		if e.Change != kind || e.BeforeSHA256 != before.sha() || e.AfterSHA256 != after.sha() || e.RolledBack || e.Diff == "" {
			r.t.Errorf("%s: entry %+v, want change %s, before %.12s, after %.12s, a diff, not rolled back", label, e, kind, before.sha(), after.sha())
		}
	}
}

// succeeded reports whether a response frame is a success: no JSON-RPC
// error, and for a tool call ok: true.
func succeeded(frame []byte) bool {
	var m struct {
		Result *struct {
			OK *bool `json:"ok"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if json.Unmarshal(frame, &m) != nil || m.Error != nil || m.Result == nil {
		return false
	}
	return m.Result.OK == nil || *m.Result.OK
}
