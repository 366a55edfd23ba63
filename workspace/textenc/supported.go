package textenc

import (
	"sort"
	"sync"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// Supported returns every encoding Lookup accepts, each once, UTF-8 and
// the four a byte-order mark names first, then the legacy ones by name.
// It is the list a test that must hold for every encoding ranges over, so
// that an encoding golang.org/x/text adds (or one Lookup stops refusing)
// is tested without anyone naming it: it is built by asking Lookup about
// every codec of x/text's families, not kept by hand.
func Supported() []Encoding {
	supportedOnce.Do(func() {
		supported = []Encoding{UTF8, UTF16LE, UTF16BE, UTF32LE, UTF32BE}
		var legacy []Encoding
		seen := map[Encoding]bool{}
		for _, family := range [][]encoding.Encoding{charmap.All, japanese.All, korean.All, simplifiedchinese.All, traditionalchinese.All} {
			for _, enc := range family {
				name, err := ianaindex.IANA.Name(enc)
				if err != nil {
					continue // no IANA name: Lookup cannot reach it
				}
				e, err := Lookup(name)
				if err != nil || e.IsUTF8() || seen[e] {
					continue // refused (a stateful one) or already listed
				}
				seen[e] = true
				legacy = append(legacy, e)
			}
		}
		sort.Slice(legacy, func(i, j int) bool { return legacy[i].Name() < legacy[j].Name() })
		supported = append(supported, legacy...)
	})
	return append([]Encoding(nil), supported...)
}

var (
	supportedOnce sync.Once
	supported     []Encoding
)
