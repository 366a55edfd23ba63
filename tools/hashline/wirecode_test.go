package hashline

import "github.com/hostd-dev/hostd/rpc/wire"

// wireCode is the tool error code the edit tool reports each Code as
// (tools.languageError), by which the golden files name errors.
var wireCode = map[Code]string{
	CodeParseFailed:        wire.ToolParseFailed,
	CodeRangeInvalid:       wire.ToolRangeInvalid,
	CodeBlockUnresolved:    wire.ToolBlockUnresolved,
	CodeRegisterEmpty:      wire.ToolRegisterEmpty,
	CodeRegisterAmbiguous:  wire.ToolRegisterAmbiguous,
	CodeRepairAmbiguous:    wire.ToolRepairAmbiguous,
	CodeNoChange:           wire.ToolNoChange,
	CodeAmplificationLimit: wire.ToolAmplificationLimit,
	CodeInvalidArgument:    wire.ToolInvalidArgument,
}
