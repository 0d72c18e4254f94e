package tape

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// lineCheckWriter records every Write and fails the test if a Write does not
// hold whole lines.
type lineCheckWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	torn   int
}

func (w *lineCheckWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(p) == 0 || p[len(p)-1] != '\n' {
		w.torn++
	}
	w.writes++
	return w.buf.Write(p)
}

func TestWriterConcurrentProducers(t *testing.T) {
	t.Parallel()
	const producers, perProducer = 100, 100
	out := &lineCheckWriter{}
	w := NewWriter(out, WriterOptions{Sync: true}) // no Sync method: the option is a no-op
	w.Header(testHeader())
	var wg sync.WaitGroup
	for p := 1; p <= producers; p++ {
		wg.Go(func() {
			x := w.Exchange(p)
			data := make([]byte, 0, 64)
			for i := range perProducer {
				// Reuse the data buffer: the writer must have copied it.
				data = fmt.Appendf(data[:0], "data: %d/%d \xe2\n", p, i)
				x.Chunk(Upstream, int64(i), data)
			}
			x.End(Upstream, perProducer, Complete, "")
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Note(Note{Ex: 1, Text: "after close"}) // dropped, must not panic
	if out.torn != 0 {
		t.Errorf("%d of %d writes did not end on a line boundary", out.torn, out.writes)
	}
	c, err := Read(bytes.NewReader(out.buf.Bytes()), "concurrent.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 {
		t.Fatalf("warnings: %v", c.Warnings)
	}
	if len(c.Exchanges) != producers {
		t.Fatalf("%d exchanges, want %d", len(c.Exchanges), producers)
	}
	for _, x := range c.Exchanges {
		if len(x.Upstream.Chunks) != perProducer || x.Upstream.End == nil {
			t.Fatalf("exchange %d: %d chunks, end %v", x.Ex, len(x.Upstream.Chunks), x.Upstream.End)
		}
		var off int64
		for i, ch := range x.Upstream.Chunks {
			want := fmt.Sprintf("data: %d/%d \xe2\n", x.Ex, i)
			if ch.Off != off || string(ch.Data) != want {
				t.Fatalf("exchange %d chunk %d: off %d data %q, want off %d and %q", x.Ex, i, ch.Off, ch.Data, off, want)
			}
			off += int64(len(want))
		}
	}
	if strings.Contains(out.buf.String(), "after close") {
		t.Error("a record sent after Close was written")
	}
}

// failWriter fails every Write after the first n.
type failWriter struct {
	n      int
	writes int
}

func (w *failWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes > w.n {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriterError(t *testing.T) {
	t.Parallel()
	fw := &failWriter{n: 0}
	w := NewWriter(fw, WriterOptions{})
	w.Header(testHeader())
	w.Exchange(1).Chunk(Client, 1, []byte("x"))
	err := w.Close()
	if err == nil || !strings.Contains(err.Error(), "write capture: disk full") {
		t.Fatalf("Close error %v, want the wrapped write error", err)
	}
	if w.Err() == nil {
		t.Error("Err is nil after a failed write")
	}
	if fw.writes != 1 {
		t.Errorf("%d writes, want 1 (no retries after the first failure)", fw.writes)
	}
	if err2 := w.Close(); err2 == nil {
		t.Error("second Close lost the error")
	}
}

// syncWriter counts Sync calls.
type syncWriter struct {
	bytes.Buffer
	syncs int
}

func (w *syncWriter) Sync() error { w.syncs++; return nil }

func TestWriterSync(t *testing.T) {
	t.Parallel()
	for _, sync := range []bool{false, true} {
		sw := &syncWriter{}
		w := NewWriter(sw, WriterOptions{Sync: sync})
		w.Header(testHeader())
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := sw.syncs > 0; got != sync {
			t.Errorf("Sync option %v: %d syncs", sync, sw.syncs)
		}
		if _, err := Read(&sw.Buffer, "sync.ndjson"); err != nil {
			t.Error(err)
		}
	}
}

func TestWriterEmpty(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %q", buf.String())
	}
	_, err := Read(&buf, "empty.ndjson")
	if err == nil || !strings.Contains(err.Error(), "empty.ndjson: empty capture") {
		t.Errorf("empty capture error %v", err)
	}
}

// TestWriterCloseDuringWrites closes the writer while producers are still
// sending: nothing may panic, and whatever was written must be whole lines.
func TestWriterCloseDuringWrites(t *testing.T) {
	t.Parallel()
	out := &lineCheckWriter{}
	w := NewWriter(out, WriterOptions{})
	w.Header(testHeader())
	var wg sync.WaitGroup
	for p := 1; p <= 20; p++ {
		wg.Go(func() {
			x := w.Exchange(p)
			for i := range 200 {
				x.Chunk(Client, int64(i), []byte("x"))
			}
		})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if out.torn != 0 {
		t.Errorf("%d torn writes", out.torn)
	}
	c, err := Read(&out.buf, "closing.ndjson")
	if err != nil || len(c.Warnings) != 0 {
		t.Fatalf("read back: %v %v", err, c.Warnings)
	}
	for _, x := range c.Exchanges {
		for i, ch := range x.Client.Chunks {
			if ch.Off != int64(i) {
				t.Fatalf("exchange %d: chunk %d has off %d: a gap before Close", x.Ex, i, ch.Off)
			}
		}
	}
}
