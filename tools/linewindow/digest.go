package linewindow

import (
	"crypto/sha256"
	"encoding"
	"errors"
	"fmt"
	"hash"

	"github.com/hostd-dev/hostd/workspace"
)

type opKind uint8

const (
	opWrite      opKind = iota // hash b
	opCheckpoint               // remember the digest state
	opRollback                 // return to the remembered state
)

// hashOp is one step of the plan a trimmer makes for a chunk.
type hashOp struct {
	kind opKind
	b    []byte // opWrite only; refers to the chunk's buffer
}

// errHashState would be a standard library failure: crypto/sha256
// documents that its state marshals. It is an error, not a panic, because
// the daemon must outlive any one read.
var errHashState = errors.New("linewindow: sha256 state")

// digester carries out hash plans.
type digester struct {
	h     hash.Hash
	stage []byte // small spans, coalesced so SHA-256 sees few large writes
	ckpt  []byte // marshalled state at the last checkpoint
}

// Spans shorter than stageDirect are copied into the stage, which is
// hashed when it would pass stageBytes; CRLF files are one span per line.
const (
	stageBytes  = 64 << 10
	stageDirect = 4 << 10
)

func (d *digester) apply(ops []hashOp) error {
	for _, op := range ops {
		switch op.kind {
		case opWrite:
			d.write(op.b)
		case opCheckpoint:
			d.flush()
			m, ok := d.h.(encoding.BinaryAppender)
			if !ok {
				return errHashState
			}
			st, err := m.AppendBinary(d.ckpt[:0])
			if err != nil {
				return fmt.Errorf("%w: %w", errHashState, err)
			}
			d.ckpt = st
		case opRollback:
			d.stage = d.stage[:0] // all of it came after the checkpoint
			u, ok := d.h.(encoding.BinaryUnmarshaler)
			if !ok {
				return errHashState
			}
			if err := u.UnmarshalBinary(d.ckpt); err != nil {
				return fmt.Errorf("%w: %w", errHashState, err)
			}
		}
	}
	return nil
}

func (d *digester) write(b []byte) {
	if len(b) >= stageDirect {
		d.flush()
		d.h.Write(b)
		return
	}
	if len(d.stage)+len(b) > stageBytes {
		d.flush()
	}
	d.stage = append(d.stage, b...) // grows as used: small files stay small
}

func (d *digester) flush() {
	if len(d.stage) > 0 {
		d.h.Write(d.stage)
		d.stage = d.stage[:0]
	}
}

func (d *digester) sum() workspace.Digest {
	d.flush()
	var out workspace.Digest
	d.h.Sum(out[:0])
	return out
}

// chunkJob is a chunk buffer and the hash plan that refers to it. The scan
// fills one while the digest goroutine works through another.
type chunkJob struct {
	buf []byte
	ops []hashOp
}

// maxJobs bounds the buffers of one pass: one being scanned, one queued,
// one being hashed.
const maxJobs = 3

// digestPipe runs the digest in its own goroutine, one chunk behind the
// scan. SHA-256 is the largest single cost of a pass; beside it, reading,
// validation, counting and trimming fit in the time it takes, so a pass
// costs about what the digest alone costs.
//
// Ownership: a job belongs to the scan from next until submit, then to the
// digest goroutine until it comes back on spare. finish must be called
// before the pass returns, so that no buffer is read after release.
type digestPipe struct {
	jobs   chan *chunkJob
	spare  chan *chunkJob // capacity maxJobs: the digest never blocks on it
	done   chan error
	digest workspace.Digest // valid after finish
	err    error            // likewise
	newBuf func() []byte
	free   func([]byte)
	owned  []*chunkJob
	ended  bool
}

func startDigest(newBuf func() []byte, free func([]byte)) *digestPipe {
	p := &digestPipe{
		jobs:   make(chan *chunkJob, 1),
		spare:  make(chan *chunkJob, maxJobs),
		done:   make(chan error, 1),
		newBuf: newBuf,
		free:   free,
	}
	go p.run()
	return p
}

func (p *digestPipe) run() {
	d := digester{h: sha256.New()}
	var err error
	for j := range p.jobs {
		if err == nil {
			err = d.apply(j.ops)
		}
		p.spare <- j
	}
	p.digest = d.sum()
	p.done <- err
}

// next returns a job for the scan to fill: a spare one if the digest is
// done with it, a new one while fewer than maxJobs exist, else the next to
// come back.
func (p *digestPipe) next() *chunkJob {
	var j *chunkJob
	select {
	case j = <-p.spare:
	default:
		if len(p.owned) < maxJobs {
			j = &chunkJob{buf: p.newBuf()}
			p.owned = append(p.owned, j)
		} else {
			j = <-p.spare
		}
	}
	j.ops = j.ops[:0]
	return j
}

func (p *digestPipe) submit(j *chunkJob) { p.jobs <- j }

// finish waits for every submitted job and returns the digest. It is safe
// to call more than once.
func (p *digestPipe) finish() (workspace.Digest, error) {
	if !p.ended {
		p.ended = true
		close(p.jobs)
		p.err = <-p.done
	}
	return p.digest, p.err
}

// release hands the buffers back; only after finish.
func (p *digestPipe) release() {
	for _, j := range p.owned {
		p.free(j.buf)
		j.buf = nil
	}
}
