package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// The result shapes of wire-contract §3 and §5, as hostctl reads them. They are
// declared here rather than imported from the server so that hostctl reads
// what is on the wire, not what the server's Go types happen to be; unknown
// fields are ignored, so a newer daemon that adds fields still prints.

type hostInfo struct {
	Name            string                     `json:"name"`
	Version         string                     `json:"version"`
	Commit          string                     `json:"commit"`
	ProtocolVersion int                        `json:"protocolVersion"`
	PID             int                        `json:"pid"`
	StartedAt       stamp                      `json:"startedAt"`
	Grammars        []string                   `json:"grammars"`
	Limits          map[string]json.RawMessage `json:"limits"`
	Review          *reviewHealth              `json:"review"`
}

// reviewHealth is present in host.info and debug.stats only when the
// review store needs attention.
type reviewHealth struct {
	Recovered *struct {
		From   string `json:"from"`
		Reason string `json:"reason"`
	} `json:"recovered"`
	Broken string `json:"broken"`
	// The store's counters; debug.stats has them, host.info does not.
	Entries        *int  `json:"entries"`
	Calls          int   `json:"calls"`
	Bytes          int64 `json:"bytes"`
	PendingIntents int   `json:"pendingIntents"`
	EvictedCalls   int64 `json:"evictedCalls"`
}

type sessionList struct {
	Sessions []sessionInfo `json:"sessions"`
}

type sessionInfo struct {
	SessionID     string `json:"sessionId"`
	Workspace     string `json:"workspace"`
	CreatedAt     stamp  `json:"createdAt"`
	Paths         int    `json:"paths"`
	RetainedBytes int64  `json:"retainedBytes"`
}

type stats struct {
	Sessions      int                  `json:"sessions"`
	RetainedBytes int64                `json:"retainedBytes"`
	Snapshots     int                  `json:"snapshots"`
	Registers     int                  `json:"registers"`
	UptimeMs      int64                `json:"uptimeMs"`
	Goroutines    int                  `json:"goroutines"`
	HeapBytes     int64                `json:"heapBytes"`
	Calls         map[string]callStats `json:"calls"`
	Review        *reviewHealth        `json:"review"`
	Collector     *collector           `json:"collector"` // absent from daemons before it
}

// collector is debug.stats' view of the Go collector.
type collector struct {
	LimitBytes  int64 `json:"limitBytes"`
	GCPercent   int64 `json:"gcPercent"`
	LiveBytes   int64 `json:"liveBytes"`
	Collections int64 `json:"collections"`
}

type callStats struct {
	Count  int64   `json:"count"`
	Errors int64   `json:"errors"`
	P50Us  float64 `json:"p50Us"`
	P99Us  float64 `json:"p99Us"`
}

type sessionDetail struct {
	SessionID     string         `json:"sessionId"`
	Workspace     string         `json:"workspace"`
	RetainedBytes int64          `json:"retainedBytes"`
	Paths         []pathVersions `json:"paths"`
	Registers     []register     `json:"registers"`
}

type pathVersions struct {
	Path     string    `json:"path"`
	Versions []version `json:"versions"`
}

type version struct {
	Tag        string    `json:"tag"`
	Bytes      int64     `json:"bytes"`
	Lines      int       `json:"lines"`
	SeenLines  seenLines `json:"seenLines"`
	Retained   bool      `json:"retained"`
	RecordedAt stamp     `json:"recordedAt"`
}

type register struct {
	Name  string `json:"name"`
	Lines int    `json:"lines"`
	Bytes int64  `json:"bytes"`
}

type reviewSessions struct {
	Sessions []reviewSession `json:"sessions"`
}

type reviewSession struct {
	SessionID string `json:"sessionId"`
	Workspace string `json:"workspace"`
	Calls     int    `json:"calls"`
	Entries   int    `json:"entries"`
	Last      stamp  `json:"last"`
}

type reviewList struct {
	Entries []reviewEntry `json:"entries"`
}

type reviewEntry struct {
	ID           string `json:"id"`
	ToolCallID   string `json:"toolCallId"`
	Tool         string `json:"tool"`
	Path         string `json:"path"`
	Change       string `json:"change"`
	BeforeSha256 string `json:"beforeSha256"`
	AfterSha256  string `json:"afterSha256"`
	Diff         string `json:"diff"`
	At           stamp  `json:"at"`
	RolledBack   bool   `json:"rolledBack"`
}

type rollbackResult struct {
	Restored []string `json:"restored"`
}

// seenLines is debug.session's seenLines: null means unknown (provenance
// not recorded) and [] the known empty set (edit-contract §4.3); the two
// must print differently because they gate edits differently.
type seenLines struct {
	Known  bool
	Ranges [][2]int
}

func (s *seenLines) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*s = seenLines{}
		return nil
	}
	var r [][2]int
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("seenLines: %w", err)
	}
	*s = seenLines{Known: true, Ranges: r}
	return nil
}

// stamp is a point in time as the daemon sends it: an RFC 3339 string, or
// a number of milliseconds since the Unix epoch.
type stamp struct{ time.Time }

func (t *stamp) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*t = stamp{}
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return fmt.Errorf("time %q: %w", s, err)
		}
		*t = stamp{v}
		return nil
	}
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return fmt.Errorf("time %s: want an RFC 3339 string or epoch milliseconds", b)
	}
	*t = stamp{time.UnixMilli(int64(ms))}
	return nil
}
