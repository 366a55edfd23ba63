package wire

// BudgetStats is the daemon-wide memory budget (limits.maxMemoryBytes) in
// debug.stats.
type BudgetStats struct {
	LimitBytes int64 `json:"limitBytes"`
	InUseBytes int64 `json:"inUseBytes"`
	PeakBytes  int64 `json:"peakBytes"`
	Waits      int64 `json:"waits"`    // acquisitions that had to wait
	Refusals   int64 `json:"refusals"` // acquisitions refused as OVERLOADED
}

// Collector is the Go collector's state as the runtime reports it, in
// debug.stats.
type Collector struct {
	LimitBytes  int64  `json:"limitBytes" doc:"the soft memory limit in force (the governor's, or GOMEMLIMIT)"`
	GCPercent   int64  `json:"gcPercent" doc:"the collection target in force (the governor's, or GOGC); -1 is off"`
	LiveBytes   int64  `json:"liveBytes" doc:"the live heap the last collection marked"`
	Collections uint64 `json:"collections" doc:"collections since the daemon started"`
}
