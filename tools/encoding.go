package tools

import (
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// notText is NOT_TEXT for p, saying why its bytes are not text (err, from
// decoding them, may be nil) and what would make them text: a byte-order
// mark or the workspace's encodings setting names the encoding, and hostd
// never guesses one (edit-contract §3.4, §3.5).
func notText(p workspace.Path, err error) *wire.ToolError {
	var nt *workspace.NotTextError
	errors.As(err, &nt)
	switch {
	case nt != nil && nt.NUL && nt.Enc.IsUTF8() && p.Charset.Rule == nil:
		if e, ok := resembles(p); ok {
			return Errorf(wire.ToolNotText, "%s holds NUL bytes and starts with no byte-order mark, so hostd reads it as binary (grep skips it too), but it looks like %s text without a mark; hostd never guesses an encoding. To read and edit it as text, name that encoding for it in the encodings setting of hostd's config file (for example {\"encodings\": [{\"glob\": %q, \"encoding\": %q}]}, read when hostd starts), or give the file a byte-order mark. Otherwise it is binary: replace it whole with write if you must", p.Display, e.Name(), globFor(p), strings.ToLower(e.Name()))
		}
		return Errorf(wire.ToolNotText, "%s holds a NUL character in its first 8 KiB, so it is binary and cannot be shown or edited as text (grep skips it too). If it is text in UTF-16 or UTF-32 without a byte-order mark, hostd decodes it once the encodings setting of its config file names that encoding (utf-16le, utf-16be, utf-32le or utf-32be) for the file; it never guesses one. Otherwise replace it whole with write if you must", p.Display)
	case nt != nil && nt.NUL:
		return Errorf(wire.ToolNotText, "%s holds a NUL character in its first 8 KiB, so it is binary and cannot be shown or edited as text (grep skips it too); replace it whole with write if you must", p.Display)
	case p.Charset.Rule != nil:
		r := p.Charset.Rule
		return Errorf(wire.ToolNotText, "%s is not valid %s%s, the encoding hostd's encodings setting gives it (the rule for %q), so it cannot be shown or edited as text (grep skips it too); if the file is in another encoding, correct that setting in hostd's config file, otherwise replace it whole with write if you must", p.Display, p.Charset.Enc.Name(), at(nt), r.Glob)
	case nt != nil && !nt.Enc.IsUTF8():
		return Errorf(wire.ToolNotText, "%s starts with the byte-order mark of %s but is not valid %s%s, so it cannot be shown or edited as text (grep skips it too); replace it whole with write if you must", p.Display, nt.Enc.Name(), nt.Enc.Name(), at(nt))
	}
	return Errorf(wire.ToolNotText, "%s is binary or not valid UTF-8%s and cannot be shown or edited as text (grep skips it too). If it is text in a legacy encoding such as windows-1252 or shift_jis, hostd decodes it once its config file's encodings setting names that encoding for the file (for example {\"glob\": \"*.txt\", \"encoding\": \"windows-1252\"}); it never guesses one. Otherwise replace it whole with write if you must", p.Display, at(nt))
}

// resembles is the UTF-16 or UTF-32 byte order the start of p's bytes
// look like they are text in (textenc.Resemble), for the refusal of a
// file with NUL bytes and no byte-order mark.
func resembles(p workspace.Path) (textenc.Encoding, bool) {
	f, err := p.Open()
	if err != nil {
		return textenc.UTF8, false
	}
	defer f.Close()
	head := make([]byte, workspace.NULScanBytes)
	n, _ := io.ReadFull(f, head)
	return textenc.Resemble(head[:n])
}

// globFor is an encodings rule's glob that covers p: its extension at
// any depth, or its name when it has none.
func globFor(p workspace.Path) string {
	name := path.Base(filepath.ToSlash(p.Display))
	if ext := path.Ext(name); ext != "" && ext != name {
		return "*" + ext
	}
	return name
}

// at says where decoding failed, when it is known.
func at(nt *workspace.NotTextError) string {
	if nt == nil || nt.NUL {
		return ""
	}
	return fmt.Sprintf(" (the bytes at offset %d)", nt.Offset)
}

// unencodable is the refusal of a write or edit whose new text holds a
// character the file's encoding cannot represent: nothing was written.
func unencodable(p workspace.Path, err error) *wire.ToolError {
	var ue *workspace.UnencodableError
	if !errors.As(err, &ue) {
		return nil
	}
	return Errorf(wire.ToolInvalidArgument, "%s is stored in %s, and %s; nothing was written: write that character another way the file's language allows (an escape or entity), or leave it out", p.Display, ue.Enc.Name(), ue.Error())
}

// payloadSize is the size holdPayload reserves for a write or edit of a
// file of size bytes at p. A file not in UTF-8 is held as bytes and as
// text at once, and its text (or its bytes, when encoded from a text)
// can be larger than its bytes in UTF-8 (windows-1252's 0x80 is three
// bytes of UTF-8; an ASCII character four bytes of UTF-32): its size is
// scaled by the half of the larger of the two ratios. The encoding is the
// one a byte-order mark names, looked at for files where it matters, else
// the path's charset.
func payloadSize(p workspace.Path, size int64) int64 {
	enc := p.Charset.Enc
	if size > peekMarkOver {
		if e, ok := peekMark(p); ok {
			enc = e
		}
	}
	if enc.IsUTF8() {
		return size
	}
	return size * (1 + max(enc.Expansion(), enc.Growth())) / 2
}

// peekMarkOver is the file size from which payloadSize opens the file to
// look for a byte-order mark: below it the difference is too small to pay
// for an open.
const peekMarkOver = 64 << 10

// peekMark returns the encoding a byte-order mark at the start of p
// names, if any.
func peekMark(p workspace.Path) (textenc.Encoding, bool) {
	f, err := p.Open()
	if err != nil {
		return textenc.UTF8, false
	}
	defer f.Close()
	var head [textenc.MaxBOM]byte
	n, _ := io.ReadFull(f, head[:])
	e, _, ok := textenc.Sniff(head[:n])
	return e, ok
}

// movedCharset warns when MV moves a file whose encoding no byte-order
// mark names to a path the workspace's encodings setting gives another
// one: MV moves the bytes as they are, so from now on they are decoded as
// the destination's setting says. "" when nothing changes.
func movedCharset(t workspace.Text, dest workspace.Path) string {
	if t.BOM || dest.Charset.Enc == t.Enc {
		return ""
	}
	return fmt.Sprintf("%s keeps its bytes in %s, but hostd's encodings setting gives %s %s, so it is read as %s from now on; move it back, or correct the setting, if that is not what the file is", dest.Display, t.Enc.Name(), dest.Display, dest.Charset.Enc.Name(), dest.Charset.Enc.Name())
}
