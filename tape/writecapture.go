package tape

import (
	"context"
	"fmt"
	"io"
)

// WriteCapture writes c as a capture file: its header and the notes on
// the capture as a whole, then each exchange's lines, one exchange after
// the other, in a few writes of about a MiB. What reaches disk is redacted
// as seam record redacts ([RedactStoredExchange]): an imported cassette
// may hold keys in its headers and bodies. seam is the version of seam
// writing, for a header that names none. It stops when ctx ends.
func WriteCapture(ctx context.Context, w io.Writer, c *Capture, seam string) error {
	h := c.Header
	// The lines are written by this seam's encoder, in its format version,
	// whatever version the capture was read from: a v1 header over chunk
	// lines in "sse" pieces would be misread by an older seam.
	h.V = Version
	if h.Seam == "" {
		h.Seam = seam
	}
	buf := AppendHeader(nil, h)
	for _, n := range c.Notes {
		buf = AppendNote(buf, n)
	}
	for _, x := range c.Exchanges {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf = AppendExchange(buf, RedactStoredExchange(x))
		if len(buf) > 1<<20 {
			if _, err := w.Write(buf); err != nil {
				return fmt.Errorf("write capture: %w", err)
			}
			buf = buf[:0]
		}
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("write capture: %w", err)
	}
	return nil
}
