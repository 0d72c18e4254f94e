package coding

import "github.com/seam-dev/seam/tape"

// Chunks decodes a recorded side whose body has the given Content-Encoding:
// one decoded chunk per wire chunk, with the wire chunk's exchange, side and
// time, holding what that read decoded to (possibly nothing), Off counting
// decoded bytes; what the end of the body flushes out is added to the last
// chunk. The error says how the compressed stream ended (nil, ErrCut, a
// corrupt body, or an UnsupportedError and no chunks). The decoded chunks
// share one buffer.
func Chunks(chunks []tape.Chunk, contentEncoding string) ([]tape.Chunk, error) {
	d, err := NewDecoder(contentEncoding)
	if err != nil {
		return nil, err
	}
	if d.Identity() {
		return chunks, nil
	}
	var buf []byte
	ends := make([]int, len(chunks))
	emit := func(p []byte) { buf = append(buf, p...) }
	var werr error
	for i := range chunks {
		if err := d.Write(chunks[i].Data, emit); err != nil && werr == nil {
			werr = err
		}
		ends[i] = len(buf)
	}
	cerr := d.Close(emit)
	if cerr == nil {
		cerr = werr
	}
	if len(ends) > 0 {
		ends[len(ends)-1] = len(buf)
	}
	out := make([]tape.Chunk, len(chunks))
	prev := 0
	for i, c := range chunks {
		out[i] = tape.Chunk{Ex: c.Ex, Side: c.Side, T: c.T, Off: int64(prev), Data: buf[prev:ends[i]:ends[i]]}
		prev = ends[i]
	}
	return out, cerr
}

// Decode decodes a whole body with the given Content-Encoding. On ErrCut or
// a corrupt body it returns what decoded before the failure with the
// error.
func Decode(body []byte, contentEncoding string) ([]byte, error) {
	d, err := NewDecoder(contentEncoding)
	if err != nil {
		return nil, err
	}
	if d.Identity() {
		return body, nil
	}
	var out []byte
	emit := func(p []byte) { out = append(out, p...) }
	werr := d.Write(body, emit)
	if err := d.Close(emit); err != nil {
		return out, err
	}
	return out, werr
}
