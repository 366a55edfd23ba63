package session

import (
	"slices"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Registers are a session's named registers (edit-contract §7.5): captured
// content, not live references, surviving across edit calls until
// overwritten, evicted, or dropped with the session or a workspace switch.
//
// Bound: at most limits.MaxNamedRegisters registers, LRU by last capture
// or paste; each capture is bounded by the edit language before it gets
// here. Concurrency: safe for concurrent use; mu guards regs.
type Registers struct {
	mu   sync.Mutex
	regs *simplelru.LRU[string, []string]
}

// NewRegisters returns an empty register file holding at most n registers.
func NewRegisters(n int) *Registers {
	r, _ := simplelru.NewLRU[string, []string](max(n, 1), nil)
	return &Registers{regs: r}
}

// Get returns a copy of register name's lines and refreshes its recency.
func (r *Registers) Get(name string) ([]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lines, ok := r.regs.Get(name)
	return slices.Clone(lines), ok
}

// Set captures lines into register name, evicting the coldest register
// when full.
func (r *Registers) Set(name string, lines []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.regs.Add(name, slices.Clone(lines))
}

// RegisterInfo describes one register for debug.session (which sends it
// as wire.RegisterInfo, the same fields).
type RegisterInfo struct {
	Name  string `json:"name"`
	Lines int    `json:"lines"`
	Bytes int    `json:"bytes"`
}

// List describes every register, coldest first, without refreshing them.
func (r *Registers) List() []RegisterInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []RegisterInfo
	for _, k := range r.regs.Keys() {
		lines, _ := r.regs.Peek(k)
		n := 0
		for _, l := range lines {
			n += len(l) + 1
		}
		out = append(out, RegisterInfo{Name: k, Lines: len(lines), Bytes: n})
	}
	return out
}

// Len is the number of registers held.
func (r *Registers) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.regs.Len()
}
