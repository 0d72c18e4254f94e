package coding

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/seam-dev/seam/tape"
)

// Chunks decodes a recorded side whose body has the given Content-Encoding:
// one decoded chunk per wire chunk, with the wire chunk's exchange, side and
// time, holding what that read decoded to (possibly nothing), Off counting
// decoded bytes. The error says how the compressed stream ended (nil,
// ErrCut, a corrupt body, or an UnsupportedError and no chunks). The
// decoded chunks share one buffer.
//
// The whole recording is at hand, so the decompressors run here, with no
// goroutine: they read the chunks one at a time (byte by byte where they
// ask to), and what a read decodes to belongs to the chunk holding the last
// byte consumed, which is what the push Decoder emits for that chunk.
func Chunks(chunks []tape.Chunk, contentEncoding string) ([]tape.Chunk, error) {
	cs, err := Codings(contentEncoding)
	if err != nil {
		return nil, err
	}
	size := 0
	for i := range chunks {
		size += len(chunks[i].Data)
	}
	if len(cs) == 0 || size == 0 {
		return chunks, nil // nothing to decode (an empty body has no stream)
	}
	var src consumer = &chunkReader{chunks: chunks, last: -1}
	if len(cs) == 1 && (cs[0] == "gzip" || cs[0] == "deflate") {
		// flate reads a *bytes.Reader through its fast path, byte by byte
		// as it needs them, so the bytes it consumed still say which
		// chunk completed each output.
		src = newJoinedReader(chunks, size)
	}
	r, release, err := chain(cs, src)
	var buf []byte
	ends := make([]int, len(chunks))
	if err == nil {
		defer release()
		buf = make([]byte, 0, 4*size+512)
		for {
			if len(buf) == cap(buf) {
				buf = slices.Grow(buf, len(buf))
			}
			n, rerr := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if last := src.lastChunk(); last >= 0 {
				ends[last] = len(buf)
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
	// What the end of the body flushed belongs to the last chunk; a chunk
	// that decoded to nothing ends where the one before it did.
	if len(ends) > 0 {
		ends[len(ends)-1] = len(buf)
	}
	out := make([]tape.Chunk, len(chunks))
	prev := 0
	for i, c := range chunks {
		end := max(ends[i], prev)
		out[i] = tape.Chunk{Ex: c.Ex, Side: c.Side, T: c.T, Off: int64(prev), Data: buf[prev:end:end]}
		prev = end
	}
	return out, err
}

// consumer is a decompressor's source that knows which chunk the last byte
// it gave came from, and how many bytes it has not given.
type consumer interface {
	io.Reader
	lastChunk() int
	rest() int
}

// joinedReader serves the chunks joined, as a *bytes.Reader.
type joinedReader struct {
	*bytes.Reader
	ends []int // the joined length through each chunk
	size int
	hint int
}

func newJoinedReader(chunks []tape.Chunk, size int) *joinedReader {
	b := make([]byte, 0, size)
	ends := make([]int, len(chunks))
	for i := range chunks {
		b = append(b, chunks[i].Data...)
		ends[i] = len(b)
	}
	return &joinedReader{Reader: bytes.NewReader(b), ends: ends, size: size}
}

// lastChunk maps the count of bytes consumed to the chunk of the last one.
func (j *joinedReader) lastChunk() int {
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

func (c *chunkReader) lastChunk() int { return c.last }

// chunkReader reads recorded chunks one at a time, never across a chunk
// boundary in one Read, and notes the chunk of the last byte it gave.
type chunkReader struct {
	chunks []tape.Chunk
	i, off int
	last   int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for c.i < len(c.chunks) && c.off == len(c.chunks[c.i].Data) {
		c.i, c.off = c.i+1, 0
	}
	if c.i == len(c.chunks) {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[c.i].Data[c.off:])
	c.off += n
	c.last = c.i
	return n, nil
}

func (c *chunkReader) ReadByte() (byte, error) {
	for c.i < len(c.chunks) && c.off == len(c.chunks[c.i].Data) {
		c.i, c.off = c.i+1, 0
	}
	if c.i == len(c.chunks) {
		return 0, io.EOF
	}
	b := c.chunks[c.i].Data[c.off]
	c.off++
	c.last = c.i
	return b, nil
}

// rest counts the bytes not read yet.
func (c *chunkReader) rest() int {
	n := 0
	for i := c.i; i < len(c.chunks); i++ {
		n += len(c.chunks[i].Data)
	}
	return n - c.off
}

// Decode decodes a whole body with the given Content-Encoding. On ErrCut or
// a corrupt body it returns what decoded before the failure with the
// error. It is Chunks over one chunk: the body is at hand, so no Decoder
// goroutine is needed.
func Decode(body []byte, contentEncoding string) ([]byte, error) {
	dec, err := Chunks([]tape.Chunk{{Data: body}}, contentEncoding)
	if len(dec) == 0 {
		return nil, err
	}
	return dec[0].Data, err
}
