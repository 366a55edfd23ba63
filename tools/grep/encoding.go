package grep

import (
	"unsafe"

	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// encodingOf is the encoding a file is searched in: the one a byte-order
// mark at the start of head names, else what the workspace's encodings
// setting gives its path, else UTF-8 (edit-contract §3.5). The setting is
// looked up only when the workspace has one, so a search of a workspace
// without it pays one look at the first bytes per file.
func (s *search) encodingOf(name *fileName, head []byte) textenc.Encoding {
	if e, _, ok := textenc.Sniff(head); ok {
		return e
	}
	switch {
	case name.cd.named != nil:
		return name.cd.named.Charset.Enc
	case s.charset != nil:
		return s.charset(name.cd.abs()).Enc
	}
	return textenc.UTF8
}

// encodedWeight is what a file in enc holds of the read budget: its bytes
// and, when it must be decoded, its text and normalized text as well;
// never more than the whole budget, so a file over it is searched alone
// instead of never.
func encodedWeight(weight int64, enc textenc.Encoding, limit int64) int64 {
	if enc.IsUTF8() {
		return weight
	}
	return min(weight*(1+2*enc.Expansion()), grepReadBudget(limit))
}

// searchEncoded searches a file not in UTF-8: its text is decoded whole
// first, strictly (workspace.DecodeAs), and searched as a UTF-8 file's
// would be, so the line numbers are the ones read shows. The raw bytes'
// prefilter and NUL check do not apply: UTF-16's bytes hold NULs and
// split every run.
func (s *search) searchEncoded(name *fileName, f source, fb fileBytes) fileResult {
	r := fileResult{searched: true}
	t, err := workspace.DecodeAs(fb.raw, fb.enc)
	if err != nil {
		r.skip = notText(name.display(), err)
		return r
	}
	var body []byte
	if t.Body != "" {
		// The matcher only reads it.
		body = unsafe.Slice(unsafe.StringData(t.Body), len(t.Body))
	}
	return s.searchText(name, f, fb, r, body, t.Body, true)
}
