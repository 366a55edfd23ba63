package wire

import "time"

// SessionInfo is a live session's summary in session.list.
type SessionInfo struct {
	SessionID     string    `json:"sessionId"`
	Workspace     string    `json:"workspace"`
	CreatedAt     time.Time `json:"createdAt"`
	Paths         int       `json:"paths"`
	RetainedBytes int64     `json:"retainedBytes"`
}

// RegisterInfo describes one named register in debug.session.
type RegisterInfo struct {
	Name  string `json:"name"`
	Lines int    `json:"lines"`
	Bytes int    `json:"bytes"`
}

// LineSet is the set of lines a session was shown of one version
// (edit-contract §4.1), as debug.session reports seenLines: nil (null)
// when no provenance was recorded, otherwise inclusive [from, to]
// ranges, ascending and merged; a known, empty set is an empty, non-nil
// slice ([]).
type LineSet []LineRange

// LineRange is an inclusive range of 1-based line numbers, [from, to].
type LineRange [2]int

// ResultForm is how the edit tool renders a successful result's content
// (session.create's editResult).
type ResultForm string

// The result forms (edit-contract §5.5).
const (
	// ResultFull re-displays every changed line with its new number.
	ResultFull ResultForm = "full"
	// ResultCompact gives the new tag and each changed region's spans,
	// re-displaying only the rows that landed differently from what was
	// sent: the default.
	ResultCompact ResultForm = "compact"
)
