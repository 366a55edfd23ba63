package rpc

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Every frame the daemon sends on a connection goes through that
// connection's outbox: a bounded queue of encoded frames drained by one
// writer goroutine. Nothing else writes to the connection, so a client
// that stops reading blocks only its own writer:
//
//   - a notification is dropped (and counted) when the queue is full: the
//     client lags, and review.list is the authority on what it missed;
//   - a response is never dropped: its call waits for room, which holds one
//     of the connection's call slots, so a client that does not read stops
//     having its requests read;
//   - each write has a deadline (when the connection supports one, as a
//     socket does); a client that takes longer than that to accept one
//     frame is disconnected. stdio has no deadline: a stdout that stops
//     being read stalls that one connection, and nothing else.

// The outgoing queue's bounds, per connection. A frame larger than
// maxQueuedBytes is still queued when the queue is empty.
const (
	maxQueuedFrames = 256
	maxQueuedBytes  = 8 << 20
)

// defaultWriteTimeout is how long one frame may take to be accepted by a
// client before the connection is closed (Options.WriteTimeout).
const defaultWriteTimeout = 30 * time.Second

// errOutboxClosed: the connection closed before the frame could be queued.
var errOutboxClosed = errors.New("connection closed")

// outbox is one connection's outgoing queue and its writer.
//
// Concurrency: mu guards the fields below it; cond (on mu) is signalled
// when a frame is queued, one is written, or the outbox closes. The writer
// goroutine (run) never holds mu while writing.
type outbox struct {
	w       io.Writer
	timeout time.Duration
	// onFail closes the connection after a failed or timed-out write.
	onFail func(error)

	mu      sync.Mutex
	cond    sync.Cond
	queue   []outFrame // guarded by mu; oldest first
	bytes   int        // guarded by mu; the sum of len(queue[i].body)
	writing bool       // guarded by mu; the writer is writing a frame it took off the queue
	closed  bool       // guarded by mu

	dropped atomic.Int64 // notifications dropped because the queue was full
}

// outFrame is one encoded message waiting to be written: framed with a
// Content-Length header, or bare (written as it is: the answer to a peer
// that sent newline-delimited JSON, in its own framing).
type outFrame struct {
	body []byte
	bare bool
}

func newOutbox(w io.Writer, timeout time.Duration, onFail func(error)) *outbox {
	o := &outbox{w: w, timeout: timeout, onFail: onFail}
	o.cond.L = &o.mu
	return o
}

// fitsLocked reports whether a body of n bytes may join the queue now.
func (o *outbox) fitsLocked(n int) bool {
	if len(o.queue) == 0 {
		return true
	}
	return len(o.queue) < maxQueuedFrames && o.bytes+n <= maxQueuedBytes
}

// reply queues a response, waiting for room while the writer works the
// queue down. It fails only once the connection has closed.
func (o *outbox) reply(body []byte) error {
	return o.replyFrame(outFrame{body: body})
}

// replyBare queues a message written without a header, as reply does.
func (o *outbox) replyBare(msg []byte) error {
	return o.replyFrame(outFrame{body: msg, bare: true})
}

func (o *outbox) replyFrame(f outFrame) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for !o.closed && !o.fitsLocked(len(f.body)) {
		o.cond.Wait()
	}
	if o.closed {
		return errOutboxClosed
	}
	o.pushLocked(f)
	return nil
}

// notify queues a notification if there is room now, and otherwise drops
// and counts it. It never waits.
func (o *outbox) notify(body []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	if !o.fitsLocked(len(body)) {
		o.dropped.Add(1)
		return false
	}
	o.pushLocked(outFrame{body: body})
	return true
}

func (o *outbox) pushLocked(f outFrame) {
	o.queue = append(o.queue, f)
	o.bytes += len(f.body)
	o.cond.Broadcast()
}

// run writes queued frames in order until the outbox closes or a write
// fails. It is the connection's only writer.
func (o *outbox) run() {
	dl, _ := o.w.(interface{ SetWriteDeadline(time.Time) error })
	var header []byte
	for {
		o.mu.Lock()
		for !o.closed && len(o.queue) == 0 {
			o.cond.Wait()
		}
		if o.closed {
			o.mu.Unlock()
			return
		}
		f := o.queue[0]
		o.queue[0] = outFrame{}
		o.queue = o.queue[1:]
		o.bytes -= len(f.body)
		o.writing = true
		o.mu.Unlock()

		header = header[:0]
		if !f.bare {
			header = wire.AppendHeader(header, len(f.body))
		}
		if dl != nil && o.timeout > 0 {
			dl.SetWriteDeadline(time.Now().Add(o.timeout))
		}
		bufs := net.Buffers{header, f.body}
		_, err := bufs.WriteTo(o.w)

		o.mu.Lock()
		o.writing = false
		o.cond.Broadcast()
		o.mu.Unlock()
		if err != nil {
			o.close()
			o.onFail(err)
			return
		}
	}
}

// flush waits until every queued frame has been written, the outbox
// closed, or the deadline passed. It reports whether the queue emptied.
func (o *outbox) flush(deadline time.Time) bool {
	stop := time.AfterFunc(time.Until(deadline), func() {
		o.mu.Lock()
		o.cond.Broadcast()
		o.mu.Unlock()
	})
	defer stop.Stop()
	o.mu.Lock()
	defer o.mu.Unlock()
	for !o.closed && (len(o.queue) > 0 || o.writing) && time.Now().Before(deadline) {
		o.cond.Wait()
	}
	return len(o.queue) == 0 && !o.writing
}

// close drops whatever is queued and wakes every waiter; later frames
// are refused.
func (o *outbox) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.closed = true
	o.queue = nil
	o.bytes = 0
	o.cond.Broadcast()
}

// queued returns the frames and bytes waiting to be written.
func (o *outbox) queued() (frames, bytes int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.queue), o.bytes
}
