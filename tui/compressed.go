package tui

import (
	"context"
	"io"
	"os"
	"strings"
	"time"

	"github.com/seam-dev/seam/tape"
)

// newFileCap returns the source of the capture file f (opened from path).
// A plain capture is read in place with ReadAt, lazily; a compressed one
// (isCompressedFile, which reads the file and so is called where I/O may
// be done, never in Update) is decompressed as a stream into memory, and
// when followed, read on as it grows.
func (m *model) newFileCap(path string, f *os.File, info os.FileInfo, arg int, follow, compressed bool) *capState {
	ix := newIndexer(path, len(m.caps))
	if !compressed {
		return &capState{name: path, file: f, info: info, arg: arg, follow: follow, ix: ix}
	}
	var src io.Reader = f
	if follow {
		src = &tailReader{ctx: m.ctx, f: f}
	}
	return &capState{name: path, zfile: f, stream: &lazyUncompress{src: src}, info: info, arg: arg, follow: follow, ix: ix}
}

// isCompressedFile reports whether the capture file f is zstd compressed:
// by its name, or (for a file not named so) by its first bytes.
func isCompressedFile(path string, f *os.File) bool {
	if strings.HasSuffix(path, tape.CompressedExt) {
		return true
	}
	head := make([]byte, 4)
	n, _ := f.ReadAt(head, 0)
	return tape.IsCompressed(head[:n])
}

// lazyUncompress decompresses src from its first Read, which runs in a
// command: looking at the first bytes of a followed file may wait for
// them.
type lazyUncompress struct {
	src io.Reader
	r   io.Reader
}

func (l *lazyUncompress) Read(p []byte) (int, error) {
	if l.r == nil {
		r, err := tape.Uncompress(l.src)
		if err != nil {
			return 0, err
		}
		l.r = r
	}
	return l.r.Read(p)
}

// tailReader reads a file that is still being written: at its end it waits
// for more, until ctx is done.
type tailReader struct {
	ctx context.Context
	f   *os.File
}

func (t *tailReader) Read(p []byte) (int, error) {
	for {
		n, err := t.f.Read(p)
		if n > 0 || err != io.EOF {
			return n, err
		}
		select {
		case <-t.ctx.Done():
			return 0, io.EOF
		case <-time.After(followEvery):
		}
	}
}
