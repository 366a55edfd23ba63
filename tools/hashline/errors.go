package hashline

import (
	"errors"
	"fmt"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Codes are the edit-contract §11 names this package reports, plus the
// generic INVALID_ARGUMENT for limits and misuse of a register paste:
// package wire's tool codes, where each is declared once.
const (
	CodeParseFailed        = wire.ToolParseFailed
	CodeRangeInvalid       = wire.ToolRangeInvalid
	CodeBlockUnresolved    = wire.ToolBlockUnresolved
	CodeRegisterEmpty      = wire.ToolRegisterEmpty
	CodeRegisterAmbiguous  = wire.ToolRegisterAmbiguous
	CodeRepairAmbiguous    = wire.ToolRepairAmbiguous
	CodeNoChange           = wire.ToolNoChange
	CodeAmplificationLimit = wire.ToolAmplificationLimit
	CodeInvalidArgument    = wire.ToolInvalidArgument
)

// Sentinels, one per code. Every *Error unwraps to the sentinel of its
// code, so errors.Is(err, ErrParseFailed) works through any wrapping the
// tool layer adds.
var (
	ErrParseFailed        = errors.New(CodeParseFailed)
	ErrRangeInvalid       = errors.New(CodeRangeInvalid)
	ErrBlockUnresolved    = errors.New(CodeBlockUnresolved)
	ErrRegisterEmpty      = errors.New(CodeRegisterEmpty)
	ErrRegisterAmbiguous  = errors.New(CodeRegisterAmbiguous)
	ErrRepairAmbiguous    = errors.New(CodeRepairAmbiguous)
	ErrNoChange           = errors.New(CodeNoChange)
	ErrAmplificationLimit = errors.New(CodeAmplificationLimit)
	ErrInvalidArgument    = errors.New(CodeInvalidArgument)
)

var sentinels = map[string]error{
	CodeParseFailed:        ErrParseFailed,
	CodeRangeInvalid:       ErrRangeInvalid,
	CodeBlockUnresolved:    ErrBlockUnresolved,
	CodeRegisterEmpty:      ErrRegisterEmpty,
	CodeRegisterAmbiguous:  ErrRegisterAmbiguous,
	CodeRepairAmbiguous:    ErrRepairAmbiguous,
	CodeNoChange:           ErrNoChange,
	CodeAmplificationLimit: ErrAmplificationLimit,
	CodeInvalidArgument:    ErrInvalidArgument,
}

// Error is every failure of the language.
type Error struct {
	// Code is one of the Code constants.
	Code string
	// Message is what the model reads: what is wrong and one concrete next
	// step. Parse errors quote the offending ops line and show the correct
	// form. It starts with "ops line N: " when OpsLine is set.
	Message string
	// OpsLine is the 1-based line of the ops text the error is about, 0 if
	// none.
	OpsLine int
	// Line is the 1-based file line the error is about, 0 if none.
	Line int
	// Reason is the block resolver's own explanation on
	// EDIT_BLOCK_UNRESOLVED (the tool reports it as details.reason).
	Reason string
	// Question is set on boundary repair's refusals (EDIT_REPAIR_AMBIGUOUS,
	// §8.4): the edit as sent and as repaired, ready to send.
	Question *Question
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the sentinel of e's code.
func (e *Error) Unwrap() error { return sentinels[e.Code] }

// wholeCall adds to an error of a call with several ops that none of
// them was applied. A model that sees one op rejected otherwise tends to
// assume the others landed and never resends them.
func wholeCall(nOps int, err error) error {
	if err == nil || nOps <= 1 {
		return err // before e, which escapes: a step that succeeds allocates nothing here
	}
	var e *Error
	if errors.As(err, &e) && e.Code != CodeNoChange {
		e.Message += fmt.Sprintf(". None of the %d ops of this call was applied: fix this one and send them all again", nOps)
	}
	return err
}

// fail builds an *Error. The "ops line N: " prefix is part of Message
// because the message is shown to the model on its own.
func fail(code string, opsLine, line int, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if opsLine > 0 {
		msg = fmt.Sprintf("ops line %d: %s", opsLine, msg)
	}
	return &Error{Code: code, Message: msg, OpsLine: opsLine, Line: line}
}
