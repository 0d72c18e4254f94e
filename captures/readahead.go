package captures

import (
	"context"
	"io"
	"sync"
)

// readAhead reads a file on a goroutine of its own, a few blocks ahead of
// the reads made on it, so the system calls and the copy out of the page
// cache leave the goroutine that decodes the capture, the one the
// inspection of a large capture waits for. It holds at most blocks+1
// buffers of size bytes. Read is for one goroutine; Close stops the
// reading goroutine and waits for it, after which r may be closed.
//
// Once ctx is done, Read returns ctx's error instead of waiting for a block
// (a read of a pipe or a terminal may never return: seam is interrupted
// all the same), and Close no longer waits for the reading goroutine: it
// is left in its read, which closing an *os.File ends or lets end.
type readAhead struct {
	ctx    context.Context
	filled chan filledBlock
	free   chan []byte
	stop   chan struct{}
	wg     sync.WaitGroup
	// cur is what is left of the block being read, buf that block's
	// buffer and err what the read that filled it returned.
	cur, buf []byte
	err      error
	closed   bool
}

// filledBlock is one block read: its bytes and the read's error.
type filledBlock struct {
	b   []byte
	err error
}

// newReadAhead starts reading r in blocks of size bytes, up to blocks of
// them ahead of Read, until ctx is done.
func newReadAhead(ctx context.Context, r io.Reader, size, blocks int) *readAhead {
	ra := &readAhead{ctx: ctx, filled: make(chan filledBlock, blocks), free: make(chan []byte, blocks+1), stop: make(chan struct{})}
	for range blocks + 1 {
		ra.free <- nil // a buffer is made when first needed
	}
	ra.wg.Go(func() {
		defer close(ra.filled)
		for {
			var buf []byte
			select {
			case buf = <-ra.free:
			case <-ra.stop:
				return
			}
			if buf == nil {
				buf = make([]byte, size)
			}
			n, err := io.ReadAtLeast(r, buf[:size], 1)
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			select {
			case ra.filled <- filledBlock{buf[:n], err}:
			case <-ra.stop:
				return
			}
			if err != nil {
				return
			}
		}
	})
	return ra
}

// Read implements io.Reader: the bytes read ahead, then the error that
// ended them.
func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.buf != nil {
			ra.free <- ra.buf[:cap(ra.buf)]
			ra.buf = nil
		}
		var b filledBlock
		ok := true
		select {
		case b, ok = <-ra.filled:
		case <-ra.ctx.Done():
			b.err = ra.ctx.Err()
		}
		if !ok {
			return 0, io.ErrClosedPipe // read after Close
		}
		ra.cur, ra.buf, ra.err = b.b, b.b, b.err
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// Close stops the reading goroutine and waits for it to return (after the
// read it may be in), unless ctx is done.
func (ra *readAhead) Close() {
	if ra.closed {
		return
	}
	ra.closed = true
	close(ra.stop)
	if ra.ctx.Err() == nil {
		ra.wg.Wait()
	}
}

// Abandon stops the reading goroutine without waiting for the read it may
// be in: for a source seam does not close, such as stdin, whose next read
// may wait for input that never comes after seam has what it needs.
func (ra *readAhead) Abandon() {
	if !ra.closed {
		ra.closed = true
		close(ra.stop)
	}
}
