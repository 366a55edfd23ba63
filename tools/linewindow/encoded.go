package linewindow

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/hostd-dev/hostd/workspace"
	"github.com/hostd-dev/hostd/workspace/textenc"
)

// decoding returns what the scan reads of r: r itself for a file in
// UTF-8, whose bytes the scan validates as it goes; for a file in another
// encoding (a UTF-16 or UTF-32 byte-order mark, or Options.Encoding for a
// file without a mark), its text, decoded a chunk at a time by a
// textenc.Reader with the strict round trip workspace.DecodeAs applies,
// so the pass's memory stays bounded for any file in any encoding. It
// reads the first bytes of r to look for a mark.
func (s *scanner) decoding(r io.Reader) (io.Reader, error) {
	s.file = &countingReader{r: r}
	// More than a mark's length is asked for: a reader may return nothing
	// for a small buffer (as one that returns whole records would).
	head := make([]byte, 512)
	n, err := readHead(s.file, head)
	if err != nil {
		return nil, err
	}
	rest := io.MultiReader(bytes.NewReader(head[:n]), s.file)
	enc, bom, marked := textenc.Sniff(head[:n])
	if !marked {
		enc = s.opt.Encoding
	}
	if enc.IsUTF8() {
		return rest, nil // the scan strips a UTF-8 mark itself
	}
	s.enc, s.decoded, s.fileBOM = enc, true, bom > 0
	s.bomLen = int64(bom)
	return enc.NewReader(io.MultiReader(bytes.NewReader(head[bom:n]), s.file)), nil
}

// readHead reads into head until it holds a byte-order mark's length or
// the input ends, giving up, as the scan does, after maxStalls reads that
// return nothing.
func readHead(r io.Reader, head []byte) (int, error) {
	n, stalls := 0, 0
	for n < textenc.MaxBOM {
		k, err := r.Read(head[n:])
		n += k
		switch {
		case errors.Is(err, io.EOF):
			return n, nil
		case err != nil:
			return n, fmt.Errorf("linewindow: read: %w", err)
		case k > 0:
			stalls = 0
		default:
			if stalls++; stalls >= maxStalls {
				return n, fmt.Errorf("linewindow: read: %w", io.ErrNoProgress)
			}
		}
	}
	return n, nil
}

// notText gives a decoding error the form every producer reports: a
// *workspace.NotTextError with the offset in the file.
func (s *scanner) notText(err error) error {
	var de *textenc.DecodeError
	if errors.As(err, &de) {
		return &workspace.NotTextError{Enc: s.enc, Offset: s.bomLen + de.Offset}
	}
	var nt *workspace.NotTextError
	if errors.As(err, &nt) && s.decoded {
		nt.Enc = s.enc // a NUL's offset is then its text's, not the file's
	}
	return err
}

// countingReader counts the bytes read through it: a decoded file's size
// is its bytes', not its text's.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
