package captures

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"time"
)

// TestReadAhead: reading through a readAhead gives the source's bytes,
// whatever the block size against the reads made on it (iotest's checks of
// an io.Reader), then the source's error after its last bytes.
func TestReadAhead(t *testing.T) {
	src := bytes.Repeat([]byte("0123456789abcdef\n"), 10007)
	for _, size := range []int{1, 7, 4096, 1 << 20} {
		ra := newReadAhead(context.Background(), iotest.HalfReader(bytes.NewReader(src)), size, 3)
		if err := iotest.TestReader(ra, src); err != nil {
			t.Errorf("blocks of %d: %v", size, err)
		}
		ra.Close()
	}
	cut := errors.New("unexpected EOF in the middle of a zstd block")
	ra := newReadAhead(context.Background(), io.MultiReader(bytes.NewReader(src), iotest.ErrReader(cut)), 1000, 2)
	defer ra.Close()
	got, err := io.ReadAll(ra)
	if !bytes.Equal(got, src) || !errors.Is(err, cut) {
		t.Errorf("read %d bytes (want %d), then %v (want %v)", len(got), len(src), err, cut)
	}
}

// TestReadAheadClose: Close stops the reading goroutine on a source that
// never ends, and a Read after it fails instead of hanging.
func TestReadAheadClose(t *testing.T) {
	ra := newReadAhead(context.Background(), endless{}, 512, 2)
	if _, err := io.ReadFull(ra, make([]byte, 5000)); err != nil {
		t.Fatal(err)
	}
	ra.Close()
	ra.Close()
	for {
		if _, err := ra.Read(make([]byte, 512)); err != nil {
			break // the blocks read ahead, then an error
		}
	}
}

// endless reads zeros forever.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestReadAheadAbandon: Abandon returns at once though the reading
// goroutine waits in a read that never returns (stdin from a writer that
// writes no more), where Close would wait for it.
func TestReadAheadAbandon(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ra := newReadAhead(context.Background(), pr, 512, 2)
	go pw.Write([]byte("one block\n"))
	if _, err := ra.Read(make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { ra.Abandon(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Abandon waited for a read that never returns")
	}
}
