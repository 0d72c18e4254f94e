package tape

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"hash"
)

// sideHashes computes the SHA-256 of the two sides of an exchange, for the
// writer that puts them in end lines and the reader that checks them.
//
// While the client side is the upstream side's bytes in step, every client
// chunk being the upstream bytes at its own offset (in passthrough, each
// chunk a reference to the upstream chunk just read, or the one before it
// when the masker held it back), the client's hash is the upstream's and
// the bytes are hashed once. The upstream hash's state
// before its last chunk is kept meanwhile, so that when the sides part
// (a chunk the engine changed, a client that went away mid-chunk) the
// client's hash goes on from the right state.
type sideHashes struct {
	up, cl   hash.Hash
	upN, clN int64
	// apart is set once the sides have parted, or were declared separate.
	apart bool
	// clLost is set when the client's hash could not go on from a state
	// (no recording parts the sides so).
	clLost  bool
	snap    []byte // the upstream state at snapOff
	snapOff int64
	snapOK  bool
}

// separate declares the sides independent from the start (the two
// directions of a WebSocket, written from two goroutines).
func (h *sideHashes) separate() { h.apart = true }

// upstream adds the next upstream bytes.
func (h *sideHashes) upstream(data []byte) {
	if h.up == nil {
		h.up = sha256.New()
	}
	if !h.apart {
		var err error
		h.snap, err = h.up.(encoding.BinaryAppender).AppendBinary(h.snap[:0])
		h.snapOff, h.snapOK = h.upN, err == nil
	}
	h.up.Write(data)
	h.upN += int64(len(data))
}

// client adds the next client bytes; ref says they are the upstream bytes at
// refOff.
func (h *sideHashes) client(data []byte, ref bool, refOff int64) {
	off := h.clN
	h.clN += int64(len(data))
	if !h.apart {
		if ref && refOff == off && h.clN <= h.upN {
			return // still the upstream's bytes, in step or behind
		}
		h.apart = true
		h.cl = h.upstreamAt(off)
		h.clLost = h.cl == nil
	}
	if h.cl == nil && !h.clLost {
		h.cl = sha256.New()
	}
	if h.cl != nil {
		h.cl.Write(data)
	}
}

// sum returns the hex SHA-256 of side s so far, and false when it is not
// known.
func (h *sideHashes) sum(s Side) (string, bool) {
	switch {
	case s == Upstream:
		return sumHex(h.up), true
	case h.apart && h.clLost:
		return "", false
	case h.apart:
		return sumHex(h.cl), true
	case h.clN == h.upN:
		return sumHex(h.up), true
	}
	st := h.upstreamAt(h.clN)
	if st == nil {
		return "", false
	}
	return sumHex(st), true
}

// upstreamAt returns a copy of the upstream hash's state after off bytes,
// or nil when it is not known: it is known where the upstream is and where
// it was before its last chunk.
func (h *sideHashes) upstreamAt(off int64) hash.Hash {
	st := sha256.New()
	var err error
	switch {
	case off == h.upN && h.up != nil:
		var b []byte
		if b, err = h.up.(encoding.BinaryAppender).AppendBinary(nil); err == nil {
			err = st.(encoding.BinaryUnmarshaler).UnmarshalBinary(b)
		}
	case off == 0:
	case h.snapOK && off == h.snapOff:
		err = st.(encoding.BinaryUnmarshaler).UnmarshalBinary(h.snap)
	default:
		return nil
	}
	if err != nil {
		return nil
	}
	return st
}

// sumHex returns the hex digest of h, or of no bytes when h is nil.
func sumHex(h hash.Hash) string {
	if h == nil {
		sum := sha256.Sum256(nil)
		return hex.EncodeToString(sum[:])
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}
