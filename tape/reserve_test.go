package tape

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestWriterToFile records exchanges into a capture file, plain and
// compressed, from many goroutines at once, as seam record does: every
// exchange reads back whole, with its SHA-256 verified, and the writer
// counts each one recorded.
func TestWriterToFile(t *testing.T) {
	t.Parallel()
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprintf("compress=%v", compress), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "c.ndjson")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			w := NewWriter(f, WriterOptions{Compress: compress})
			w.Header(testHeader())
			const exchanges, chunks = 64, 200
			done := make(chan struct{})
			for ex := 1; ex <= exchanges; ex++ {
				go func() {
					defer func() { done <- struct{}{} }()
					data := make([]string, chunks)
					for i := range data {
						data[i] = fmt.Sprintf("data: {\"ex\":%d,\"i\":%d,\"pad\":%q}\n\n", ex, i, strings.Repeat("x", 300))
					}
					recordExchange(w, ex, data, ex%2 == 0) // half mirrored, as passthrough writes, half with references
				}()
			}
			for range exchanges {
				<-done
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if st := w.Stats(); st.Recorded != exchanges || st.Incomplete != 0 || st.InFlight != 0 {
				t.Fatalf("stats %+v, want %d recorded, none incomplete or in flight", st, exchanges)
			}
			if _, err := f.Seek(0, 0); err != nil {
				t.Fatal(err)
			}
			r, err := Uncompress(f)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Read(r, path)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Warnings) != 0 {
				t.Fatalf("warnings: %v", c.Warnings)
			}
			if len(c.Exchanges) != exchanges {
				t.Fatalf("%d exchanges read back, want %d", len(c.Exchanges), exchanges)
			}
			for _, x := range c.Exchanges {
				for _, side := range []*SideData{&x.Upstream, &x.Client} {
					if len(side.Chunks) != chunks || side.End == nil || side.End.SHA256 == "" {
						t.Fatalf("exchange %d: %d chunks, end %+v", x.Ex, len(side.Chunks), side.End)
					}
					for i, ch := range side.Chunks {
						if want := fmt.Sprintf("data: {\"ex\":%d,\"i\":%d,", x.Ex, i); !bytes.HasPrefix(ch.Data, []byte(want)) {
							t.Fatalf("exchange %d chunk %d is %.40q, want it to start %q", x.Ex, i, ch.Data, want)
						}
					}
				}
			}
		})
	}
}

// TestReservingFile checks that a capture file's disk space is reserved
// ahead of the writes without its size ever running ahead of them, and
// that what is left reserved is freed when the writer is done.
func TestReservingFile(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("space is reserved ahead on Linux only")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "c.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := newReservingFile(f)
	if r == nil {
		t.Fatal("a regular file got no reserving writer")
	}
	line := append(bytes.Repeat([]byte{'a'}, 1023), '\n')
	var want []byte
	for range 3 << 10 { // 3 MiB, in 1 KiB writes and a batch
		if _, err := r.Write(line); err != nil {
			t.Fatal(err)
		}
		want = append(want, line...)
	}
	if r.off {
		t.Skipf("the test's filesystem cannot reserve space (%s)", f.Name())
	}
	if _, err := r.writeBatch([][]byte{line, line, line}); err != nil {
		t.Fatal(err)
	}
	want = append(want, bytes.Repeat(line, 3)...)
	size, blocks := fileSpace(t, f)
	if size != int64(len(want)) {
		t.Fatalf("size %d while writing, want %d: the size ran ahead of the writes", size, len(want))
	}
	if blocks < size+512<<10 {
		t.Errorf("%d bytes allocated for %d written: nothing reserved ahead", blocks, size)
	}
	if err := r.release(); err != nil {
		t.Fatal(err)
	}
	size, blocks = fileSpace(t, f)
	if size != int64(len(want)) || blocks > size+64<<10 {
		t.Errorf("after release: size %d, %d bytes allocated; want %d and no more than a block or so past it", size, blocks, len(want))
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the file does not hold what was written")
	}
}

func fileSpace(t *testing.T, f *os.File) (size, allocated int64) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return st.Size, st.Blocks * 512
}

// TestWriteBuffers writes more buffers than one writev takes, of mixed
// sizes, a few larger than one call writes (writeMax): the file holds them
// all, in order.
func TestWriteBuffers(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var bufs [][]byte
	var want []byte
	for i := range 3000 {
		size := i % 97
		if i%1000 == 500 {
			size = 3*writeMax + 17
		}
		b := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		bufs = append(bufs, b)
		want = append(want, b...)
	}
	n, err := writeBuffers(f, bufs)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("wrote %d, %v; want %d", n, err, len(want))
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the file does not hold the buffers in order")
	}
}

// TestNoReservingInMemory: on tmpfs a reservation would only hold memory,
// so none is made.
func TestNoReservingInMemory(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("space is reserved ahead on Linux only")
	}
	dir, err := os.MkdirTemp("/dev/shm", "seam-test-")
	if err != nil {
		t.Skipf("no /dev/shm here: %v", err)
	}
	defer os.RemoveAll(dir)
	f, err := os.Create(filepath.Join(dir, "c.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := newReservingFile(f)
	if _, err := r.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if size, blocks := fileSpace(t, f); !r.off || blocks > size+64<<10 {
		t.Errorf("on tmpfs: %d bytes held for %d written (reserving %v)", blocks, size, !r.off)
	}
}

// TestWriterCloseFreesReserved: a capture file closed keeps only the disk
// space its lines take, not what was reserved ahead of them (a recording
// split into many files would keep megabytes per file).
func TestWriterCloseFreesReserved(t *testing.T) {
	for _, compress := range []bool{false, true} {
		f, err := os.Create(filepath.Join(t.TempDir(), "c.ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w := NewWriter(f, WriterOptions{Compress: compress})
		if w.release == nil {
			t.Skip("no reserving writer here")
		}
		w.Header(Header{V: Version, Seam: "test"})
		for i := range 200 {
			w.Note(Note{Ex: i, Text: string(bytes.Repeat([]byte{'n'}, 100))})
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		size, blocks := fileSpace(t, f)
		if size == 0 || blocks > size+64<<10 {
			t.Errorf("compress=%v: %d bytes allocated for a %d-byte capture once closed", compress, blocks, size)
		}
	}
}
