package coding

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Parts decodes a whole recorded body, held as the parts it was read in
// (one per recorded chunk), with the given Content-Encoding, spending from
// b. It returns the decoded bytes and, for each part, the decoded length
// through it: what the reads up to and including that part decoded to,
// which is what the push [Decoder] emits for them. The error says how the
// compressed stream ended (nil, [ErrCut], a corrupt body, a [*CapError]
// with the bytes decoded up to the cap, or an [*UnsupportedError] and
// nothing decoded). A nil ends with a nil error means there is nothing to
// decode: the coding is identity, or the body is empty (an empty body has
// no compressed stream).
//
// The whole recording is at hand, so the decompressors run here, with no
// goroutine: they read the parts one at a time (byte by byte where they
// ask to), and what a read decodes to belongs to the part holding the last
// byte consumed.
func (b *Budget) Parts(parts [][]byte, contentEncoding string) (dec []byte, ends []int, err error) {
	cs, err := Codings(contentEncoding)
	if err != nil {
		return nil, nil, err
	}
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	if len(cs) == 0 || size == 0 {
		return nil, nil, nil
	}
	var src consumer = &partReader{parts: parts, last: -1}
	if len(cs) == 1 && (cs[0] == "gzip" || cs[0] == "deflate") {
		// flate reads a *bytes.Reader through its fast path, byte by byte
		// as it needs them, so the bytes it consumed still say which
		// part completed each output.
		src = newJoinedReader(parts, size)
	}
	r, release, err := chain(cs, src)
	ends = make([]int, len(parts))
	if err == nil {
		defer release()
		room, _ := b.room(0)
		dec = make([]byte, 0, min(int64(4*size+512), room+1))
		for {
			if len(dec) == cap(dec) {
				if room, _ := b.room(int64(len(dec))); room > 0 {
					dec = slices.Grow(dec, int(min(int64(max(len(dec), 4<<10)), room)))
				}
			}
			n, rerr := readCapped(r, dec[len(dec):cap(dec)], b, int64(len(dec)))
			dec = dec[:len(dec)+n]
			if last := src.lastPart(); last >= 0 {
				ends[last] = len(dec)
			}
			if rerr == io.EOF {
				if rest := src.rest(); rest > 0 {
					err = fmt.Errorf("%d bytes after the end of the compressed stream", rest)
				}
				break
			}
			if rerr != nil {
				err = classify(strings.Join(cs, ", "), rerr)
				break
			}
		}
	}
	// What the end of the body flushed belongs to the last part; a part
	// that decoded to nothing ends where the one before it did.
	ends[len(ends)-1] = len(dec)
	prev := 0
	for i := range ends {
		ends[i] = max(ends[i], prev)
		prev = ends[i]
	}
	return dec, ends, err
}

// consumer is a decompressor's source that knows which part the last byte
// it gave came from, and how many bytes it has not given.
type consumer interface {
	io.Reader
	lastPart() int
	rest() int
}

// joinedReader serves the parts joined, as a *bytes.Reader.
type joinedReader struct {
	*bytes.Reader
	ends []int // the joined length through each part
	size int
	hint int
}

func newJoinedReader(parts [][]byte, size int) *joinedReader {
	b := make([]byte, 0, size)
	ends := make([]int, len(parts))
	for i, p := range parts {
		b = append(b, p...)
		ends[i] = len(b)
	}
	return &joinedReader{Reader: bytes.NewReader(b), ends: ends, size: size}
}

// lastPart maps the count of bytes consumed to the part of the last one.
func (j *joinedReader) lastPart() int {
	used := j.size - j.Len()
	if used == 0 {
		return -1
	}
	for j.hint+1 < len(j.ends) && j.ends[j.hint] < used {
		j.hint++
	}
	return j.hint
}

func (j *joinedReader) rest() int { return j.Len() }

// partReader reads the parts one at a time, never across a part boundary
// in one Read, and notes the part of the last byte it gave.
type partReader struct {
	parts  [][]byte
	i, off int
	last   int
}

func (c *partReader) lastPart() int { return c.last }

func (c *partReader) Read(p []byte) (int, error) {
	for c.i < len(c.parts) && c.off == len(c.parts[c.i]) {
		c.i, c.off = c.i+1, 0
	}
	if c.i == len(c.parts) {
		return 0, io.EOF
	}
	n := copy(p, c.parts[c.i][c.off:])
	c.off += n
	c.last = c.i
	return n, nil
}

func (c *partReader) ReadByte() (byte, error) {
	for c.i < len(c.parts) && c.off == len(c.parts[c.i]) {
		c.i, c.off = c.i+1, 0
	}
	if c.i == len(c.parts) {
		return 0, io.EOF
	}
	b := c.parts[c.i][c.off]
	c.off++
	c.last = c.i
	return b, nil
}

// rest counts the bytes not read yet.
func (c *partReader) rest() int {
	n := 0
	for i := c.i; i < len(c.parts); i++ {
		n += len(c.parts[i])
	}
	return n - c.off
}

// Decode decodes a whole body with the given Content-Encoding, up to
// [MaxBody] decoded bytes (see [Budget.Decode]).
func Decode(body []byte, contentEncoding string) ([]byte, error) {
	return (*Budget)(nil).Decode(body, contentEncoding)
}

// Decode decodes a whole body with the given Content-Encoding, spending
// from b. On ErrCut, a corrupt body or a [*CapError] it returns what
// decoded before the failure with the error; identity, or an empty body,
// gives the body back. It is [Budget.Parts] over one part.
func (b *Budget) Decode(body []byte, contentEncoding string) ([]byte, error) {
	dec, ends, err := b.Parts([][]byte{body}, contentEncoding)
	if ends == nil && err == nil {
		return body, nil
	}
	return dec, err
}
