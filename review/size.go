package review

import "unsafe"

// Sizes of what the in-memory index holds per call and per entry, beyond
// the bytes of their strings: the struct, its slot in calls, order and
// the call's entry slice, and the map's own overhead per key.
const (
	indexCallBytes  = int64(unsafe.Sizeof(call{})) + int64(unsafe.Sizeof(callKey{})) + 3*8 + 16
	indexEntryBytes = int64(unsafe.Sizeof(entryRecord{})) + 8
	indexStatBytes  = int64(unsafe.Sizeof(SessionStats{})) + 16 + 8
)

// IndexBytes estimates the Go heap the in-memory index holds: every
// recorded call and entry with its strings, and the per-session counts.
// The before bytes and diffs live in the database, not here. At the
// 20,000-entry cap this is tens of MiB, which the daemon's memory governor
// counts as live. It walks the index under the store's lock, a few
// hundred microseconds at the cap.
func (s *Store) IndexBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, c := range s.order {
		n += indexCallBytes + int64(len(c.key.session)+len(c.key.id))
		for _, e := range c.entries {
			n += indexEntryBytes + int64(len(e.Session)+len(e.ToolCallID)+len(e.Tool)+len(e.Path)+len(e.Display)+
				len(e.Change)+len(e.Before.SHA256)+len(e.After.SHA256))
		}
	}
	for id := range s.sessions {
		n += indexStatBytes + int64(len(id))
	}
	return n
}
