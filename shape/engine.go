package shape

// Engine shapes one exchange's response stream.
//
// Push is called once per upstream read, with the bytes read; it appends the
// frames to write to the client (each frame is one client Write) to dst and
// returns it. Close is called once when the upstream body ends (at EOF or on
// error) and appends any frames still held back. The engine may retain p only
// until Push returns unless it copies it; frames it returns are valid until the
// next call.
type Engine interface {
	Push(dst [][]byte, p []byte) [][]byte
	Close(dst [][]byte) [][]byte
}

// Passthrough is the identity engine: each upstream read becomes one client
// write of the same bytes. It allocates nothing.
type Passthrough struct{}

// Push implements [Engine].
func (Passthrough) Push(dst [][]byte, p []byte) [][]byte {
	if len(p) == 0 {
		return dst
	}
	return append(dst, p)
}

// Close implements [Engine].
func (Passthrough) Close(dst [][]byte) [][]byte { return dst }
