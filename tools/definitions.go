package tools

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// defs holds the model-facing text of every tool: defs/NAME.md is the
// description, defs/NAME.json the input schema. This is the single source
// tools.definitions serves (edit-contract §13.6); nothing else may carry a
// copy.
//
//go:embed defs
var defs embed.FS

// LoadDefinition reads the embedded definition of one tool.
func LoadDefinition(name string) (wire.ToolDefinition, error) {
	desc, err := defs.ReadFile("defs/" + name + ".md")
	if err != nil {
		return wire.ToolDefinition{}, fmt.Errorf("tool %s has no description: %w", name, err)
	}
	schema, err := defs.ReadFile("defs/" + name + ".json")
	if err != nil {
		return wire.ToolDefinition{}, fmt.Errorf("tool %s has no input schema: %w", name, err)
	}
	if !json.Valid(schema) {
		return wire.ToolDefinition{}, fmt.Errorf("tool %s: input schema is not valid JSON", name)
	}
	return wire.ToolDefinition{Name: name, Description: strings.TrimSpace(string(desc)), InputSchema: schema}, nil
}

// Definitions returns the definitions of the executor's tools, by name.
func (e *Executor) Definitions() ([]wire.ToolDefinition, error) {
	names := make([]string, 0, len(e.tools))
	for n := range e.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]wire.ToolDefinition, 0, len(names))
	for _, n := range names {
		d, err := LoadDefinition(n)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
