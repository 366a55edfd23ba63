package linewindow

import (
	"encoding/binary"
)

// trimmer decides, over a stream, the hash input of workspace.Sum: the
// normalized body with every line's trailing [ \t\r] removed, newlines
// kept. On the raw (BOM-stripped) bytes that input is the bytes minus every
// maximal run of [ \t\r] followed by LF or by the end of the input; the CR
// of a CRLF is such a run, so CRLF needs no separate treatment. Emitting
// whole spans between such runs, instead of feeding workspace.Hasher line
// by line, is what keeps a pass near the speed of plain SHA-256; the oracle
// tests hold the two to the same digest.
//
// A run at the end of a chunk cannot be judged until the next non-blank
// byte arrives, and it may be gigabytes long, so it is not buffered: it is
// hashed speculatively after a checkpoint of the digest state, and the
// checkpoint is restored if the run turns out to be trailing.
//
// The trimmer only plans: it appends hashOps that refer to the chunk, and
// the digest goroutine (digest.go) carries them out. Spans shorter than
// stageDirect are copied into the chunk's stage and run together, so a
// chunk's plan has at most a few ops per stageDirect bytes whatever the
// input (a CRLF file has a span per line; " \n" repeated, one per two bytes),
// and SHA-256 sees few large writes.
//
// It also counts CRLF pairs: each is an LF after a blank, so it sees all of
// them anyway, and a separate bytes.Count of "\r\n" costs a third of a CRLF
// file's pass.
type trimmer struct {
	pending  bool     // the planned input ends with a blank run of undecided fate
	ops      []hashOp // plan for the current chunk
	stage    []byte   // the chunk's small spans; never reallocated (see write)
	stageCap int      // capacity of a stage: a chunk and its carry
	staged   bool     // the last op writes the tail of stage
	crlfs    int      // CRLF pairs seen
}

// stageDirect is the shortest span hashed in place rather than staged.
const stageDirect = 256

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// reset starts the plan of a new chunk.
func (t *trimmer) reset(ops []hashOp, stage []byte) {
	t.ops, t.stage, t.staged = ops[:0], stage[:0], false
}

func (t *trimmer) op(kind opKind) {
	t.ops = append(t.ops, hashOp{kind: kind})
	t.staged = false
}

// write plans hashing b. A stage holds as many bytes as its chunk, and a
// chunk's hash input is never longer than the chunk, so the stage is never
// full in practice; were it full, b would be hashed in place, since
// appending must never move the stage under ops that refer to it.
func (t *trimmer) write(b []byte) {
	switch {
	case len(b) == 0:
	case len(b) >= stageDirect || (t.stage != nil && cap(t.stage)-len(t.stage) < len(b)):
		t.ops = append(t.ops, hashOp{kind: opWrite, b: b})
		t.staged = false
	case t.staged:
		last := &t.ops[len(t.ops)-1]
		t.stage = append(t.stage, b...)
		last.b = last.b[:len(last.b)+len(b)]
	default:
		if t.stage == nil { // most LF chunks never need one
			t.stage = make([]byte, 0, t.stageCap)
		}
		start := len(t.stage)
		t.stage = append(t.stage, b...)
		t.ops = append(t.ops, hashOp{kind: opWrite, b: t.stage[start:]})
		t.staged = true
	}
}

// feed plans the next chunk of BOM-stripped input; final marks the end.
func (t *trimmer) feed(p []byte, final bool) {
	span := 0
	if t.pending {
		i := 0
		for i < len(p) && isBlank(p[i]) {
			i++
		}
		switch {
		case i == len(p):
			if final {
				t.op(opRollback)
			} else {
				t.write(p)
			}
			return
		case p[i] == '\n':
			t.op(opRollback)
			span = i
			if i > 0 && p[i-1] == '\r' {
				t.crlfs++
			}
		}
		t.pending = false
	}
	for from := span; ; {
		j := nextTrailing(p, from)
		if j < 0 {
			break
		}
		if p[j-1] == '\r' {
			t.crlfs++
		}
		e := j - 1
		for e > span && isBlank(p[e-1]) {
			e--
		}
		t.write(p[span:e])
		span, from = j, j+1
	}
	e := len(p)
	for e > span && isBlank(p[e-1]) {
		e--
	}
	t.write(p[span:e])
	if e < len(p) && !final {
		t.op(opCheckpoint)
		t.write(p[e:])
		t.pending = true
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lfs8  = '\n' * ones
	sps8  = ' ' * ones
	crs8  = '\r' * ones
	bit2s = 0x04 * ones
)

// nextTrailing returns the smallest j > from with p[j] == '\n' and p[j-1]
// blank, or -1. It runs over every byte of every file read, and most lines
// end without trailing blanks, so it tests sixteen byte pairs at a time
// with no branch per line (SWAR): each word is loaded twice, one byte
// apart, to pair every byte with the one before it. Tab (0x09) and CR
// (0x0D) differ only in bit 2, so one comparison of b|0x04 against CR
// covers both. The has-zero-byte test used here can misplace a match
// within a word but never misses one or reports one where none is, so the
// scalar loop locates it exactly.
func nextTrailing(p []byte, from int) int {
	i := from
	for q := p[from:]; len(q) >= 17; q = q[16:] {
		prev0 := binary.LittleEndian.Uint64(q)
		next0 := binary.LittleEndian.Uint64(q[1:]) ^ lfs8
		prev1 := binary.LittleEndian.Uint64(q[8:])
		next1 := binary.LittleEndian.Uint64(q[9:]) ^ lfs8
		t0 := next0 | ((prev0 | bit2s) ^ crs8)
		s0 := next0 | (prev0 ^ sps8)
		t1 := next1 | ((prev1 | bit2s) ^ crs8)
		s1 := next1 | (prev1 ^ sps8)
		if ((t0-ones)&^t0|(s0-ones)&^s0|(t1-ones)&^t1|(s1-ones)&^s1)&highs != 0 {
			break
		}
		i += 16
	}
	for j := i + 1; j < len(p); j++ {
		if p[j] == '\n' && isBlank(p[j-1]) {
			return j
		}
	}
	return -1
}
