package rpc

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/internal/testenv"
)

// gate is a writer that blocks until opened, like a client that stopped
// reading.
type gate struct {
	open chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func TestOutboxDropsNotificationsButWaitsWithAnswers(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	o := newOutbox(g, 0, func(error) {})
	go o.run()
	defer o.close()

	frame := make([]byte, 1<<20)
	o.notify(frame)
	testenv.Until(t, 10*time.Second, "the writer to take the frame", func() bool { frames, _ := o.queued(); return frames == 0 })
	queued := 1
	for range 2*maxQueuedFrames - 1 {
		if o.notify(frame) {
			queued++
		}
	}
	// One frame is with the writer, the rest fill the queue's bytes.
	if want := maxQueuedBytes/len(frame) + 1; queued != want {
		t.Errorf("queued %d notifications of 1 MiB, want %d", queued, want)
	}
	if got := o.dropped.Load(); got != int64(2*maxQueuedFrames-queued) {
		t.Errorf("dropped %d, want %d", got, 2*maxQueuedFrames-queued)
	}

	answered := make(chan error, 1)
	go func() { answered <- o.reply([]byte(`{"id":1}`)) }()
	select {
	case err := <-answered:
		t.Fatalf("a reply was queued past a full queue: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(g.open)
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	if !o.flush(time.Now().Add(5 * time.Second)) {
		t.Fatal("the queue did not drain")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !bytes.HasSuffix(g.buf.Bytes(), []byte("Content-Length: 8\r\n\r\n{\"id\":1}")) {
		t.Errorf("the reply was not written last, framed")
	}
}

func TestAClosedOutboxRefusesAndReleasesWaiters(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	failed := make(chan error, 1)
	o := newOutbox(g, 0, func(err error) { failed <- err })
	go o.run()
	// The writer takes the first frame and blocks on it; only then is a
	// full queue sure to stay full (else the writer, starting late, frees
	// room and the reply is queued).
	o.notify(make([]byte, maxQueuedBytes/2))
	testenv.Until(t, 10*time.Second, "the writer to take the first frame", func() bool { frames, _ := o.queued(); return frames == 0 })
	for o.notify(make([]byte, maxQueuedBytes/2)) {
	}
	answered := make(chan error, 1)
	go func() { answered <- o.reply([]byte("{}")) }()
	time.Sleep(20 * time.Millisecond)
	o.close()
	if err := <-answered; !errors.Is(err, errOutboxClosed) {
		t.Fatalf("reply after close: %v", err)
	}
	if o.notify([]byte("{}")) {
		t.Error("a closed outbox queued a notification")
	}
	close(g.open)
}

func TestAFailedWriteClosesTheOutbox(t *testing.T) {
	failed := make(chan error, 1)
	o := newOutbox(failWriter{}, 0, func(err error) { failed <- err })
	go o.run()
	o.reply([]byte("{}"))
	if err := <-failed; !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("onFail got %v", err)
	}
	if err := o.reply([]byte("{}")); !errors.Is(err, errOutboxClosed) {
		t.Fatalf("reply after a failed write: %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
