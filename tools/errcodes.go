package tools

import (
	"encoding/json"
	"slices"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/hashline"
)

// ErrorCode is one row of the tool error table, package wire's ToolCodes:
// a code a failed tool result carries, whether it is retriable, what it
// means, and the Go type of its error.details. A tool setting details
// uses its row's type.
type ErrorCode = wire.ToolCode

// ErrorCodes returns the tool error table (a copy).
func ErrorCodes() []ErrorCode { return slices.Clone(wire.ToolCodes) }

// languageCodes are the tool error codes of the edit language's failures:
// the one place each hashline.Code becomes its wire code (languageError).
var languageCodes = map[hashline.Code]string{
	hashline.CodeParseFailed:        CodeParseFailed,
	hashline.CodeRangeInvalid:       CodeRangeInvalid,
	hashline.CodeBlockUnresolved:    CodeBlockUnresolved,
	hashline.CodeRegisterEmpty:      CodeRegisterEmpty,
	hashline.CodeRegisterAmbiguous:  CodeRegisterAmbiguous,
	hashline.CodeRepairAmbiguous:    CodeRepairAmbiguous,
	hashline.CodeNoChange:           CodeNoChange,
	hashline.CodeAmplificationLimit: CodeAmplificationLimit,
	hashline.CodeInvalidArgument:    CodeInvalidArgument,
}

// The details types, by the names the tools set them with.
type (
	LineText               = wire.LineText
	TagMismatchDetails     = wire.TagMismatchDetails
	TagUnknownDetails      = wire.TagUnknownDetails
	LinesUnseenDetails     = wire.LinesUnseenDetails
	BlockUnresolvedDetails = wire.BlockUnresolvedDetails
	RepairAmbiguousDetails = wire.RepairAmbiguousDetails
	RepeatGuardDetails     = wire.RepeatGuardDetails
)

// withGuard adds the repeat guard's fields to an error's own details, as
// one JSON object.
func withGuard(details any, g RepeatGuardDetails) map[string]any {
	out := map[string]any{}
	for _, part := range []any{details, g} {
		if b, err := json.Marshal(part); err == nil {
			json.Unmarshal(b, &out)
		}
	}
	return out
}
