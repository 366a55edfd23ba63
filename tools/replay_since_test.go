package tools

import (
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/session"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

// TestReplayHistoryReadSince replays, for every file of this repository's
// history changed by two commits in a row, what a model holding the
// version before the first commit sees (edit-contract §5.7): it read
// the file whole; the commit lands on disk (a checkout); it reads the
// file `since` the tag it holds; then it makes the next commit's edit
// under the tag that read gave, with no other read. The tokens of the
// since read are set against a whole read of the same version.
func TestReplayHistoryReadSince(t *testing.T) {
	edits := loadHistory(t, replaySize(t))
	r := newReplayEnv(t)
	tok := newTokenCounter(t)
	// prev[path] is the file's last edit met so far.
	prev := map[string]replayEdit{}
	var ratios []float64
	var reads, fellBack, nexts, applied, unchangedNexts, unchangedApplied int
	for _, ed := range edits {
		before, ok := prev[ed.Path]
		prev[ed.Path] = ed
		if !ok || before.Post != ed.Pre {
			continue // the file's first edit here, or a chain git log order broke
		}
		// before.Pre -> before.Post is the change the session missed;
		// ed is the next commit's edit of the file.
		s := r.session()
		r.write(before.Path, before.Pre)
		whole0 := r.readWhole(s, before.Path)
		r.write(before.Path, before.Post)
		out, _ := r.call(r.on, s, "read", map[string]any{"path": before.Path, "since": whole0.Tag})
		since := out.(*wire.ReadResult)
		if !since.OK {
			t.Fatalf("%s %s: since read: %s", before.Commit, before.Path, since.Content)
		}
		other := r.session()
		whole := r.readWhole(other, before.Path)
		reads++
		if since.Since == "" {
			fellBack++
		}
		ratios = append(ratios, float64(tok.Count(since.Content))/float64(max(1, tok.Count(whole.Content))))

		ops, anchors, err := editOps(ed.Pre, ed.Post)
		if err != nil {
			t.Fatal(err)
		}
		unchanged := anchoredOnUnchanged(before.Pre, before.Post, anchors)
		nexts++
		if unchanged {
			unchangedNexts++
		}
		out, _ = r.call(r.on, s, "edit", map[string]any{"path": ed.Path, "tag": since.Tag, "ops": ops})
		if er := out.(*wire.EditResult); er.OK && r.file(ed.Path) == ed.Post {
			applied++
			if unchanged {
				unchangedApplied++
			}
		} else if unchanged {
			t.Logf("NOT APPLIED %s %s after a since read: %.300s", ed.Commit, ed.Path, er.Content)
		}
		// Sessions are bounded (MaxSessions); each step has its own.
		for _, id := range []string{s.ID, other.ID} {
			if err := r.m.Delete(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if reads == 0 {
		t.Skip("no file changed by two commits in a row in the history reached")
	}
	p50 := median(ratios)
	t.Logf("read since: %d reads of a file after a commit; since/whole tokens p50 %.3f (goal at most 0.2); %d answered as a plain read", reads, p50, fellBack)
	t.Logf("next edit with no other read: %d of %d applied; of those anchored only on lines the missed commit left unchanged, %d of %d", applied, nexts, unchangedApplied, unchangedNexts)
	figure(t, "since.reads", float64(reads))
	figure(t, "since.plain", float64(fellBack))
	figure(t, "since.tokens.p50", p50)
	figure(t, "since.next", float64(nexts))
	figure(t, "since.next.applied", float64(applied))
	figure(t, "since.unchanged", float64(unchangedNexts))
	figure(t, "since.unchanged.applied", float64(unchangedApplied))
	if p50 > 0.2 {
		t.Errorf("since/whole tokens p50 %.3f, over the goal of 0.2", p50)
	}
	if unchangedApplied != unchangedNexts {
		t.Errorf("%d next edits anchored on unchanged lines did not apply with no other read", unchangedNexts-unchangedApplied)
	}
}

// readWhole reads path whole in s, page after page as a model does
// before editing it: the last page's result, with every page's content.
func (r *replayEnv) readWhole(s *session.Session, path string) *wire.ReadResult {
	r.t.Helper()
	var content strings.Builder
	for offset := 1; ; {
		out, _ := r.call(r.on, s, "read", map[string]any{"path": path, "offset": offset, "limit": r.lim.MaxReadLimit})
		rr := out.(*wire.ReadResult)
		if !rr.OK || rr.LineCount == 0 {
			r.t.Fatalf("%s: read at %d: %s", path, offset, rr.Content)
		}
		content.WriteString(rr.Content)
		offset += rr.LineCount
		if offset > rr.TotalLines {
			rr.Content = content.String()
			return rr
		}
	}
}

// anchoredOnUnchanged says every line of post the anchors name is one
// the change from pre left as it was.
func anchoredOnUnchanged(pre, post string, anchors []int) bool {
	hs, err := lineHunks(workspace.Lines(pre), workspace.Lines(post))
	if err != nil {
		return false
	}
	changed := map[int]bool{}
	// A hunk's new lines: walk the hunks keeping the offset between old
	// and new numbers.
	shift := 0
	for _, h := range hs {
		from := h.From + shift
		for k := range h.Rows {
			changed[from+k] = true
		}
		shift += len(h.Rows) - max(0, h.To-h.From+1)
	}
	for _, a := range anchors {
		if changed[a] {
			return false
		}
	}
	return true
}
