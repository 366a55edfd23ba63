package tools

import (
	"encoding/json"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools/hashline"
)

// languageCodes are the tool error codes of the edit language's failures:
// the one place each hashline.Code becomes its wire code (languageError).
var languageCodes = map[hashline.Code]string{
	hashline.CodeParseFailed:        wire.ToolParseFailed,
	hashline.CodeRangeInvalid:       wire.ToolRangeInvalid,
	hashline.CodeBlockUnresolved:    wire.ToolBlockUnresolved,
	hashline.CodeRegisterEmpty:      wire.ToolRegisterEmpty,
	hashline.CodeRegisterAmbiguous:  wire.ToolRegisterAmbiguous,
	hashline.CodeRepairAmbiguous:    wire.ToolRepairAmbiguous,
	hashline.CodeNoChange:           wire.ToolNoChange,
	hashline.CodeAmplificationLimit: wire.ToolAmplificationLimit,
	hashline.CodeInvalidArgument:    wire.ToolInvalidArgument,
}

// withGuard adds the repeat guard's fields to an error's own details, as
// one JSON object.
func withGuard(details any, g wire.RepeatGuardDetails) map[string]any {
	out := map[string]any{}
	for _, part := range []any{details, g} {
		if b, err := json.Marshal(part); err == nil {
			json.Unmarshal(b, &out)
		}
	}
	return out
}
