package tui

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/seam-dev/seam/captures"
)

// zstdBytes compresses b as one zstd stream.
func zstdBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw, err := zstd.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// TestCompressedCaptureInDirectory lists a directory holding a plain and a
// compressed capture: both show their exchanges, in name order, and an
// exchange of the compressed one opens.
func TestCompressedCaptureInDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeCapture(t, filepath.Join(dir, "a.ndjson"), synthCapture(2, 3, false))
	writeCapture(t, filepath.Join(dir, "b.ndjson.zst"), zstdBytes(t, synthCapture(3, 3, false)))
	m := openDirs(t, false, dir)
	want := append(rowsOf("a.ndjson", 2), rowsOf("b.ndjson.zst", 3)...)
	if got := listed(m); !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if m.status != "" && m.statusErr {
		t.Errorf("status error: %s", m.status)
	}
}

// TestFollowCompressedCapture follows a compressed capture that is still
// being written: what the recorder flushed later arrives too.
func TestFollowCompressedCapture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "live.ndjson.zst")
	whole := zstdBytes(t, synthCapture(3, 3, false))
	half := len(whole) / 2
	writeCapture(t, path, whole[:half])
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &model{ctx: ctx}
	c := m.newFileCap(path, f, nil, 0, true, captures.IsCompressed(path, f))
	if c.stream == nil || c.file != nil {
		t.Fatal("a compressed capture is not read as a stream")
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(c.stream)
		got <- b
	}()
	time.Sleep(50 * time.Millisecond)
	app, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	app.Write(whole[half:])
	app.Close()
	want := synthCapture(3, 3, false)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case b := <-got:
			t.Fatalf("the stream ended before the capture did: %d of %d bytes", len(b), len(want))
		case <-deadline:
			t.Fatal("the rest of the capture never arrived")
		case <-time.After(followEvery):
		}
		if st, _ := os.Stat(path); st.Size() == int64(len(whole)) {
			break
		}
	}
	// Everything written is readable; the reader waits for more until the
	// context ends.
	time.Sleep(3 * followEvery)
	cancel()
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("read %d bytes, want the whole capture's %d", len(b), len(want))
	}
}
