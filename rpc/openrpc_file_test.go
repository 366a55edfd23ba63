package rpc

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

const openRPCFile = "../docs/openrpc.json"

// docs/openrpc.json is rpc.discover's document, checked in for client
// generators (clients/typescript) and readers. It is regenerated here and
// must be the same, byte for byte; after changing a method, a param, a
// result type, a tool's schema or an error code, run
//
//	go test ./rpc -run TestOpenRPCFileIsCurrent -update
func TestOpenRPCFileIsCurrent(t *testing.T) {
	// A daemon has a review store, so its document has review.*.
	_, withStore := withReview(t)
	h := newHarness(t, withStore)
	want, err := json.MarshalIndent(h.srv.Document(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if testenv.Update() {
		if err := os.WriteFile(openRPCFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(openRPCFile)
	if err != nil {
		t.Fatalf("%v (generate it: go test ./rpc -run TestOpenRPCFileIsCurrent -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with the method table; regenerate it: go test ./rpc -run TestOpenRPCFileIsCurrent -update", openRPCFile)
	}

	// rpc.discover answers the same document.
	var fromWire, fromFile any
	mustCall(t, h.client(), "rpc.discover", nil, &fromWire)
	if err := json.Unmarshal(got, &fromFile); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromWire, fromFile) {
		t.Errorf("rpc.discover differs from %s", openRPCFile)
	}
}

// The document names every tool with its arguments and result schema,
// every notification, and every application error code the methods use.
func TestOpenRPCDescribesToolsAndNotifications(t *testing.T) {
	doc := newHarness(t).srv.Document()
	var tools []string
	for _, tl := range doc.Tools {
		tools = append(tools, tl.Name)
		for _, ref := range []schema{tl.Args, tl.Result} {
			name := ref["$ref"].(string)[len("#/components/schemas/"):]
			if doc.Components.Schemas[name] == nil {
				t.Errorf("%s refers to a missing schema %s", tl.Name, name)
			}
		}
	}
	if !reflect.DeepEqual(tools, []string{"read", "grep", "write", "edit", "diagnostics"}) {
		t.Errorf("x-tools = %v", tools)
	}
	// A tool result's schema has the shared fields (flattened from the
	// embedded wire.ToolResult) and the tool's own.
	read := doc.Components.Schemas["ReadResult"]["properties"].(schema)
	for _, f := range []string{"ok", "content", "toolCallId", "warnings", "tag"} {
		if read[f] == nil {
			t.Errorf("ReadResult lacks %q: %v", f, read)
		}
	}
	var notes []string
	for _, n := range doc.Notifications {
		notes = append(notes, n.Name+" "+n.Direction)
	}
	if !reflect.DeepEqual(notes, []string{"review.recorded server-to-client", "$/cancelRequest client-to-server"}) {
		t.Errorf("x-notifications = %v", notes)
	}
}
