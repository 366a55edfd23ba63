package wire

// Each built-in tool's own result (wire-contract §4): the shared part,
// ToolResult, and the tool's fields. The daemon's tools build them;
// rpc.discover's x-tools describes them from their json and doc tags; a
// client decodes a tools.execute result into the tool's type
// (ExecuteResult.Decode).

// ReadResult is read's result (wire-contract §4 read).
type ReadResult struct {
	ToolResult
	Path       string `json:"path"`
	Root       string `json:"root"`
	Offset     int    `json:"offset"`
	LineCount  int    `json:"lineCount"`
	TotalLines int    `json:"totalLines"`
	Truncated  bool   `json:"truncated"`
	FileBytes  int64  `json:"fileBytes"`
	Notice     string `json:"notice,omitempty"`
	Tag        string `json:"tag"`
	// Mode is "outline" for an outline read (LineCount then counts its
	// rows); absent for a read of lines.
	Mode string `json:"mode,omitempty"`
	// Since is the tag a read with since compared the file with, when it
	// answered with what changed (LineCount then counts the rows shown);
	// absent when it answered as a plain read.
	Since string `json:"since,omitempty"`
	// Unchanged counts the lines a since read found unchanged.
	Unchanged int `json:"unchangedLines,omitempty"`
}

// GrepMatch is one matched line. Text is clipped like a read line; a
// clipped match is not seen.
type GrepMatch struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Clipped bool   `json:"clipped,omitempty"`
}

// GrepResult is grep's result (wire-contract §4 grep). Files lists every file
// shown, in walk order, in every mode.
type GrepResult struct {
	ToolResult
	Matches       []GrepMatch       `json:"matches,omitempty"`
	Files         []string          `json:"files"`
	Counts        map[string]int    `json:"counts,omitempty"`
	Tags          map[string]string `json:"tags"`
	Truncated     bool              `json:"truncated"`
	FilesSearched int               `json:"filesSearched"`
	Notice        string            `json:"notice,omitempty"`
}

// WriteResult is write's result (wire-contract §4 write).
type WriteResult struct {
	ToolResult
	Path    string `json:"path"`
	Tag     string `json:"tag"`
	Created bool   `json:"created"`
	Bytes   int64  `json:"bytes"`
	// SyntaxErrors are the syntax errors the write added.
	SyntaxErrors []SyntaxError `json:"syntaxErrors,omitempty"`
	// Diagnostics are the errors the write added, as the file's language
	// server reports them; DiagnosticsPending: it did not answer in time.
	Diagnostics        []Diagnostic `json:"diagnostics,omitempty"`
	DiagnosticsPending bool         `json:"diagnosticsPending,omitempty"`
}

// EditResult is the edit tool's result (wire-contract §4 edit).
type EditResult struct {
	ToolResult
	Path        string       `json:"path,omitempty"`
	Tag         string       `json:"tag,omitempty"`
	Resolutions []Resolution `json:"resolutions,omitempty"`
	Diff        string       `json:"diff,omitempty"`
	Removed     bool         `json:"removed,omitempty"`
	MovedTo     string       `json:"movedTo,omitempty"`
	// Regions are the changed regions of a compact result.
	Regions []RegionSpan `json:"regions,omitempty"`
	// SyntaxErrors are the syntax errors the edit added.
	SyntaxErrors []SyntaxError `json:"syntaxErrors,omitempty"`
	// Diagnostics are the errors the edit added, as the file's language
	// server reports them; DiagnosticsPending: it did not answer in time.
	Diagnostics        []Diagnostic `json:"diagnostics,omitempty"`
	DiagnosticsPending bool         `json:"diagnosticsPending,omitempty"`
}

// Resolution is one block locator of an edit and the span it resolved
// to, echoed in the edit result (edit-contract §8.2).
type Resolution struct {
	AnchorLine int    `json:"anchorLine"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
	Op         string `json:"op"` // the op header as written
}

// RegionSpan is one changed region of a compact result, in the edit
// result's "regions" field. Old lines are the version the edit was
// applied to, new lines the version it made. A pure insertion has
// OldEnd = OldStart-1 (it went after line OldStart-1); a pure deletion
// has NewEnd = NewStart-1. Shift is how far every line below the region
// moved, counting the regions above it.
type RegionSpan struct {
	OldStart int `json:"oldStart"`
	OldEnd   int `json:"oldEnd"`
	NewStart int `json:"newStart"`
	NewEnd   int `json:"newEnd"`
	Shift    int `json:"shift"`
}

// SyntaxError is one syntax error region a write or an edit added to the
// file, in the new version's line numbers (edit-contract §5.6).
type SyntaxError struct {
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
	// Missing is the token the parser had to assume there ("}", ";"),
	// when that is the whole error.
	Missing string `json:"missing,omitempty"`
}

// Diagnostic is one error a language server reported (the "diagnostics"
// of a write, edit or diagnostics result).
type Diagnostic struct {
	Line    int    `json:"line"` // 1-based, where it starts
	EndLine int    `json:"endLine"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Source  string `json:"source,omitempty"`
}

// DiagnosticsResult is the diagnostics tool's result.
type DiagnosticsResult struct {
	ToolResult
	// Files maps each file checked to its errors; a file whose server
	// did not answer in time is in Pending instead.
	Files   map[string][]Diagnostic `json:"files"`
	Pending []string                `json:"pending,omitempty"`
}
