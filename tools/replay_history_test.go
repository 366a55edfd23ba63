package tools

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/drift"
	"github.com/hostd-dev/hostd/tools/hashline"
	"github.com/hostd-dev/hostd/workspace"
)

// The replay of this repository's own history (docs/testing.md, "Replay
// of this repository's history"): every file a commit modified, in a
// language with a grammar, is one real edit from its pre-image to its
// post-image. This file loads those edits from git and spells each one in
// the edit language; replay_test.go drives them through the executor.

// replaySize is how much history a replay covers: HOSTD_REPLAY=1 the last
// commits (the CI size), HOSTD_REPLAY=long all of it. Unset: skip.
func replaySize(t *testing.T) (commits int) {
	switch v := os.Getenv("HOSTD_REPLAY"); v {
	case "":
		t.Skip("the replay of this repository's history runs with HOSTD_REPLAY=1 (or =long)")
	case "long":
		return 1 << 20
	case "1":
		return 40
	default:
		t.Fatalf("HOSTD_REPLAY=%q: want 1 or long", v)
	}
	return 0
}

// replayThink is the pause the feedback replay makes before each settled
// edit and each edit without feedback, as a model's time to write the
// edit after its read: HOSTD_REPLAY_THINK, a Go duration ("100ms"); none
// when unset. A daemon idle for a while answers more slowly, and a parse
// worker idle for a while differently again, so this shows how the cost
// of the feedback changes with the time between a read and its edit.
func replayThink(t *testing.T) time.Duration {
	v := os.Getenv("HOSTD_REPLAY_THINK")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > time.Minute {
		t.Fatalf("HOSTD_REPLAY_THINK=%q: want a duration from 0 to 1m, like 100ms", v)
	}
	return d
}

// replayEdit is one file of one commit: the text before and after.
type replayEdit struct {
	Commit, Path string
	Pre, Post    string
}

// maxReplayBytes leaves out files no model would read whole.
const maxReplayBytes = 256 << 10

// loadHistory returns the edits of the last n non-merge commits of the
// checkout the test runs in, oldest first: files the commit modified
// (not added, removed or renamed), LF text with a grammar. It skips the
// test when the module is not a git checkout.
func loadHistory(t *testing.T, n int) []replayEdit {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the replay needs git")
	}
	log, err := git(root, "log", "--no-merges", "--format=%H %P", "-n", fmt.Sprint(n))
	if err != nil {
		t.Skipf("the replay needs the module to be a git checkout: %v", err)
	}
	var out []replayEdit
	lines := strings.Split(strings.TrimSpace(log), "\n")
	slices.Reverse(lines)
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 2 { // a root commit has no pre-image
			continue
		}
		commit, parent := f[0], f[1]
		files, err := git(root, "diff-tree", "-r", "--no-commit-id", "--no-renames", "--name-status", parent, commit)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range strings.Split(files, "\n") {
			st, path, ok := strings.Cut(row, "\t")
			if !ok || st != "M" {
				continue
			}
			pre, err1 := git(root, "cat-file", "blob", parent+":"+path)
			post, err2 := git(root, "cat-file", "blob", commit+":"+path)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s %s: %v %v", commit, path, err1, err2)
			}
			if !replayable(path, pre) || !replayable(path, post) {
				continue
			}
			if ok, _ := blocks.Check(path, pre, maxReplayBytes); !ok {
				continue // no grammar for this file
			}
			out = append(out, replayEdit{Commit: commit[:10], Path: path, Pre: pre, Post: post})
		}
	}
	return out
}

// replayable: small UTF-8 text with LF endings, so the file on disk and
// its normalized body are one text.
func replayable(path, text string) bool {
	_, err := workspace.DecodeString(text)
	return err == nil && text != "" && len(text) <= maxReplayBytes &&
		!strings.ContainsAny(text, "\r\x00") && !strings.HasPrefix(text, "\uFEFF")
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// hunk is one change of a line diff: old lines From..To (To < From: none)
// become Rows, inserted after old line From-1 when there are no old lines.
type hunk struct {
	From, To int
	Rows     []string
}

// lineHunks is the line diff of old into new as hunks in old numbers,
// from the map of unchanged lines drift recovery uses (edit-contract §10).
func lineHunks(old, new []string) ([]hunk, error) {
	m, err := drift.Diff(old, new, 5*time.Second)
	if err != nil {
		return nil, err
	}
	var out []hunk
	i, j := 1, 1
	for i <= len(old) || j <= len(new) {
		if n, ok := m.Lookup(i); ok && i <= len(old) && n == j {
			i, j = i+1, j+1
			continue
		}
		h := hunk{From: i}
		for i <= len(old) {
			if _, ok := m.Lookup(i); ok {
				break
			}
			i++
		}
		h.To = i - 1
		next, _ := m.Lookup(i) // old line i is unchanged (or past the end)
		h.Rows = new[j-1 : next-1]
		j = next
		out = append(out, h)
	}
	return out, nil
}

// editOps spells the change from pre to post in the edit language, every
// op anchored on a line of pre: PUT for a replacement or an insertion,
// CUT for a deletion, EOF when the final newline changes. It also
// returns the lines of pre the ops name.
func editOps(pre, post string) (string, []int, error) {
	old, new := workspace.Lines(pre), workspace.Lines(post)
	hs, err := lineHunks(old, new)
	if err != nil {
		return "", nil, err
	}
	var ops []string
	var anchors []int
	for _, h := range hs {
		switch {
		case h.To >= h.From && len(h.Rows) > 0:
			ops = append(ops, fmt.Sprintf("PUT %d.=%d:\n%s", h.From, h.To, hashline.Body(h.Rows)))
		case h.To >= h.From:
			ops = append(ops, fmt.Sprintf("CUT %d.=%d", h.From, h.To))
		case h.From == 1:
			ops = append(ops, "PUT <1:\n"+hashline.Body(h.Rows))
		default:
			ops = append(ops, fmt.Sprintf("PUT >%d:\n%s", h.From-1, hashline.Body(h.Rows)))
		}
		for l := max(1, min(h.From, h.To)); l <= max(h.From, h.To) && l <= len(old); l++ {
			anchors = append(anchors, l)
		}
	}
	if endsNL(pre) != endsNL(post) {
		ops = append(ops, map[bool]string{true: "EOF NEWLINE", false: "EOF NO-NEWLINE"}[endsNL(post)])
	}
	return strings.Join(ops, "\n"), anchors, nil
}

func endsNL(s string) bool { return strings.HasSuffix(s, "\n") }

// figure logs one figure of a replay as "FIGURE key value", the line
// cmd/hostbench's replay section reads into docs/benchmarks.md.
func figure(t testing.TB, key string, value float64) {
	t.Helper()
	t.Logf("FIGURE %s %g", key, value)
}

// ms is d in milliseconds, for a figure.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median of xs (sorted in place); 0 when empty.
func median[T int | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
