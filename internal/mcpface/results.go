package mcpface

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// toolResult turns a tools.execute result into an MCP result. content is
// the one text block the model sees, error and warnings folded in as the
// daemon folded them (wire-contract §4); a failed tool is isError. _meta
// names the session and the call. With structured, structuredContent is
// the whole tools.execute result, content first: hosts read the tag,
// regions and error code there without parsing text, and a host that
// shows the model structuredContent instead of content (some do) still
// shows it the text; and _meta carries the rest of the result.
func toolResult(res wire.ExecuteResult, sessionID string, structured bool) (*mcp.CallToolResult, error) {
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Content}}, IsError: !res.OK}
	out.Meta = mcp.Meta{MetaSessionID: sessionID, MetaToolCallID: res.ToolCallID}
	if structured {
		fields, err := res.Fields()
		if err != nil {
			return nil, fmt.Errorf("hostd answered tools.execute with a result that is not an object: %w", err)
		}
		out.StructuredContent = contentFirst(fields)
		delete(fields, "content")
		out.Meta[MetaResult] = fields
	}
	return out, nil
}

// contentFirst is res as one JSON object whose first member is content.
func contentFirst(res map[string]json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"content":`)
	b.Write(res["content"])
	for _, k := range slices.Sorted(maps.Keys(res)) {
		if k == "content" {
			continue
		}
		key, _ := json.Marshal(k)
		b.WriteByte(',')
		b.Write(key)
		b.WriteByte(':')
		b.Write(res[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// failure is a call the daemon could not run, as the model reads it: the
// error's code name first, as a failed tool's content starts. With
// structured, structuredContent is the failed tools.execute result the
// daemon would have given (ok false, the error's code and message).
func failure(structured bool, err error) *mcp.CallToolResult {
	code, msg, retriable := wire.ToolFailed, "", true
	var ce *CallError
	var re *rootsError
	switch {
	case errors.As(err, &ce):
		code, msg = ce.Name, ce.Message
		retriable = ce.Name != wire.ToolFileTooLarge && ce.Name != wire.CodeUnknownTool.Name && ce.Name != wire.CodeInvalidParams.Name
	case errors.As(err, &re):
		code, msg, retriable = wire.CodeWorkspaceInvalid.Name, re.Error(), false
	case errors.Is(err, errEnded):
		code, msg = wire.CodeSessionNotFound.Name, err.Error()+" (the call did not run)"
	default:
		// The connection to the daemon failed: the call may or may not
		// have run there.
		msg = "hostd did not answer (" + err.Error() + "); the call may have run: read the file again before editing it"
	}
	text := "Error " + code + ": " + msg
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
	if structured {
		raw, _ := json.Marshal(wire.ToolResult{Content: text, Warnings: []string{}, Error: &wire.ToolError{Code: code, Message: msg, Retriable: retriable}})
		var fields map[string]json.RawMessage
		json.Unmarshal(raw, &fields)
		out.StructuredContent = contentFirst(fields)
	}
	return out
}

// outputSchemas are the tools' output schemas, made from the result
// schemas the daemon publishes in rpc.discover (its x-tools results, in
// components.schemas): the one source of the result shapes, as
// tools.definitions is of their inputs. A tool the document gives no
// result schema for has none, and so have all when the daemon refuses to
// send the document (a maxFrameBytes smaller than it): the tools work
// without, their results unstructured.
func outputSchemas(ctx context.Context, d Daemon) (map[string]map[string]any, error) {
	doc, err := client.Typed(d).RPCDiscover(ctx)
	var ce *CallError
	if errors.As(err, &ce) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("ask hostd for its result schemas: %w", err)
	}
	base := doc.Components.Schemas[wire.ToolResultSchema]
	out := map[string]map[string]any{}
	for _, t := range doc.Tools {
		name, ok := t.Result.RefName()
		if result := doc.Components.Schemas[name]; ok && result != nil && base != nil {
			out[t.Name] = outputSchema(result, base)
		}
	}
	return out, nil
}

// outputSchema is a tool's result schema as its MCP outputSchema. Every
// result has the fields every tool result has (base's required ones); the
// tool's own are required only when ok is true, since a failed result
// carries only the shared fields and error (wire-contract §4). Objects
// are left open: the wire contract lets the daemon add fields, and a host
// that validates results must not refuse a newer daemon's.
func outputSchema(result, base map[string]any) map[string]any {
	shared := map[string]bool{}
	for _, r := range stringList(base["required"]) {
		shared[r] = true
	}
	var common, own []string
	for _, r := range stringList(result["required"]) {
		if shared[r] {
			common = append(common, r)
		} else {
			own = append(own, r)
		}
	}
	s := map[string]any{
		"type":        "object",
		"description": "the tools.execute result (hostd wire contract §4): content is the text the model is shown; the tool's own fields are present when ok is true",
		"properties":  open(result["properties"]),
		"required":    common,
		"if":          map[string]any{"properties": map[string]any{"ok": map[string]any{"const": true}}, "required": []string{"ok"}},
		"else":        map[string]any{"required": []string{"error"}},
	}
	if len(own) > 0 {
		s["then"] = map[string]any{"required": own}
	}
	return s
}

// stringList is a JSON array of strings; other values are skipped.
func stringList(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// open copies a schema without its "additionalProperties": false.
func open(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			if k == "additionalProperties" && e == false {
				continue
			}
			m[k] = open(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = open(e)
		}
		return a
	}
	return v
}
