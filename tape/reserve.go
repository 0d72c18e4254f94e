package tape

import (
	"errors"
	"os"
)

// reserveMin and reserveMax bound how far ahead of the writes a capture
// file's disk space is reserved: as far as the file is long, within them.
const (
	reserveMin = 4 << 20
	reserveMax = 64 << 20
)

// reservingFile writes to a capture file with its disk space reserved
// ahead of the writes (fallocate with FALLOC_FL_KEEP_SIZE on Linux), so a
// write only copies into the page cache: on ext4 a 1 MiB write into space
// the filesystem must still allocate took 1–2.5 ms of CPU in the kernel,
// into reserved space about 0.1 ms, and the recorder's writer goroutine is
// what falls behind the wire when that time is not there. The file's size
// is never changed ahead of the writes, so a reader (or a crash) sees only
// whole lines; [reservingFile.release] frees what is left reserved past the
// end. Where reserving is not possible (another system, a pipe, a
// filesystem without it) the file is written as it is.
type reservingFile struct {
	f        *os.File
	end      int64 // the file's size: where the next write lands (O_APPEND or not, the file is only appended to)
	reserved int64 // disk space is reserved up to here
	off      bool  // reserving failed once: not tried again
}

// newReservingFile returns a writer for f that reserves space ahead, or
// nil when f is not a regular file.
func newReservingFile(f *os.File) *reservingFile {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return &reservingFile{f: f, end: st.Size(), reserved: st.Size(), off: !worthReserving(f)}
}

func (r *reservingFile) Write(p []byte) (int, error) {
	if !r.off && r.end+int64(len(p)) > r.reserved {
		r.reserveFor(int64(len(p)))
	}
	n, err := r.f.Write(p)
	r.end += int64(n)
	return n, err
}

// reserveFor reserves space for n more bytes and a step beyond them.
func (r *reservingFile) reserveFor(n int64) {
	step := min(max(r.end, reserveMin), reserveMax)
	size := r.end + n + step - r.reserved
	if err := reserve(r.f, r.reserved, size); err != nil {
		r.off = true
		return
	}
	r.reserved += size
}

// Sync commits the file to disk.
func (r *reservingFile) Sync() error { return r.f.Sync() }

// release frees the space reserved past the end of the file, if any.
func (r *reservingFile) release() error {
	if r.reserved <= r.end {
		return nil
	}
	r.reserved = r.end
	if err := r.f.Truncate(r.end); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}

// writeBatch writes bufs in order, as one writev where the system has it.
func (r *reservingFile) writeBatch(bufs [][]byte) (int64, error) {
	var total int64
	for _, b := range bufs {
		total += int64(len(b))
	}
	if !r.off && r.end+total > r.reserved {
		r.reserveFor(total)
	}
	n, err := writeBuffers(r.f, bufs)
	r.end += n
	return n, err
}
