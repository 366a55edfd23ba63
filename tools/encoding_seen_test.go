package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// Provenance does not depend on the encoding (edit-contract §3.5, §4.3):
// in a file in any supported encoding, the tag of a read, the refusal of
// an edit anchored on a line the session was not shown (LINES_UNSEEN, with
// the same message) and the tag after an edit of a line it was shown are
// exactly those of the same text in UTF-8, and the refusal leaves every
// byte of the file as it was. UTF-16 and UTF-32 are tried after their
// mark, every encoding also by the setting.
func TestEncodedProvenanceIsThatOfUTF8(t *testing.T) {
	for _, enc := range textenc.Supported() {
		held := heldCharacters(t, enc)
		var text strings.Builder
		for i := 1; i <= 60; i++ {
			fmt.Fprintf(&text, "line %d %c\r\n", i, held[i%len(held)])
		}
		modes := []bool{false}
		if !enc.IsUTF8() && len(enc.BOM()) > 0 {
			modes = append(modes, true)
		}
		for _, bom := range modes {
			name := enc.Name() + " by setting"
			if bom {
				name = enc.Name() + " mark"
			}
			t.Run(name, func(t *testing.T) {
				plain, _ := newEncodedEnv(t, nil)
				plain.put("f.enc", text.String())
				var rules []config.EncodingRule
				if !bom {
					rules = []config.EncodingRule{{Glob: "*.enc", Encoding: enc.Name()}}
				}
				coded, _ := newEncodedEnv(t, rules)
				before := encodeAs(t, enc, bom, text.String())
				coded.put("f.enc", before)

				read := map[string]any{"path": "f.enc", "offset": 1, "limit": 5}
				want, got := plain.read(read), coded.read(read)
				if got.Tag != want.Tag {
					t.Fatalf("read tag %s, the same text in UTF-8 has %s", got.Tag, want.Tag)
				}

				unseen := "PUT 50.=50:\n+changed"
				wr, gr := plain.runEdit("f.enc", want.Tag, unseen), coded.runEdit("f.enc", got.Tag, unseen)
				wantCode(t, wr, wire.ToolLinesUnseen)
				wantCode(t, gr, wire.ToolLinesUnseen)
				if gr.Error.Message != wr.Error.Message {
					t.Fatalf("the refusal says\n%s\nin UTF-8 it says\n%s", gr.Error.Message, wr.Error.Message)
				}
				if now := coded.cat("f.enc"); now != before {
					t.Fatal("an edit refused as LINES_UNSEEN changed the file")
				}

				seen := fmt.Sprintf("PUT 3.=3:\n+changed %c", held[0])
				wr, gr = plain.runEdit("f.enc", want.Tag, seen), coded.runEdit("f.enc", got.Tag, seen)
				wantOK(t, wr)
				wantOK(t, gr)
				if gr.Tag != wr.Tag {
					t.Fatalf("tag after the edit %s, the same edit in UTF-8 gives %s", gr.Tag, wr.Tag)
				}
				if after := plain.read(map[string]any{"path": "f.enc"}); coded.read(map[string]any{"path": "f.enc"}).Tag != after.Tag {
					t.Fatal("after the edit a whole read's tag differs from UTF-8's")
				}
			})
		}
	}
}
