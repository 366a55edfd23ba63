package rpc

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

func TestDiscoverDescribesExactlyTheMethodsThatDispatch(t *testing.T) {
	h := newHarness(t)
	c := h.client()
	var doc wire.OpenRPC
	mustCall(t, c, "rpc.discover", nil, &doc)
	if !strings.HasPrefix(doc.OpenRPC, "1.") || doc.Info.Title != "hostd" || doc.Info.Version != "1" {
		t.Errorf("header: %+v %+v", doc.OpenRPC, doc.Info)
	}
	// wire-contract §3: every method of the contract this daemon can make real.
	want := []string{"host.info", "host.shutdown", "rpc.discover", "session.create", "session.delete", "session.list", "session.setWorkspace", "tools.definitions", "tools.execute", "debug.stats", "debug.session"}
	var names []string
	for _, m := range doc.Methods {
		names = append(names, m.Name)
	}
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Errorf("rpc.discover lacks %s", w)
		}
	}
	// Every documented method dispatches: it answers something other than
	// METHOD_NOT_FOUND (params may be wrong; the method exists).
	for _, name := range names {
		if name == "host.shutdown" {
			continue
		}
		if e := call(t, c, name, map[string]any{"probe": true}, nil); e != nil && e.Code == wire.CodeMethodNotFound.Num {
			t.Errorf("%s is documented but does not dispatch", name)
		}
	}
	// And a method the document does not list does not dispatch.
	if e := call(t, c, "session.frobnicate", nil, nil); e == nil || e.Code != wire.CodeMethodNotFound.Num {
		t.Errorf("an undocumented method dispatched: %v", e)
	}
}

func TestDiscoverMarksDebugMethodsUnstable(t *testing.T) {
	h := newHarness(t)
	var doc wire.OpenRPC
	mustCall(t, h.client(), "rpc.discover", nil, &doc)
	for _, m := range doc.Methods {
		debug := strings.HasPrefix(m.Name, "debug.")
		tagged := slices.ContainsFunc(m.Tags, func(tg wire.OpenRPCTag) bool { return tg.Name == "unstable" })
		if debug != m.Unstable || debug != tagged {
			t.Errorf("%s: x-unstable %v, unstable tag %v", m.Name, m.Unstable, tagged)
		}
	}
}

func TestDiscoverParamsAndResultsFollowTheGoTypes(t *testing.T) {
	h := newHarness(t)
	var raw struct {
		Methods []struct {
			Name   string `json:"name"`
			Params []struct {
				Name     string         `json:"name"`
				Required bool           `json:"required"`
				Schema   map[string]any `json:"schema"`
			} `json:"params"`
			Result struct {
				Schema map[string]any `json:"schema"`
			} `json:"result"`
			Errors []wire.OpenRPCError `json:"errors"`
		} `json:"methods"`
	}
	mustCall(t, h.client(), "rpc.discover", nil, &raw)
	byName := map[string]int{}
	for i, m := range raw.Methods {
		byName[m.Name] = i
		if m.Result.Schema == nil {
			t.Errorf("%s has no result schema", m.Name)
		}
	}
	create := raw.Methods[byName["session.create"]]
	required := map[string]bool{}
	for _, p := range create.Params {
		required[p.Name] = p.Required
	}
	if !required["workspace"] || required["scratch"] || required["sessionId"] || required["externalRoots"] {
		t.Errorf("session.create requiredness: %v", required)
	}
	ext := create.Params[2].Schema
	items, _ := ext["items"].(map[string]any)
	props, _ := items["properties"].(map[string]any)
	if ext["type"] != "array" || props["path"] == nil || props["writable"] == nil {
		t.Errorf("externalRoots schema: %v", ext)
	}
	if !slices.ContainsFunc(create.Errors, func(e wire.OpenRPCError) bool { return e.Code == -32006 && e.Data.Code == "SESSION_LIMIT" }) {
		t.Errorf("session.create errors: %+v", create.Errors)
	}
	// debug.session's seenLines is null or a list of [from, to] pairs.
	dump, _ := json.Marshal(raw.Methods[byName["debug.session"]].Result.Schema)
	if !strings.Contains(string(dump), `"seenLines":{"description"`) || !strings.Contains(string(dump), `"maxItems":2`) {
		t.Errorf("debug.session schema does not describe seenLines: %s", dump)
	}
	if len(raw.Methods[byName["host.info"]].Params) != 0 {
		t.Error("host.info takes no params")
	}
}

func TestDocumentIsTheDispatchTable(t *testing.T) {
	s := NewServer(Options{})
	doc := s.Document()
	if len(doc.Methods) != len(s.Methods()) {
		t.Fatalf("%d documented, %d in the table", len(doc.Methods), len(s.Methods()))
	}
	for i, m := range s.Methods() {
		if doc.Methods[i].Name != m.Name || s.methods[m.Name] != m {
			t.Errorf("row %d: %s", i, m.Name)
		}
	}
}
