package wire

// LanguageServers is host.languageServers' result.
type LanguageServers struct {
	Enabled bool             `json:"enabled" doc:"false: the config turned language servers off (languageServers.enabled)"`
	Servers []LanguageServer `json:"servers" doc:"every server started since the daemon started, by workspace root and language"`
}

// LanguageServer is one language server the daemon runs.
type LanguageServer struct {
	Root      string `json:"root" doc:"the workspace root it serves"`
	Language  string `json:"language" doc:"go, typescript, python, rust or c"`
	Command   string `json:"command,omitempty" doc:"the command it was started with"`
	State     string `json:"state" doc:"starting, ready, idle (shut down unused; started again when needed), crashed (restarted when needed), failed (not started again), stopped"`
	PID       int    `json:"pid,omitempty"`
	RSSBytes  int64  `json:"rssBytes,omitempty" doc:"resident memory of it and what it started, last measured (Linux)"`
	Restarts  int    `json:"restarts" doc:"restarts after a crash"`
	Refreshes int    `json:"refreshes" doc:"restarts because the server said its view of the workspace was stale (gopls after an import cycle); not bounded by maxRestarts: at most one per write"`
	Documents int    `json:"documents" doc:"files it has open"`
	IdleMs    int64  `json:"idleMs" doc:"since it was last used"`
	LastError string `json:"lastError,omitempty" doc:"why it last failed, crashed or was ended"`
}
