package tape

import "github.com/seam-dev/seam/coding"

// DecodeChunks decodes a recorded side whose body has the given
// Content-Encoding, spending from b (nil: the default cap for one body,
// see coding.MaxBody): one decoded chunk per wire chunk, with the wire
// chunk's exchange, side and time, holding what that read decoded to
// (possibly nothing), Off counting decoded bytes. The error says how the
// compressed stream ended (nil, coding.ErrCut, a corrupt body, a
// *coding.CapError with the chunks decoded up to the cap, or a
// *coding.UnsupportedError and no chunks). The decoded chunks share one
// buffer. The chunks of a body with no coding, or an empty one, are
// returned as they are.
func DecodeChunks(chunks []Chunk, contentEncoding string, b *coding.Budget) ([]Chunk, error) {
	parts := make([][]byte, len(chunks))
	for i := range chunks {
		parts[i] = chunks[i].Data
	}
	dec, ends, err := b.Parts(parts, contentEncoding)
	if ends == nil {
		if err != nil {
			return nil, err
		}
		return chunks, nil
	}
	out := make([]Chunk, len(chunks))
	prev := 0
	for i, c := range chunks {
		end := ends[i]
		out[i] = Chunk{Ex: c.Ex, Side: c.Side, T: c.T, Off: int64(prev), Data: dec[prev:end:end]}
		prev = end
	}
	return out, err
}
