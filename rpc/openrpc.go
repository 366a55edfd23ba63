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

// OpenRPC is the rpc.discover document, and docs/openrpc.json: the same
// document, byte for byte (a test regenerates the file and compares).
// Besides the methods and every JSON-RPC error (components.errors,
// openrpc_errors.go) it carries, as specification extensions, what a
// client generator needs that OpenRPC has no place for: the notifications
// each side sends (x-notifications), each tool's arguments and result
// (x-tools, pointing into components.schemas), every tool error code with
// the shape of its details (x-tool-errors) and what the repeat guard adds
// to them (x-repeat-guard-details).
type OpenRPC struct {
	OpenRPC            string                `json:"openrpc"`
	Info               OpenRPCInfo           `json:"info"`
	Methods            []OpenRPCMethod       `json:"methods"`
	Notifications      []OpenRPCNotification `json:"x-notifications"`
	Tools              []OpenRPCTool         `json:"x-tools"`
	ToolErrors         []OpenRPCToolError    `json:"x-tool-errors"`
	RepeatGuardDetails schema                `json:"x-repeat-guard-details"`
	Components         OpenRPCComponents     `json:"components"`
}

// OpenRPCNotification is a message without an id: no answer comes.
type OpenRPCNotification struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// Direction: "server-to-client" or "client-to-server".
	Direction string              `json:"direction"`
	Params    []ContentDescriptor `json:"params"`
}

// OpenRPCTool names the schemas of one tool's arguments (tools.execute's
// args, the same JSON Schema tools.definitions gives the model) and of its
// result (tools.execute's result for that tool).
type OpenRPCTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Args        schema `json:"args"`
	Result      schema `json:"result"`
}

// OpenRPCComponents holds the schemas x-tools and x-tool-errors refer
// to, and every JSON-RPC error by name (the methods' errors are these).
type OpenRPCComponents struct {
	Schemas map[string]schema `json:"schemas"`
	Errors  OpenRPCErrors     `json:"errors"`
}

// OpenRPCInfo describes the service.
type OpenRPCInfo struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description"`
}

// OpenRPCMethod describes one method.
type OpenRPCMethod struct {
	Name           string              `json:"name"`
	Summary        string              `json:"summary"`
	Tags           []OpenRPCTag        `json:"tags,omitempty"`
	ParamStructure string              `json:"paramStructure"`
	Params         []ContentDescriptor `json:"params"`
	Result         ContentDescriptor   `json:"result"`
	Errors         []OpenRPCError      `json:"errors,omitempty"`
	// Unstable is a specification extension: the method is a debugging
	// surface whose shape may change.
	Unstable bool `json:"x-unstable,omitempty"`
}

// OpenRPCTag groups methods.
type OpenRPCTag struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// ContentDescriptor is a named, schema-described value.
type ContentDescriptor struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Schema      schema `json:"schema"`
}

// OpenRPCError is an application error a method may answer with.
type OpenRPCError struct {
	Code    int64          `json:"code"`
	Message string         `json:"message"`
	Data    wire.ErrorData `json:"data"`
}

var unstableTag = OpenRPCTag{Name: "unstable", Description: "a debugging surface; its shape may change without a protocol version bump"}

func (s *Server) discover(context.Context, wire.NoParams) (OpenRPC, error) {
	return s.Document(), nil
}

// Document builds the OpenRPC document from the method table.
func (s *Server) Document() OpenRPC {
	doc := OpenRPC{
		OpenRPC: OpenRPCVersion,
		Info: OpenRPCInfo{
			Title: "hostd",
			// The protocol's version, not the build's: the document
			// changes when the protocol does (host.info has the build).
			Version:     strconv.Itoa(wire.ProtocolVersion),
			Description: "File tools (read, grep, write, edit) for coding agents, over JSON-RPC 2.0 with LSP framing.",
		},
		Methods: make([]OpenRPCMethod, 0, len(s.table)),
	}
	for _, m := range s.table {
		om := OpenRPCMethod{
			Name:           m.Name,
			Summary:        m.Summary,
			ParamStructure: "by-name",
			Params:         []ContentDescriptor{},
			Result:         ContentDescriptor{Name: m.Name + ".result", Schema: schemaOf(m.result)},
			Unstable:       m.Unstable,
		}
		if m.Unstable {
			om.Tags = []OpenRPCTag{unstableTag}
		}
		for _, f := range structFields(m.params) {
			om.Params = append(om.Params, ContentDescriptor{Name: f.name, Description: f.doc, Required: f.required, Schema: schemaOf(f.typ)})
		}
		for _, c := range m.Errors {
			om.Errors = append(om.Errors, OpenRPCError{Code: c.Num, Message: c.Name, Data: wire.ErrorData{Code: c.Name}})
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
func notifications() []OpenRPCNotification {
	var recorded []ContentDescriptor
	for _, f := range jsonFields(reflect.TypeFor[wire.ReviewRecorded]()) {
		recorded = append(recorded, ContentDescriptor{Name: f.name, Required: f.required, Schema: schemaOf(f.typ)})
	}
	return []OpenRPCNotification{
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
			Params: []ContentDescriptor{{
				Name: "id", Required: true, Description: "the id of the request to cancel",
				Schema: schema{"oneOf": []any{schema{"type": "string"}, schema{"type": "integer"}}},
			}},
		},
	}
}

// toolResults maps each built-in tool to the Go type of its result.
var toolResults = map[string]reflect.Type{
	"read":        reflect.TypeFor[tools.ReadResult](),
	"grep":        reflect.TypeFor[tools.GrepResult](),
	"write":       reflect.TypeFor[tools.WriteResult](),
	"edit":        reflect.TypeFor[tools.EditResult](),
	"diagnostics": reflect.TypeFor[tools.DiagnosticsResult](),
}

// toolSchemas describes the built-in tools' arguments (their embedded
// input schemas) and results, as schemas in components referred to by
// x-tools. It describes the protocol, so it lists the built-in tools
// whatever tools a server was given.
func toolSchemas() ([]OpenRPCTool, OpenRPCComponents) {
	comp := OpenRPCComponents{Schemas: map[string]schema{
		"ToolResult": schemaOf(reflect.TypeFor[tools.Result]()),
	}}
	var out []OpenRPCTool
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
		out = append(out, OpenRPCTool{
			Name:        name,
			Description: firstLine(def.Description),
			Args:        schema{"$ref": "#/components/schemas/" + argsName},
			Result:      schema{"$ref": "#/components/schemas/" + resultName},
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
