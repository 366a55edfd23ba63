package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The daemon starts on a damaged review store: it moves the file aside,
// starts a fresh store, and says so on stderr, in its log and in
// host.info, instead of crashing (before or after it listens) or
// starting empty without a word.
func TestE2EDamagedReviewStoreIsMovedAsideAndReported(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":   {},
		"garbage": []byte(strings.Repeat("not a bbolt page ", 1000)),
	} {
		t.Run(name, func(t *testing.T) {
			state := t.TempDir()
			if err := os.WriteFile(filepath.Join(state, "review.db"), data, 0o600); err != nil {
				t.Fatal(err)
			}
			d := startDaemon(t, "", "--state-dir", state)
			out := d.output()
			if !strings.Contains(out, "WARNING: the review store was damaged") || !strings.Contains(out, "moved aside") {
				t.Errorf("stderr does not warn about the damaged store:\n%s", out)
			}
			var info struct {
				Review *struct {
					Recovered *struct{ From, Reason string } `json:"recovered"`
				} `json:"review"`
			}
			mustCall(t, d.client(), "host.info", nil, &info)
			if info.Review == nil || info.Review.Recovered == nil || !strings.HasPrefix(filepath.Base(info.Review.Recovered.From), "review.db.corrupt-") {
				t.Fatalf("host.info review = %+v", info.Review)
			}
			if _, err := os.Stat(info.Review.Recovered.From); err != nil {
				t.Errorf("the damaged file is not where host.info says: %v", err)
			}
		})
	}
}

// A state directory that cannot be used is refused with its real cause,
// not blamed on another daemon.
func TestE2EUnusableStateDirNamesTheCause(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d := launch(t, "--socket", filepath.Join(shortDir(t), "hostd.sock"), "--state-dir", filepath.Join(file, "state"))
	if code := d.wait(30 * time.Second); code == 0 {
		t.Fatal("hostd started on an unusable state directory")
	}
	out := d.output()
	if !strings.Contains(out, "not a directory") || strings.Contains(out, "another hostd") || strings.Contains(out, "second daemon") {
		t.Errorf("the refusal does not name its cause:\n%s", out)
	}
}
