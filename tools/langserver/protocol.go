package langserver

import "encoding/json"

// The few Language Server Protocol (3.17) messages hostd sends and reads,
// written here: the module proxy serves no maintained Go package of the
// protocol's types that is not a server framework (the ones found bring
// their own transport, logging and handler types, or cover an older
// version), and a client that opens documents and reads diagnostics
// needs a dozen structs. The transport is sourcegraph/jsonrpc2.

// position is a zero-based line and a character offset in it.
type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

// lspDiagnostic is a diagnostic as a server sends it.
type lspDiagnostic struct {
	Range    lspRange        `json:"range"`
	Severity int             `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

type publishDiagnosticsParams struct {
	URI         string          `json:"uri"`
	Version     *int            `json:"version,omitempty"`
	Diagnostics []lspDiagnostic `json:"diagnostics"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type versionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

// contentChange without a range replaces the whole text, which every
// server takes whatever sync kind it prefers.
type contentChange struct {
	Text string `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                 `json:"contentChanges"`
}

type didSaveParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Text         *string                `json:"text,omitempty"`
}

type didCloseParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

// A file event's type: the file was made, changed, or removed.
const (
	fileCreated = 1
	fileChanged = 2
	fileDeleted = 3
)

type fileEvent struct {
	URI  string `json:"uri"`
	Type int    `json:"type"`
}

type didChangeWatchedFilesParams struct {
	Changes []fileEvent `json:"changes"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type initializeParams struct {
	ProcessID        int               `json:"processId"`
	ClientInfo       clientInfo        `json:"clientInfo"`
	RootURI          string            `json:"rootUri"`
	WorkspaceFolders []workspaceFolder `json:"workspaceFolders"`
	Capabilities     json.RawMessage   `json:"capabilities"`
}

// clientCapabilities: diagnostics pushed with their version, pulled where
// the server offers it, and full-text synchronization with saves.
const clientCapabilities = `{
 "textDocument": {
  "synchronization": {"didSave": true, "dynamicRegistration": false},
  "publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
  "diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": false}
 },
 "workspace": {"workspaceFolders": true, "configuration": true},
 "window": {"workDoneProgress": false},
 "general": {"positionEncodings": ["utf-16"]}
}`

type initializeResult struct {
	Capabilities struct {
		DiagnosticProvider json.RawMessage `json:"diagnosticProvider"`
		TextDocumentSync   json.RawMessage `json:"textDocumentSync"`
	} `json:"capabilities"`
	ServerInfo *clientInfo `json:"serverInfo"`
}

type documentDiagnosticParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

// documentDiagnosticReport is a pull's answer: "full" with its items, or
// "unchanged" since the last one.
type documentDiagnosticReport struct {
	Kind  string          `json:"kind"`
	Items []lspDiagnostic `json:"items"`
}

type configurationParams struct {
	Items []json.RawMessage `json:"items"`
}

// LSP's severities.
const (
	severityError   = 1
	severityWarning = 2
)
