package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/endpoint"
	"github.com/hostd-dev/hostd/review"
)

// A state directory serves one daemon at a time: the review store's lock
// says so. When a second daemon is refused, the refusal names the one
// that holds it, which records itself in ownerFile once it holds the
// store, so the user learns which process to stop, not only that one
// exists.

// ownerFile names the daemon that holds a state directory's review store.
const ownerFile = "daemon.json"

// owner is what ownerFile holds.
type owner struct {
	PID     int       `json:"pid"`
	What    string    `json:"what"` // "the shared daemon on /run/user/1000/hostd/hostd.sock"
	Started time.Time `json:"started"`
}

// describe says what kind of daemon cfg makes, for another to read.
func describe(cfg config.Config) string {
	switch {
	case cfg.Stdio:
		return "a hostd --stdio with --state-dir " + cfg.StateDir
	case cfg.Socket == endpoint.Default():
		return "the shared daemon on " + cfg.Socket
	}
	return "the daemon on " + cfg.Socket
}

// openStore opens the review store of cfg.StateDir and records this
// process as its holder. A store another process holds is refused with
// that process named, and the way out.
func openStore(cfg config.Config, log *zap.Logger) (*review.Store, error) {
	store, err := review.Open(cfg.StateDir, cfg.Limits, log)
	if errors.Is(err, review.ErrLocked) {
		return nil, lockedBy(cfg, err)
	}
	if err != nil {
		return nil, err
	}
	rec, _ := json.Marshal(owner{PID: os.Getpid(), What: describe(cfg), Started: time.Now().UTC().Truncate(time.Second)})
	if err := os.WriteFile(filepath.Join(cfg.StateDir, ownerFile), append(rec, '\n'), 0o600); err != nil {
		log.Warn("could not record this daemon as the state directory's holder", zap.Error(err))
	}
	return store, nil
}

// lockedBy turns review.ErrLocked into a refusal that names the holder.
func lockedBy(cfg config.Config, err error) error {
	way := "give this hostd its own --state-dir"
	if !cfg.Stdio {
		way = "stop it, or give this hostd its own --state-dir"
	}
	var o owner
	b, rerr := os.ReadFile(filepath.Join(cfg.StateDir, ownerFile))
	if rerr != nil || json.Unmarshal(b, &o) != nil || o.PID <= 0 || o.What == "" {
		return fmt.Errorf("%w (%s); %s", review.ErrLocked, cfg.StateDir, way)
	}
	if o.What == describe(cfg) && !cfg.Stdio {
		way = "it serves there already: talk to it (hostctl --socket " + cfg.Socket + " info)"
	} else if addr, ok := cutPrefixes(o.What, "the shared daemon on ", "the daemon on "); ok {
		way = "stop it (hostctl --socket " + addr + " shutdown), or give this hostd its own --state-dir"
	}
	return fmt.Errorf("%w (pid %d, %s, started %s) in %s; %s", review.ErrLocked, o.PID, o.What, o.Started.Format(time.RFC3339), cfg.StateDir, way)
}

// cutPrefixes is s after the first of prefixes it starts with.
func cutPrefixes(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if len(s) > len(p) && s[:len(p)] == p {
			return s[len(p):], true
		}
	}
	return "", false
}
