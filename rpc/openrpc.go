package rpc

import (
	"context"
)

// OpenRPCVersion is the OpenRPC specification rpc.discover follows.
const OpenRPCVersion = "1.2.6"

// OpenRPC is the rpc.discover document.
type OpenRPC struct {
	OpenRPC string          `json:"openrpc"`
	Info    OpenRPCInfo     `json:"info"`
	Methods []OpenRPCMethod `json:"methods"`
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
	Code    int64     `json:"code"`
	Message string    `json:"message"`
	Data    errorData `json:"data"`
}

var unstableTag = OpenRPCTag{Name: "unstable", Description: "a debugging surface; its shape may change without a protocol version bump"}

func (s *Server) discover(context.Context, NoParams) (OpenRPC, error) {
	return s.Document(), nil
}

// Document builds the OpenRPC document from the method table.
func (s *Server) Document() OpenRPC {
	doc := OpenRPC{
		OpenRPC: OpenRPCVersion,
		Info: OpenRPCInfo{
			Title:       "hostd",
			Version:     s.opts.Version,
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
			om.Errors = append(om.Errors, OpenRPCError{Code: c.Num, Message: c.Name, Data: errorData{Code: c.Name}})
		}
		doc.Methods = append(doc.Methods, om)
	}
	return doc
}
