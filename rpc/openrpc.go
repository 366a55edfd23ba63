package rpc

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools"
)

// OpenRPCVersion is the OpenRPC specification rpc.discover follows.
const OpenRPCVersion = "1.2.6"

var unstableTag = wire.OpenRPCTag{Name: "unstable", Description: "a debugging surface; its shape may change without a protocol version bump"}

func (s *Server) discover(context.Context, wire.NoParams) (wire.OpenRPC, error) {
	return s.Document(), nil
}

// Document builds the OpenRPC document from the method table.
func (s *Server) Document() wire.OpenRPC {
	doc := wire.OpenRPC{
		OpenRPC: OpenRPCVersion,
		Info: wire.OpenRPCInfo{
			Title: "hostd",
			// The protocol's version, not the build's: the document
			// changes when the protocol does (host.info has the build).
			Version:     strconv.Itoa(wire.ProtocolVersion),
			Description: "File tools (read, grep, write, edit) for coding agents, over JSON-RPC 2.0 with LSP framing.",
		},
		Methods: make([]wire.OpenRPCMethod, 0, len(s.table)),
	}
	for _, m := range s.table {
		om := wire.OpenRPCMethod{
			Name:           m.Name,
			Summary:        m.Summary,
			ParamStructure: "by-name",
			Params:         []wire.ContentDescriptor{},
			Result:         wire.ContentDescriptor{Name: m.Name + ".result", Schema: schemaOf(m.result)},
			Unstable:       m.Unstable,
		}
		if m.Unstable {
			om.Tags = []wire.OpenRPCTag{unstableTag}
		}
		for _, f := range structFields(m.params) {
			om.Params = append(om.Params, wire.ContentDescriptor{Name: f.name, Description: f.doc, Required: f.required, Schema: schemaOf(f.typ)})
		}
		for _, c := range m.Errors {
			om.Errors = append(om.Errors, wire.OpenRPCError{Code: c.Num, Message: c.Name, Data: wire.ErrorData{Code: c.Name}})
		}
		doc.Methods = append(doc.Methods, om)
	}
	doc.Notifications = notifications()
	doc.Tools, doc.Components = toolSchemas()
	doc.Components.Errors = wireErrors()
	doc.ToolErrors = toolErrors(doc.Components)
	doc.RepeatGuardDetails = repeatGuardDetails()
	return doc
}

// notifications describes the messages without an id.
func notifications() []wire.OpenRPCNotification {
	var recorded []wire.ContentDescriptor
	for _, f := range jsonFields(reflect.TypeFor[wire.ReviewRecorded]()) {
		recorded = append(recorded, wire.ContentDescriptor{Name: f.name, Required: f.required, Schema: schemaOf(f.typ)})
	}
	return []wire.OpenRPCNotification{
		{
			Name:      "review.recorded",
			Summary:   "A tool call's changes were recorded; sent to every connected client (wire-contract §5). The entries are the ones review.list returns for that call.",
			Direction: "server-to-client",
			Params:    recorded,
		},
		{
			Name:      "$/cancelRequest",
			Summary:   "Cancel an in-flight request of this connection; it answers REQUEST_CANCELLED if it had not finished (wire-contract §1).",
			Direction: "client-to-server",
			Params: []wire.ContentDescriptor{{
				Name: "id", Required: true, Description: "the id of the request to cancel",
				Schema: schema{"oneOf": []any{schema{"type": "string"}, schema{"type": "integer"}}},
			}},
		},
	}
}

// toolResults maps each built-in tool to the Go type of its result.
var toolResults = map[string]reflect.Type{
	"read":        reflect.TypeFor[wire.ReadResult](),
	"grep":        reflect.TypeFor[wire.GrepResult](),
	"write":       reflect.TypeFor[wire.WriteResult](),
	"edit":        reflect.TypeFor[wire.EditResult](),
	"diagnostics": reflect.TypeFor[wire.DiagnosticsResult](),
}

// toolSchemas describes the built-in tools' arguments (their embedded
// input schemas) and results, as schemas in components referred to by
// x-tools. It describes the protocol, so it lists the built-in tools
// whatever tools a server was given.
func toolSchemas() ([]wire.OpenRPCTool, wire.OpenRPCComponents) {
	comp := wire.OpenRPCComponents{Schemas: map[string]schema{
		wire.ToolResultSchema: schemaOf(reflect.TypeFor[wire.ToolResult]()),
	}}
	var out []wire.OpenRPCTool
	for _, t := range tools.Builtin() {
		name := t.Name()
		def, err := tools.LoadDefinition(name)
		if err != nil {
			panic("rpc: a built-in tool has no embedded definition: " + err.Error()) // a build defect, caught by every test
		}
		var args schema
		if err := json.Unmarshal(def.InputSchema, &args); err != nil {
			panic("rpc: tool " + name + "'s input schema is not JSON: " + err.Error())
		}
		argsName, resultName := toolSchemaName(name, "Args"), toolSchemaName(name, "Result")
		comp.Schemas[argsName] = args
		comp.Schemas[resultName] = schemaOf(toolResults[name])
		out = append(out, wire.OpenRPCTool{
			Name:        name,
			Description: firstLine(def.Description),
			Args:        wire.SchemaRef(argsName),
			Result:      wire.SchemaRef(resultName),
		})
	}
	return out, comp
}

// toolSchemaName is "ReadArgs" for ("read", "Args").
func toolSchemaName(tool, suffix string) string {
	if tool == "" {
		return suffix
	}
	return string(tool[0]-'a'+'A') + tool[1:] + suffix
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
