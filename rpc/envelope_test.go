package rpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// FuzzScanEnvelope holds the hand-written scanner to encoding/json: for
// any valid JSON object, each member it reports is the value
// json.Unmarshal puts under that exact key (last one wins).
func FuzzScanEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,{"b":"}"}]}}`,
		`{ "id" : "x\"y" , "method":"m" , "id":2 }`,
		`{"\u006dethod":"m","result":null,"error":{"code":1}}`,
		`{}`,
		`{"a":-1.5e3,"error":[],"jsonrpc":true}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		b := bytes.TrimSpace([]byte(body))
		if !json.Valid(b) || b[0] != '{' {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		e := scanEnvelope(b)
		for key, got := range map[string][]byte{"jsonrpc": e.JSONRPC, "id": e.ID, "method": e.Method, "params": e.Params, "result": e.Result, "error": e.Error} {
			w, ok := want[key]
			if ok != (got != nil) || !bytes.Equal(w, got) {
				t.Fatalf("%s: %q: scanner %q, encoding/json %q (present %v)", body, key, got, w, ok)
			}
		}
	})
}

// FuzzClassify checks that a frame body is either answered by the
// reader itself or turned into the very request jsonrpc2 would decode
// from it (method, id, notification, params), and that an accepted id is
// echoed back as the client sent it.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"m"}`, `{"jsonrpc":"2.0","method":"m","params":[1]}`, `[1]`, `{`, `{"jsonrpc":"2.0","id":"x","result":null}`, `{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}`, `{"jsonrpc":"2.0","id":1e2,"method":"m"}`, `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, `{"jsonrpc":"2.0","id":"\u0041","method":"m\n","params":{"a":"\u00e9"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req, rej := parseRequest([]byte(body))
		if rej != nil {
			if req != nil || rej.ID == nil || rej.Error.Message == "" {
				t.Fatalf("rejection of %q has no id or message, or a request", body)
			}
			if _, err := json.Marshal(rej); err != nil {
				t.Fatal(err)
			}
			return
		}
		e := scanEnvelope(bytes.TrimSpace([]byte(body)))
		if req == nil {
			if e.Method != nil {
				t.Fatalf("%q has a method but gave no request", body)
			}
			return // a response; hostd sends no requests and ignores it
		}
		var want jsonrpc2.Request
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatalf("accepted %q but jsonrpc2 cannot decode it: %v", body, err)
		}
		if req.Method != want.Method || req.Notif != want.Notif || req.ID != want.ID {
			t.Fatalf("%q: got %q %v %v, jsonrpc2 %q %v %v", body, req.Method, req.Notif, req.ID, want.Method, want.Notif, want.ID)
		}
		if (req.Params == nil) != (want.Params == nil) {
			t.Fatalf("%q: params present %v, jsonrpc2 %v", body, req.Params != nil, want.Params != nil)
		}
		if req.Params != nil {
			var got, w any
			if json.Unmarshal(*req.Params, &got) != nil || json.Unmarshal(*want.Params, &w) != nil || !reflect.DeepEqual(got, w) {
				t.Fatalf("%q: params %s, jsonrpc2 %s", body, *req.Params, *want.Params)
			}
		}
		if !req.Notif {
			got, _ := json.Marshal(req.ID)
			if !bytes.Equal(bytes.TrimSpace(e.ID), got) && !(req.ID.IsString && e.ID[0] == '"') {
				t.Fatalf("accepted %q: the answer's id would be %s", body, got)
			}
		}
	})
}
