package wsframe

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"

	"github.com/gobwas/ws"
)

// windowSize is the LZ77 window a deflate sender may refer back into.
const windowSize = 32 << 10

// tail ends a permessage-deflate message for the inflater (RFC 7692
// §7.2.2): the 4 bytes the sender removed, then an empty final stored
// block, so the inflater ends where the message does.
var tail = []byte{0x00, 0x00, 0xff, 0xff, 0x01, 0x00, 0x00, 0xff, 0xff}

// CapError is what [Inflater.Inflate] returns for a message that inflates
// past its limit.
type CapError struct{ Limit int }

func (e *CapError) Error() string {
	return fmt.Sprintf("inflates to more than %d bytes", e.Limit)
}

// An Inflater inflates the compressed messages of one direction in the
// order they were sent, keeping the sender's window between them unless
// NoContextTakeover is set. Its zero value is ready to use.
type Inflater struct {
	// NoContextTakeover is set when the sender resets its window after
	// each message.
	NoContextTakeover bool

	window []byte // the last inflated bytes, up to windowSize
	src    msgReader
	fr     io.ReadCloser
}

// msgReader reads a message's payload, then tail.
type msgReader struct {
	p, t []byte
}

func (r *msgReader) Read(b []byte) (int, error) {
	if len(r.p) == 0 {
		r.p, r.t = r.t, nil
		if len(r.p) == 0 {
			return 0, io.EOF
		}
	}
	n := copy(b, r.p)
	r.p = r.p[n:]
	return n, nil
}

// ReadByte makes msgReader a flate.Reader, so the inflater reads no
// further than it needs.
func (r *msgReader) ReadByte() (byte, error) {
	var b [1]byte
	if _, err := r.Read(b[:]); err != nil {
		return 0, err
	}
	return b[0], nil
}

// Inflate appends the inflated payload of one compressed message to dst
// and returns it. When the message would inflate past limit bytes, it
// stops there and returns a *CapError; when the payload does not inflate,
// what did and the error. After either, the sender's window is unknown:
// later messages that refer back into it fail to inflate, as they would
// for any reader.
func (f *Inflater) Inflate(dst, payload []byte, limit int) ([]byte, error) {
	dict := f.window
	if f.NoContextTakeover {
		dict = nil
	}
	f.src = msgReader{p: payload, t: tail}
	if f.fr == nil {
		f.fr = flate.NewReaderDict(&f.src, dict)
	} else {
		f.fr.(flate.Resetter).Reset(&f.src, dict)
	}
	start := len(dst)
	var err error
	for {
		if len(dst) == cap(dst) {
			dst = grow(dst, start+limit+1)
		}
		room := min(cap(dst), start+limit+1)
		n, rerr := f.fr.Read(dst[len(dst):room])
		dst = dst[:len(dst)+n]
		if len(dst)-start > limit {
			err = &CapError{Limit: limit}
			dst = dst[:start+limit]
			break
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			err = rerr
			break
		}
	}
	if err != nil {
		f.window = f.window[:0]
		return dst, err
	}
	f.keep(dst[start:])
	return dst, nil
}

// grow returns b with room for more bytes: twice its capacity (append
// grows a big slice by a quarter, allocating five times its final size
// on the way), up to most.
func grow(b []byte, most int) []byte {
	n := min(max(2*cap(b), 64<<10), max(most, cap(b)+1))
	return append(make([]byte, 0, n), b...)
}

// Forget drops the window: a message was not inflated, so what the
// sender refers back to is unknown.
func (f *Inflater) Forget() { f.window = f.window[:0] }

// Window returns the inflated bytes a next message may refer back to
// (valid until the next call).
func (f *Inflater) Window() []byte { return f.window }

// SetWindow makes w (copied) the bytes the next message refers back to:
// those a reader of an altered stream has.
func (f *Inflater) SetWindow(w []byte) {
	f.window = append(f.window[:0], w[max(len(w)-windowSize, 0):]...)
}

// keep adds out to the window, when the sender keeps its context.
func (f *Inflater) keep(out []byte) {
	if f.NoContextTakeover {
		return
	}
	if len(out) >= windowSize {
		f.window = append(f.window[:0], out[len(out)-windowSize:]...)
		return
	}
	if drop := len(f.window) + len(out) - windowSize; drop > 0 {
		f.window = append(f.window[:0], f.window[drop:]...)
	}
	f.window = append(f.window, out...)
}

// Deflate appends payload compressed as one permessage-deflate message
// that refers to no earlier message (so it inflates whatever the
// receiver's window), without the 4-byte tail RFC 7692 §7.2.1 removes.
func Deflate(dst, payload []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.DefaultCompression)
	w.Write(payload)
	w.Flush()
	out := b.Bytes()
	return append(dst, bytes.TrimSuffix(out, tail[:4])...)
}

// AppendFrame appends one frame with header h (its Length set to the
// payload's) carrying payload, masked with h.Mask when h.Masked.
func AppendFrame(dst []byte, h Header, payload []byte) []byte {
	wh := ws.Header{Fin: h.Fin, OpCode: ws.OpCode(h.Opcode), Masked: h.Masked, Mask: h.Mask, Length: int64(len(payload))}
	if h.Rsv1 {
		wh.Rsv = ws.Rsv(true, false, false)
	}
	var b bytes.Buffer
	ws.WriteHeader(&b, wh)
	dst = append(dst, b.Bytes()...)
	at := len(dst)
	dst = append(dst, payload...)
	if h.Masked {
		ws.Cipher(dst[at:], h.Mask, 0)
	}
	return dst
}
