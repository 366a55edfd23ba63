package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The rpc.discover document's shape (OpenRPC 1.2.6 with hostd's
// extensions): the daemon builds it from its method table, and a client
// decodes it to learn the tools' result schemas or the methods served.

// Schema is a JSON Schema object as OpenRPC embeds it.
type Schema map[string]any

// componentsRef starts a reference to a schema of components.schemas.
const componentsRef = "#/components/schemas/"

// ToolResultSchema is the name in components.schemas of the part every
// tool's result shares (ToolResult's schema); each tool's own result
// schema is named by its x-tools entry's Result.
const ToolResultSchema = "ToolResult"

// SchemaRef is a schema that refers to the one named name in the
// document's components.schemas.
func SchemaRef(name string) Schema { return Schema{"$ref": componentsRef + name} }

// RefName is the name in components.schemas that s, a schema made by
// SchemaRef, refers to; false when s is not such a reference.
func (s Schema) RefName() (string, bool) {
	ref, ok := s["$ref"].(string)
	if !ok {
		return "", false
	}
	return strings.CutPrefix(ref, componentsRef)
}

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
	RepeatGuardDetails Schema                `json:"x-repeat-guard-details"`
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
	Args        Schema `json:"args"`
	Result      Schema `json:"result"`
}

// OpenRPCComponents holds the schemas x-tools and x-tool-errors refer
// to, and every JSON-RPC error by name (the methods' errors are these).
type OpenRPCComponents struct {
	Schemas map[string]Schema `json:"schemas"`
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

// ContentDescriptor is a named, Schema-described value.
type ContentDescriptor struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Schema      Schema `json:"schema"`
}

// OpenRPCError is an application error a method may answer with.
type OpenRPCError struct {
	Code    int64     `json:"code"`
	Message string    `json:"message"`
	Data    ErrorData `json:"data"`
}

// OpenRPCErrorDef is one entry of components.errors: an OpenRPC error
// object, with whether the same request can succeed sent again
// (x-retriable) and what to do about it (x-description).
type OpenRPCErrorDef struct {
	Code        int64     `json:"code"`
	Message     string    `json:"message"`
	Data        ErrorData `json:"data"`
	Retriable   bool      `json:"x-retriable"`
	Description string    `json:"x-description"`
}

// OpenRPCToolError is one entry of x-tool-errors: a code a tool result
// with ok: false carries in error.code (wire-contract §4).
type OpenRPCToolError struct {
	Code        string `json:"code"`
	Retriable   bool   `json:"retriable"`
	Description string `json:"description"`
	// Details is the Schema of error.details; absent for a code that
	// carries none (but the repeat guard's).
	Details Schema `json:"details,omitempty"`
}

// OpenRPCErrors is components.errors: an object of error objects by name
// (the name is each one's message), written in wire-contract §2's order
// rather than sorted, so the document and the types made from it read
// as the contract does.
type OpenRPCErrors []OpenRPCErrorDef

// MarshalJSON writes the errors as one object, in order.
func (es OpenRPCErrors) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, e := range es {
		if i > 0 {
			b = append(b, ',')
		}
		name, err := json.Marshal(e.Message)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, name...), ':'), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the object MarshalJSON writes, keeping its order, so
// that a Go client decoding rpc.discover gets the errors as sent.
func (es *OpenRPCErrors) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil {
		return err
	} else if tok == nil {
		*es = nil
		return nil
	} else if tok != json.Delim('{') {
		return fmt.Errorf("components.errors: want an object, got %v", tok)
	}
	out := OpenRPCErrors{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var e OpenRPCErrorDef
		if err := dec.Decode(&e); err != nil {
			return fmt.Errorf("components.errors.%s: %w", name, err)
		}
		if e.Message != name {
			return fmt.Errorf("components.errors.%s has message %q: the name and the message are the same", name, e.Message)
		}
		out = append(out, e)
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*es = out
	return nil
}
