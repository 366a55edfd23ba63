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
	h    hash.Hash
	ckpt []byte // marshalled state at the last checkpoint
}

func (d *digester) apply(ops []hashOp) error {
	for _, op := range ops {
		switch op.kind {
		case opWrite:
			d.h.Write(op.b)
		case opCheckpoint:
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

func (d *digester) sum() workspace.Digest {
	var out workspace.Digest
	d.h.Sum(out[:0])
	return out
}

// chunkJob is a chunk buffer and the hash plan that refers to it, with the
// stage of its small spans. The scan fills one while the digest goroutine
// works through another.
type chunkJob struct {
	buf   []byte // maxCarry + chunk bytes
	stage []byte // nil until needed, then capacity len(buf)
	ops   []hashOp
}

func newChunkJob(chunk int) *chunkJob {
	return &chunkJob{buf: make([]byte, maxCarry+chunk)}
}

// maxJobs bounds the buffers of one pass: one being scanned, one queued,
// one being hashed.
const maxJobs = 3

// digestPipe runs the digest in its own goroutine, one chunk behind the
// scan. SHA-256 is the largest single cost of a pass; beside it, reading,
// validation, counting and trimming fit in the time it takes, so a pass
// costs about what the digest alone costs.
//
// The goroutine starts with the second chunk that has bytes to hash: a
// file of one chunk (most source files) is hashed by finish on the
// caller's goroutine, with no goroutine started and no hand-off, which on
// a small read cost more than the hashing.
//
// Ownership: a job belongs to the scan from next until submit, then to the
// digest (the goroutine, or finish for the one job held) until it comes
// back on spare. finish must be called before the pass returns, so that no
// buffer is read after release.
type digestPipe struct {
	jobs    chan *chunkJob
	spare   chan *chunkJob // capacity maxJobs: the digest never blocks on it
	done    chan error
	digest  workspace.Digest // valid after finish
	err     error            // likewise
	newJob  func() *chunkJob
	free    func(*chunkJob)
	owned   []*chunkJob
	held    *chunkJob // the first job with bytes to hash, until the goroutine starts
	started bool      // the goroutine runs
	ended   bool
}

func startDigest(newJob func() *chunkJob, free func(*chunkJob)) *digestPipe {
	return &digestPipe{
		jobs:   make(chan *chunkJob, 1),
		spare:  make(chan *chunkJob, maxJobs),
		done:   make(chan error, 1),
		newJob: newJob,
		free:   free,
	}
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
			j = p.newJob()
			p.owned = append(p.owned, j)
		} else {
			j = <-p.spare
		}
	}
	return j
}

// submit hands j to the digest, in file order.
func (p *digestPipe) submit(j *chunkJob) {
	switch {
	case p.started:
		p.jobs <- j
	case len(j.ops) == 0:
		p.spare <- j // nothing to hash (the end of the file, read empty)
	case p.held == nil:
		p.held = j
	default:
		p.started = true
		go p.run()
		p.jobs <- p.held
		p.held = nil
		p.jobs <- j
	}
}

// finish waits for every submitted job and returns the digest. It is safe
// to call more than once.
func (p *digestPipe) finish() (workspace.Digest, error) {
	if p.ended {
		return p.digest, p.err
	}
	p.ended = true
	if p.started {
		close(p.jobs)
		p.err = <-p.done
		return p.digest, p.err
	}
	d := digester{h: sha256.New()}
	if p.held != nil {
		p.err = d.apply(p.held.ops)
	}
	p.digest = d.sum()
	return p.digest, p.err
}

// release hands the jobs back; only after finish.
func (p *digestPipe) release() {
	for _, j := range p.owned {
		p.free(j)
	}
}
