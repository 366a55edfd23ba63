package rpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

func TestWrongParamsAreInvalidParamsNamingTheField(t *testing.T) {
	h := newHarness(t)
	c := h.raw()
	tests := []struct {
		method, params, field, says string
	}{
		{"session.create", `{"workspace":1}`, "params.workspace", "params.workspace: must be a string"},
		{"session.create", `{}`, "params.workspace", "params.workspace: is required"},
		{"session.create", `{"workspace":null}`, "params.workspace", "params.workspace: is required"},
		{"session.create", `{"workspace":""}`, "params.workspace", "params.workspace: is required"},
		{"session.create", `{"workspace":"/","externalRoots":{}}`, "params.externalRoots", "must be an array"},
		{"session.create", `{"workspace":"/","externalRoots":[{"path":"/","writable":"yes"}]}`, "params.externalRoots[0].writable", "must be a boolean"},
		{"session.create", `{"workspace":"/","externalRoots":[{"path":"/"},{"writable":true}]}`, "params.externalRoots[1].path", "is required"},
		{"session.create", `{"workspace":"/","externalRoots":[{"path":"/","mode":"rw"}]}`, "params.externalRoots[0].mode", "unknown field"},
		{"session.create", `{"Workspace":"/"}`, "params.Workspace", "unknown field"},
		{"session.create", `["/"]`, "params", "must be an object"},
		{"session.delete", `{"sessionId":42}`, "params.sessionId", "must be a string"},
		{"session.delete", `{"id":"s"}`, "params.id", "unknown field (this method takes sessionId)"},
		{"tools.execute", `{"sessionId":"s","tool":["read"]}`, "params.tool", "must be a string"},
		{"host.info", `{"verbose":true}`, "params.verbose", "this method takes no parameters"},
	}
	for i, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			c.t = t
			c.send(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"` + tt.method + `","params":` + tt.params + `}`)
			r := c.recv()
			if r.Error == nil || r.Error.Code != -32602 || r.Error.Data.Code != "INVALID_PARAMS" {
				t.Fatalf("want -32602, got %+v", r)
			}
			if r.Error.Data.Field != tt.field {
				t.Errorf("data.field = %q, want %q", r.Error.Data.Field, tt.field)
			}
			if !bytes.Contains([]byte(r.Error.Message), []byte(tt.says)) {
				t.Errorf("message %q does not say %q", r.Error.Message, tt.says)
			}
		})
	}
}

func TestAbsentOrNullParamsAreAnEmptyObject(t *testing.T) {
	h := newHarness(t)
	c := h.raw()
	for i, frame := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"host.info"}`,
		`{"jsonrpc":"2.0","id":2,"method":"host.info","params":null}`,
		`{"jsonrpc":"2.0","id":3,"method":"host.info","params":{}}`,
	} {
		c.send(frame)
		if r := c.recv(); r.Error != nil || string(r.ID) != itoa(i+1) {
			t.Errorf("%s: %+v", frame, r.Error)
		}
	}
}

// FuzzParamsCheck holds check to a simple oracle: whatever it accepts,
// encoding/json decodes strictly (no unknown field, no type error), with
// every required field present and non-empty.
func FuzzParamsCheck(f *testing.F) {
	for _, s := range []string{
		`{"workspace":"/w"}`,
		`{"workspace":"/w","externalRoots":[{"path":"/e","writable":true}],"sessionId":"a"}`,
		`{"workspace":"/w","externalRoots":null}`,
		`{"workspace":1}`,
		`{"WORKSPACE":"/w"}`,
		`{"workspace":"/w","workspace":2}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		var p wire.SessionCreateParams
		err := decodeParams(json.RawMessage(raw), &p)
		if err != nil {
			if we, ok := err.(*wireError); !ok || we.code != wire.CodeInvalidParams || we.field == "" {
				t.Fatalf("%s: error %v is not INVALID_PARAMS naming a field", raw, err)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
		dec.DisallowUnknownFields()
		var strict wire.SessionCreateParams
		if err := dec.Decode(&strict); err != nil {
			t.Fatalf("check accepted %s, strict decoding says %v", raw, err)
		}
		if !reflect.DeepEqual(p, strict) {
			t.Fatalf("%s: decoded %+v, encoding/json %+v", raw, p, strict)
		}
		if p.Workspace == "" {
			t.Fatalf("accepted %s without a workspace", raw)
		}
		for _, e := range p.ExternalRoots {
			if e.Path == "" {
				t.Fatalf("accepted %s with an external root without a path", raw)
			}
		}
	})
}

// FuzzDecodeParamsAliasing: params decoded field by field, with a raw
// field aliasing the frame, are exactly what encoding/json decodes.
func FuzzDecodeParamsAliasing(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"s","tool":"write","args":{"path":"a","content":"x\ny"}}`,
		`{"sessionId":"s","tool":"t","args": [1, 2] ,"promptId":"p","toolCallId":"c"}`,
		`{"sessionId":"s","tool":"t","args":null}`,
		`{"session\u0049d":"s","tool":"t","args":"\u00e9","args":3}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		var p wire.ExecuteParams
		if decodeParams(json.RawMessage(raw), &p) != nil {
			return
		}
		var want wire.ExecuteParams
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("accepted %s, encoding/json says %v", raw, err)
		}
		if !reflect.DeepEqual(p, want) {
			t.Fatalf("%s: decoded %+v, encoding/json %+v", raw, p, want)
		}
	})
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
