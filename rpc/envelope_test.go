package rpc

import (
	"bytes"
	"encoding/json"
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
		for key, got := range map[string][]byte{"jsonrpc": e.JSONRPC, "id": e.ID, "method": e.Method, "result": e.Result, "error": e.Error} {
			w, ok := want[key]
			if ok != (got != nil) || !bytes.Equal(w, got) {
				t.Fatalf("%s: %q: scanner %q, encoding/json %q (present %v)", body, key, got, w, ok)
			}
		}
	})
}

// FuzzClassify checks that a frame body is either answered by the stream
// itself or decodes as the jsonrpc2 request it claims to be, so jsonrpc2
// never sees a body that would make it drop the connection.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"m"}`, `{"jsonrpc":"2.0","method":"m","params":[1]}`, `[1]`, `{`, `{"jsonrpc":"2.0","id":"x","result":null}`, `{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}`, `{"jsonrpc":"2.0","id":1e2,"method":"m"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		rej := classify([]byte(body))
		if rej != nil {
			if rej.ID == nil || rej.Error.Message == "" {
				t.Fatalf("rejection of %q has no id or message", body)
			}
			if _, err := json.Marshal(rej); err != nil {
				t.Fatal(err)
			}
			return
		}
		e := scanEnvelope(bytes.TrimSpace([]byte(body)))
		if e.Method == nil {
			return // a response; hostd sends no requests and ignores it
		}
		var req jsonrpc2.Request
		if err := json.Unmarshal([]byte(body), &req); err != nil {
			t.Fatalf("accepted %q but jsonrpc2 cannot decode it: %v", body, err)
		}
		if req.Notif != (e.ID == nil) {
			t.Fatalf("accepted %q: notification %v, id %s", body, req.Notif, e.ID)
		}
		if !req.Notif {
			got, _ := json.Marshal(req.ID)
			if !bytes.Equal(bytes.TrimSpace(e.ID), got) && !(req.ID.IsString && e.ID[0] == '"') {
				t.Fatalf("accepted %q: jsonrpc2 would answer id %s", body, got)
			}
		}
	})
}
