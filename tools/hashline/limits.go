package hashline

import "github.com/hostd-dev/hostd/config"

// Limits the language enforces (edit-contract §12). Fill it from
// config.Limits with LimitsFrom. A zero or negative field means the
// contract default, so a zero Limits is safe rather than unbounded or
// useless.
type Limits struct {
	MaxOpsPayloadBytes int   // INVALID_ARGUMENT past this many bytes of ops text
	MaxOpsPerCall      int   // INVALID_ARGUMENT past this many op headers
	MaxExpandedLines   int   // EDIT_AMPLIFICATION_LIMIT past this many IR lines
	MaxRegisterLines   int   // INVALID_ARGUMENT on a CUT capturing more lines
	MaxRegisterBytes   int64 // INVALID_ARGUMENT on a CUT capturing more bytes
}

// LimitsFrom takes the edit limits out of the daemon's configuration.
func LimitsFrom(l config.Limits) Limits {
	return Limits{
		MaxOpsPayloadBytes: l.MaxOpsPayloadBytes,
		MaxOpsPerCall:      l.MaxOpsPerCall,
		MaxExpandedLines:   l.MaxExpandedLines,
		MaxRegisterLines:   l.MaxRegisterLines,
		MaxRegisterBytes:   l.MaxRegisterBytes,
	}
}

// DefaultLimits is LimitsFrom(config.DefaultLimits()).
func DefaultLimits() Limits { return LimitsFrom(config.DefaultLimits()) }

// orDefault fills unset fields with the contract defaults.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.MaxOpsPayloadBytes <= 0 {
		l.MaxOpsPayloadBytes = d.MaxOpsPayloadBytes
	}
	if l.MaxOpsPerCall <= 0 {
		l.MaxOpsPerCall = d.MaxOpsPerCall
	}
	if l.MaxExpandedLines <= 0 {
		l.MaxExpandedLines = d.MaxExpandedLines
	}
	if l.MaxRegisterLines <= 0 {
		l.MaxRegisterLines = d.MaxRegisterLines
	}
	if l.MaxRegisterBytes <= 0 {
		l.MaxRegisterBytes = d.MaxRegisterBytes
	}
	return l
}
