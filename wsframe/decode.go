package wsframe

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gobwas/httphead"
	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsflate"
)

// Opcode is a frame's opcode (RFC 6455 §5.2).
type Opcode byte

// The opcodes RFC 6455 defines.
const (
	Continuation Opcode = 0x0
	Text         Opcode = 0x1
	Binary       Opcode = 0x2
	Close        Opcode = 0x8
	Ping         Opcode = 0x9
	Pong         Opcode = 0xa
)

// String returns the opcode's name ("text", "close", ...) or its number.
func (o Opcode) String() string {
	switch o {
	case Continuation:
		return "continuation"
	case Text:
		return "text"
	case Binary:
		return "binary"
	case Close:
		return "close"
	case Ping:
		return "ping"
	case Pong:
		return "pong"
	}
	return fmt.Sprintf("opcode %#x", byte(o))
}

// MarshalText encodes the opcode as its name.
func (o Opcode) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Message is one data message (its frames joined) or one control frame.
type Message struct {
	Opcode Opcode
	// Off and End delimit the message's bytes in the stream: from the
	// header of its first frame to the end of its last.
	Off, End int64
	// Frames is how many frames carried it.
	Frames int
	// Compressed is set when the message was sent deflated
	// (permessage-deflate); Payload is then the inflated bytes.
	Compressed bool
	// Payload is the message's bytes, unmasked and inflated.
	Payload []byte
	// CloseCode and CloseReason are a close frame's status code (0 when it
	// gave none) and reason.
	CloseCode   int
	CloseReason string
	// Incomplete is set when the stream ended before the message did.
	Incomplete bool
}

// Problem is a departure from RFC 6455 or RFC 7692 at a byte offset of the
// stream.
type Problem struct {
	Off int64
	Msg string
}

func (p Problem) Error() string { return fmt.Sprintf("byte %d: %s", p.Off, p.Msg) }

// Options says how to read one direction of a connection.
type Options struct {
	// FromClient is set for the frames a client sent (they must be masked);
	// frames a server sent must not be.
	FromClient bool
	// Deflate is set when permessage-deflate was negotiated.
	Deflate bool
	// NoContextTakeover is set when this direction's sender resets its
	// compression window after each message.
	NoContextTakeover bool
	// MaxMessage bounds an inflated message; zero means 64 MiB. A deflate
	// bomb is reported, not inflated.
	MaxMessage int
}

// Negotiated returns the options for one direction from the
// Sec-WebSocket-Extensions values of the handshake's response (what the
// server accepted).
func Negotiated(extensions []string, fromClient bool) Options {
	o := Options{FromClient: fromClient}
	for _, v := range extensions {
		opts, ok := httphead.ParseOptions([]byte(v), nil)
		if !ok {
			continue
		}
		for _, opt := range opts {
			if !strings.EqualFold(string(opt.Name), wsflate.ExtensionName) {
				continue
			}
			var p wsflate.Parameters
			if p.Parse(opt) != nil {
				continue
			}
			o.Deflate = true
			if fromClient {
				o.NoContextTakeover = p.ClientNoContextTakeover
			} else {
				o.NoContextTakeover = p.ServerNoContextTakeover
			}
		}
	}
	return o
}

// windowSize is the LZ77 window a deflate sender may refer back into.
const windowSize = 32 << 10

// Decode reads the messages of one direction's byte stream. It goes on past
// a protocol violation when it can, reporting it; it stops where the
// stream stops being frames.
func Decode(stream []byte, o Options) ([]Message, []Problem) {
	d := decoder{o: o}
	if d.o.MaxMessage <= 0 {
		d.o.MaxMessage = 64 << 20
	}
	d.run(stream)
	return d.msgs, d.problems
}

type decoder struct {
	o        Options
	msgs     []Message
	problems []Problem
	open     *Message // a fragmented data message still waiting for its final frame
	window   []byte   // recent inflated bytes, for context takeover
	hr       headerReader
}

func (d *decoder) problem(off int64, format string, args ...any) {
	d.problems = append(d.problems, Problem{Off: off, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) run(stream []byte) {
	var off int64
	for off < int64(len(stream)) {
		h, err := d.hr.read(stream[off:])
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			d.problem(off, "the stream ends inside a frame header")
			break
		}
		if err != nil {
			d.problem(off, "not a frame header: %v", err)
			break
		}
		// Lengths come from the stream: compare them with what is left
		// rather than add them, which a header declaring 2^63-1 bytes
		// would overflow.
		start := off + int64(ws.HeaderSize(h))
		end := start + min(h.Length, int64(len(stream))-start)
		truncated := h.Length > int64(len(stream))-start
		if truncated {
			d.problem(off, "the stream ends inside a %s frame: %d of its %d payload bytes are there", Opcode(h.OpCode), int64(len(stream))-start, h.Length)
			end = int64(len(stream))
		}
		d.frame(h, off, end, stream[start:end], truncated)
		off = end
	}
	if d.open != nil {
		d.problem(d.open.Off, "the stream ends inside a fragmented %s message (%d frames, no final one)", d.open.Opcode, d.open.Frames)
		d.open.Incomplete = true
		d.msgs = append(d.msgs, *d.open)
		d.open = nil
	}
}

// frame reads one frame whose payload, masked as it came, is raw: it is
// copied once, unmasked, into the message it belongs to.
func (d *decoder) frame(h ws.Header, off, end int64, raw []byte, truncated bool) {
	var state ws.State
	if d.o.FromClient {
		state |= ws.StateServerSide // the reader of client frames is a server
	} else {
		state |= ws.StateClientSide
	}
	if d.open != nil {
		state |= ws.StateFragmented
	}
	if d.o.Deflate {
		state |= ws.StateExtended
	}
	op := Opcode(h.OpCode)
	if err := ws.CheckHeader(h, state); err != nil {
		d.problem(off, "%s frame: %v", op, err)
	}
	if h.OpCode.IsControl() {
		m := Message{Opcode: op, Off: off, End: end, Frames: 1, Payload: unmasked(nil, h, raw), Incomplete: truncated}
		if op == Close {
			d.closeFrame(&m)
		}
		d.msgs = append(d.msgs, m)
		return
	}
	if h.OpCode.IsReserved() {
		return
	}
	if op == Continuation {
		if d.open == nil {
			return // reported by CheckHeader; nothing to continue
		}
		if h.Rsv1() {
			d.problem(off, "continuation frame with the compression bit set (RFC 7692 §6.1)")
		}
	} else {
		if d.open != nil {
			d.open.Incomplete = true
			d.msgs = append(d.msgs, *d.open)
		}
		d.open = &Message{Opcode: op, Off: off, Compressed: h.Rsv1()}
	}
	m := d.open
	m.Frames++
	m.End = end
	m.Payload = unmasked(m.Payload, h, raw)
	if truncated {
		m.Incomplete = true
	}
	if !h.Fin && !truncated {
		return
	}
	d.open = nil
	if m.Compressed {
		if !d.o.Deflate {
			d.problem(m.Off, "%s message has the compression bit set but permessage-deflate was not negotiated", m.Opcode)
		}
		if !m.Incomplete {
			d.inflate(m)
		}
	}
	if m.Opcode == Text && !m.Incomplete && !utf8.Valid(m.Payload) {
		d.problem(m.Off, "text message is not valid UTF-8")
	}
	d.msgs = append(d.msgs, *m)
}

// unmasked appends a frame's payload raw to dst, unmasked.
func unmasked(dst []byte, h ws.Header, raw []byte) []byte {
	at := len(dst)
	dst = append(dst, raw...)
	if h.Masked {
		ws.Cipher(dst[at:], h.Mask, 0)
	}
	return dst
}

// closeFrame parses a close frame's code and reason.
func (d *decoder) closeFrame(m *Message) {
	switch {
	case len(m.Payload) == 0:
		return
	case len(m.Payload) == 1:
		d.problem(m.Off, "close frame with a 1-byte payload (a status code takes 2)")
		return
	}
	code, reason := ws.ParseCloseFrameData(m.Payload)
	m.CloseCode, m.CloseReason = int(code), reason
	if err := ws.CheckCloseFrameData(code, reason); err != nil {
		d.problem(m.Off, "close frame %d: %v", code, err)
	}
}

// inflate replaces m's payload with its inflated bytes, keeping the window
// for the next message when the sender keeps its context.
func (d *decoder) inflate(m *Message) {
	dict := d.window
	if d.o.NoContextTakeover {
		dict = nil
	}
	r := wsflate.NewReader(bytes.NewReader(m.Payload), func(r io.Reader) wsflate.Decompressor {
		return flate.NewReaderDict(r, dict)
	})
	var out bytes.Buffer
	n, err := out.ReadFrom(io.LimitReader(r, int64(d.o.MaxMessage)+1))
	switch {
	case err != nil:
		d.problem(m.Off, "cannot inflate %s message: %v", m.Opcode, err)
		d.window = nil // the sender's window is unknown from here
		return
	case n > int64(d.o.MaxMessage):
		d.problem(m.Off, "%s message inflates to more than %d bytes; left deflated", m.Opcode, d.o.MaxMessage)
		d.window = nil
		return
	}
	m.Payload = out.Bytes()
	if !d.o.NoContextTakeover {
		w := append(d.window, m.Payload...)
		if len(w) > windowSize {
			w = append([]byte(nil), w[len(w)-windowSize:]...)
		}
		d.window = w
	}
}
