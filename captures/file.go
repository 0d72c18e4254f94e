package captures

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/seam-dev/seam/tape"
)

// What a reader that reads a capture file in place (the terminal UI,
// which indexes a plain capture with ReadAt and decodes an exchange when
// it is opened) needs to open one.

// IsCompressed reports whether the capture file r, opened from path, is
// zstd compressed: by its name, or (for a file not named so) by its first
// bytes. It reads the file, so call it where I/O may be done.
func IsCompressed(path string, r io.ReaderAt) bool {
	if strings.HasSuffix(path, tape.CompressedExt) {
		return true
	}
	head := make([]byte, 4)
	n, _ := r.ReadAt(head, 0)
	return tape.IsCompressed(head[:n])
}

// Uncompressed returns a reader of src decompressed, which starts the
// decompressor on its first Read: looking at the first bytes of a followed
// file may wait for them, so that happens where the reading is done.
func Uncompressed(src io.Reader) io.Reader { return &lazyUncompress{src: src} }

// lazyUncompress decompresses src from its first Read.
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

// Tail returns a reader of a file that is still being written: at its end
// it looks again every interval, until ctx is done, when it reads io.EOF.
func Tail(ctx context.Context, f *os.File, every time.Duration) io.Reader {
	return &tailReader{ctx: ctx, f: f, every: every}
}

type tailReader struct {
	ctx   context.Context
	f     *os.File
	every time.Duration
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
		case <-time.After(t.every):
		}
	}
}

// maxHeaderLine bounds how much of a file CheckHeader reads to find its
// header line.
const maxHeaderLine = 1 << 20

// CheckHeader reads the first line of capture file r (named name; zstd
// compressed or not) and returns why it is not a capture this seam reads:
// empty, a first line that is not a capture header, or a format version it
// refuses; nil when it is.
func CheckHeader(r io.ReaderAt, name string) error {
	var src io.Reader = io.NewSectionReader(r, 0, maxHeaderLine)
	head := make([]byte, 4)
	if n, _ := r.ReadAt(head, 0); tape.IsCompressed(head[:n]) {
		u, err := tape.Uncompress(io.NewSectionReader(r, 0, 1<<62))
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		src = io.LimitReader(u, maxHeaderLine)
	}
	br := bufio.NewReader(src)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if err != nil && err != io.EOF {
				return fmt.Errorf("read %s: %w", name, err)
			}
			if err == io.EOF && len(line) >= maxHeaderLine {
				return fmt.Errorf("%s:1: not a capture: the first line is longer than %d bytes", name, maxHeaderLine)
			}
			_, err := DecodeHeader(line, name)
			return err
		}
		if err == io.EOF {
			return fmt.Errorf("%s: empty capture: no \"capture\" header line", name)
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
	}
}

// DecodeHeader decodes a header line with the tape decoder, so version
// checks and migrations apply.
func DecodeHeader(line []byte, name string) (*tape.Header, error) {
	d := tape.NewDecoder(bytes.NewReader(append(bytes.Clone(line), '\n')), name)
	if _, err := d.Next(); err != nil {
		return nil, err
	}
	return d.Header(), nil
}
