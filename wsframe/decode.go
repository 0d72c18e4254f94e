package wsframe

import (
	"bytes"
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
	// (permessage-deflate); Payload is then the inflated bytes, unless
	// Deflated says otherwise.
	Compressed bool
	// Deflated is set when Payload holds a compressed message's bytes
	// still deflated: inflating failed, or would have passed a cap.
	Deflated bool
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
// stream, or a cap the decoder stopped at.
type Problem struct {
	Off int64
	Msg string
	// Cap is the cap in bytes when the problem is one the decoder stopped
	// at (a message or a stream inflating past its cap, too many problems)
	// rather than the stream's; 0 otherwise.
	Cap int64
}

func (p Problem) Error() string { return fmt.Sprintf("byte %d: %s", p.Off, p.Msg) }

// Caps of a decoder, when its Options leave them zero.
const (
	// DefaultMaxMessage bounds one inflated message a reader keeps.
	DefaultMaxMessage = 16 << 20
	// DefaultMaxInflate bounds the bytes inflated over all the messages
	// of a stream.
	DefaultMaxInflate = 512 << 20
	// MaxProblems bounds the problems reported for one stream: a stream
	// of tiny broken frames would otherwise make one per frame.
	MaxProblems = 200
)

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
	// MaxMessage bounds an inflated message; zero means
	// DefaultMaxMessage. A deflate bomb is reported, not inflated.
	MaxMessage int
	// MaxInflate bounds the bytes inflated over all the messages read;
	// zero means DefaultMaxInflate. Once it is reached, compressed
	// messages are left deflated, and a problem says so once.
	MaxInflate int64
	// Inflated counts bytes already inflated against MaxInflate: those of
	// the session's other direction.
	Inflated int64
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

// Decode reads the messages of one direction's byte stream. It goes on past
// a protocol violation when it can, reporting it; it stops where the
// stream stops being frames.
func Decode(stream []byte, o Options) ([]Message, []Problem) {
	var msgs []Message
	problems, _ := Walk(stream, o, func(m *Message) {
		c := *m
		if m.Compressed && !m.Deflated {
			c.Payload = bytes.Clone(m.Payload) // the inflater's buffer
		}
		msgs = append(msgs, c)
	})
	return msgs, problems
}

// Walk is Decode handing each message to fn as it is read, instead of
// keeping them all: m and its payload are valid only during the call. It
// returns the problems and the bytes inflated, o.Inflated included.
func Walk(stream []byte, o Options, fn func(m *Message)) ([]Problem, int64) {
	d := decoder{o: o, emit: fn, inflated: o.Inflated}
	if d.o.MaxMessage <= 0 {
		d.o.MaxMessage = DefaultMaxMessage
	}
	if d.o.MaxInflate <= 0 {
		d.o.MaxInflate = DefaultMaxInflate
	}
	d.run(stream)
	return d.problems, d.inflated
}

type decoder struct {
	o        Options
	emit     func(*Message)
	problems []Problem
	dropped  int      // problems past MaxProblems
	open     *Message // a fragmented data message still waiting for its final frame
	hr       headerReader
	inf      Inflater
	buf      []byte // the inflated payload of the message handed out last
	inflated int64  // bytes inflated so far
	// spent is set once MaxInflate was reached.
	spent bool
}

func (d *decoder) problem(off int64, format string, args ...any) {
	d.add(Problem{Off: off, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) add(p Problem) {
	if len(d.problems) >= MaxProblems {
		d.dropped++
		return
	}
	d.problems = append(d.problems, p)
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
		d.emit(d.open)
		d.open = nil
	}
	if d.dropped > 0 {
		d.problems = append(d.problems, Problem{Off: off, Cap: MaxProblems,
			Msg: fmt.Sprintf("%d more problems not listed (at most %d are, per direction)", d.dropped, MaxProblems)})
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
		d.emit(&m)
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
			d.emit(d.open)
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
		if m.Incomplete {
			m.Deflated = true
			d.inf.Forget()
		} else {
			d.inflate(m)
		}
	}
	if m.Opcode == Text && !m.Incomplete && !m.Deflated && !utf8.Valid(m.Payload) {
		d.problem(m.Off, "text message is not valid UTF-8")
	}
	d.emit(m)
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

// inflate replaces m's payload with its inflated bytes, within the caps;
// past one, or when it does not inflate, m is left deflated and a problem
// says why.
func (d *decoder) inflate(m *Message) {
	d.inf.NoContextTakeover = d.o.NoContextTakeover
	limit, left := d.o.MaxMessage, d.o.MaxInflate-d.inflated
	if d.spent || left <= 0 {
		m.Deflated = true
		d.inf.Forget()
		return
	}
	session := int64(limit) > left
	if session {
		limit = int(left)
	}
	out, err := d.inf.Inflate(d.buf[:0], m.Payload, limit)
	d.inflated += int64(len(out))
	var ce *CapError
	switch {
	case errors.As(err, &ce) && session:
		d.spent = true
		m.Deflated = true
		d.add(Problem{Off: m.Off, Cap: d.o.MaxInflate, Msg: fmt.Sprintf(
			"%s message not inflated, nor any compressed message after it: inflating it would pass the cap of %d bytes inflated per session", m.Opcode, d.o.MaxInflate)})
	case ce != nil:
		m.Deflated = true
		d.add(Problem{Off: m.Off, Cap: int64(d.o.MaxMessage), Msg: fmt.Sprintf(
			"%s message inflates to more than %d bytes (the cap per message); left deflated", m.Opcode, d.o.MaxMessage)})
	case err != nil:
		m.Deflated = true
		d.problem(m.Off, "cannot inflate %s message: %v", m.Opcode, err)
	default:
		m.Payload = out
	}
	d.buf = out[:0] // reused: a session of big messages allocates one
}
