package tape

import (
	"bytes"
	"fmt"
	"io"
)

// WriteStart writes a capture's first lines, its header and the notes on
// the capture as a whole, to w in one write: a capture file that is
// readable (by a reader, or after the process is killed) from the moment
// it has anything in it, before any exchange, and before the first flush
// of a compressed [Writer] (which may come a moment after its first
// lines). It does not sync: a file is synced when it is closed.
// With compress the lines are a zstd frame of their own; the stream a
// Writer with Compress then appends to w is the next frame (a zstd file
// may hold any number, read as one stream).
func WriteStart(w io.Writer, compress bool, h Header, notes ...Note) error {
	b := AppendHeader(nil, h)
	for _, n := range notes {
		b = AppendNote(b, n)
	}
	if compress {
		var buf bytes.Buffer
		zw := newCompressor(&buf)
		if _, err := zw.Write(b); err != nil {
			return fmt.Errorf("write capture: %w", err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("write capture: %w", err)
		}
		b = buf.Bytes()
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write capture: %w", err)
	}
	return nil
}
