package session

import (
	"fmt"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/workspace"
)

// FuzzRetention drives three stores that share one daemon-wide bound with
// records, lookups, invalidations and closes, and checks after every step
// that the accounting agrees with what the stores show: the daemon-wide
// count equals the sum of the stores' counts and of the text their
// versions still carry, stays within the limit, and every text shown is
// the text its digest names.
func FuzzRetention(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte{0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87, 0x98, 0xa9, 0xba, 0xcb, 0xdc, 0xed, 0xfe})
	f.Fuzz(func(t *testing.T, ops []byte) {
		lim := config.DefaultLimits()
		lim.MaxPathsPerSession = 3
		lim.MaxVersionsPerPath = 2
		lim.MaxRetainedBytesPerSession = 300
		lim.MaxRetainedFileBytes = 160
		lim.MaxRetainedBytes = 400
		pool := newRetention(lim.MaxRetainedBytes)
		stores := []*Store{newStore(lim, pool), newStore(lim, pool), newStore(lim, pool)}
		texts := make([]string, 8)
		for i := range texts {
			texts[i] = filler(fmt.Sprintf("t%d", i), 40+i*20) // 40..180 bytes; the last is never retained
		}
		for i, op := range ops {
			s := stores[int(op)%len(stores)]
			path := fmt.Sprintf("/w/%d", int(op>>2)%4)
			text := texts[int(op>>4)%len(texts)]
			d := workspace.Sum(text)
			switch i % 7 {
			case 0, 1, 2:
				s.Record(path, snap(text, Span(1, 1)))
			case 3:
				s.Record(path, untexted(text, Span(2, 2)))
			case 4:
				if v, ok := s.Match(path, d.Tag(), text, d); ok && v.Digest != d {
					t.Fatalf("step %d: Match returned digest %v for %v", i, v.Digest, d)
				}
			case 5:
				if op&0x80 != 0 {
					s.Invalidate(path, "test")
				} else {
					s.Head(path)
				}
			case 6:
				if op&0xc0 == 0xc0 {
					s.Close()
				}
			}
			checkRetention(t, i, pool, stores)
		}
	})
}

func checkRetention(t *testing.T, step int, pool *retention, stores []*Store) {
	t.Helper()
	st := pool.stats()
	var counted, shown int64
	texts := 0
	for _, s := range stores {
		counted += s.Stats().RetainedBytes
		for _, pv := range s.Dump() {
			for _, v := range pv.Versions {
				if !v.Retained {
					continue
				}
				texts++
				shown += int64(len(v.Text))
				if workspace.Sum(v.Text) != v.Digest {
					t.Fatalf("step %d: %s shows a text whose digest is not its version's", step, pv.Path)
				}
			}
		}
	}
	if st.RetainedBytes != counted || st.RetainedBytes != shown || st.Texts != texts || st.RetainedBytes > st.LimitBytes {
		t.Fatalf("step %d: pool %+v; stores count %d bytes, show %d bytes in %d texts", step, st, counted, shown, texts)
	}
}
