package hashline

import (
	"errors"
	"fmt"
)

// Code is the kind of an edit-language failure: the edit-contract §11
// codes this package reports, plus the generic INVALID_ARGUMENT for
// limits and misuse of a register paste. The language speaks no wire:
// the tool layer reports each Code as the tool error code rpc/wire
// declares for it, mapped in one place (tools.languageError).
type Code uint8

// The codes, each named after the wire code the tools report it as.
const (
	CodeParseFailed Code = iota + 1
	CodeRangeInvalid
	CodeBlockUnresolved
	CodeRegisterEmpty
	CodeRegisterAmbiguous
	CodeRepairAmbiguous
	CodeNoChange
	CodeAmplificationLimit
	CodeInvalidArgument
)

// String says what failed, in words; the wire's name for it is the tool
// layer's.
func (c Code) String() string {
	if int(c) < len(codeWords) && codeWords[c] != "" {
		return codeWords[c]
	}
	return "edit failed"
}

var codeWords = [...]string{
	CodeParseFailed:        "malformed ops",
	CodeRangeInvalid:       "invalid range",
	CodeBlockUnresolved:    "unresolved block",
	CodeRegisterEmpty:      "empty register",
	CodeRegisterAmbiguous:  "ambiguous register",
	CodeRepairAmbiguous:    "ambiguous repair",
	CodeNoChange:           "no change",
	CodeAmplificationLimit: "expansion limit",
	CodeInvalidArgument:    "invalid argument",
}

// Sentinels, one per code. Every *Error unwraps to the sentinel of its
// code, so errors.Is(err, ErrParseFailed) works through any wrapping the
// tool layer adds.
var (
	ErrParseFailed        = errors.New(CodeParseFailed.String())
	ErrRangeInvalid       = errors.New(CodeRangeInvalid.String())
	ErrBlockUnresolved    = errors.New(CodeBlockUnresolved.String())
	ErrRegisterEmpty      = errors.New(CodeRegisterEmpty.String())
	ErrRegisterAmbiguous  = errors.New(CodeRegisterAmbiguous.String())
	ErrRepairAmbiguous    = errors.New(CodeRepairAmbiguous.String())
	ErrNoChange           = errors.New(CodeNoChange.String())
	ErrAmplificationLimit = errors.New(CodeAmplificationLimit.String())
	ErrInvalidArgument    = errors.New(CodeInvalidArgument.String())
)

var sentinels = map[Code]error{
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
	// Code is the kind of failure.
	Code Code
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

func (e *Error) Error() string { return e.Code.String() + ": " + e.Message }

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
func fail(code Code, opsLine, line int, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if opsLine > 0 {
		msg = fmt.Sprintf("ops line %d: %s", opsLine, msg)
	}
	return &Error{Code: code, Message: msg, OpsLine: opsLine, Line: line}
}
