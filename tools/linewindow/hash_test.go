package linewindow

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"

	"github.com/hostd-dev/hostd/workspace"
)

func naiveNextTrailing(p []byte, from int) int {
	for j := from + 1; j < len(p); j++ {
		if p[j] == '\n' && (p[j-1] == ' ' || p[j-1] == '\t' || p[j-1] == '\r') {
			return j
		}
	}
	return -1
}

// TestNextTrailingMatchesNaive holds the word-at-a-time search to the
// byte loop it replaces, over bytes chosen to confuse its bit tricks: the
// blanks and LF, their neighbours in value, and the same with the high bit
// set.
func TestNextTrailingMatchesNaive(t *testing.T) {
	alphabet := []byte{' ', '\t', '\r', '\n', 'a', 0x0C, 0x05, 0x0B, 0x21, 0x1F, 0x2D, 0x00, 0x8A, 0x89, 0x8D, 0xA0, 0xFF}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		p := make([]byte, rng.IntN(80))
		for i := range p {
			p[i] = alphabet[rng.IntN(len(alphabet))]
		}
		from := 0
		if len(p) > 0 {
			from = rng.IntN(len(p) + 1)
		}
		for {
			got, want := nextTrailing(p, from), naiveNextTrailing(p, from)
			if got != want {
				t.Fatalf("nextTrailing(%q, %d) = %d, want %d", p, from, got, want)
			}
			if got < 0 {
				break
			}
			from = got + 1
		}
	}
}

// A stage that cannot take a span must leave the span to be hashed in
// place: appending would move the stage under the ops that refer to it.
func TestTrimmerWithAFullStageHashesInPlace(t *testing.T) {
	for _, in := range tricky {
		text, err := workspace.Decode([]byte(in))
		if err != nil || text.BOM {
			continue
		}
		for _, stageCap := range []int{1, 3, 8} {
			tr := trimmer{stageCap: stageCap}
			tr.feed([]byte(in), true)
			d := digester{h: sha256.New()}
			if err := d.apply(tr.ops); err != nil {
				t.Fatal(err)
			}
			if got, want := d.sum(), workspace.Sum(text.Body); got != want {
				t.Errorf("%q with a %d-byte stage: tag %s, want %s", in, stageCap, got.Tag(), want.Tag())
			}
		}
	}
}
