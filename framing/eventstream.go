package framing

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// Event-stream message layout (all integers big-endian): a 12-byte prelude
// (total length, headers length, prelude CRC), the headers, the payload, and
// a 4-byte CRC of everything before it.
const (
	preludeLen = 12
	minMessage = preludeLen + 4
	// MaxMessage is the largest event-stream message the reference
	// implementation accepts (aws-c-event-stream's 24 MiB).
	MaxMessage = 24 << 20
)

// prelude reads an event-stream prelude at the start of b, returning the
// message's total and headers lengths when the prelude CRC holds and the
// lengths are sane.
func prelude(b []byte) (total, headers uint32, ok bool) {
	if len(b) < preludeLen {
		return 0, 0, false
	}
	total = binary.BigEndian.Uint32(b)
	headers = binary.BigEndian.Uint32(b[4:])
	if crc32.ChecksumIEEE(b[:8]) != binary.BigEndian.Uint32(b[8:]) {
		return 0, 0, false
	}
	if total < minMessage || total > MaxMessage || headers > total-minMessage {
		return 0, 0, false
	}
	return total, headers, true
}

// eventStreamParser reads AWS event-stream messages.
type eventStreamParser struct {
	problem func(Problem)
	dec     *eventstream.Decoder
	payload []byte // scratch for the decoder's copy of the payload
	buf     []byte // bytes not yet consumed
	at      int64  // offset of buf[0]
	fed     int64
	closed  bool

	// A corrupt region being skipped.
	badAt  int64
	badLen int64
	badMsg string
}

func (p *eventStreamParser) Feed(b []byte, emit Emit) {
	if p.closed {
		return
	}
	p.fed += int64(len(b))
	if len(p.buf) == 0 {
		// Read whole messages in place; keep only the rest.
		n := p.scan(b, emit)
		p.buf = append(p.buf, b[n:]...)
		p.at += int64(n)
		return
	}
	p.buf = append(p.buf, b...)
	n := p.scan(p.buf, emit)
	p.at += int64(n)
	rest := copy(p.buf, p.buf[n:])
	p.buf = p.buf[:rest]
	if cap(p.buf) > shrinkCap && rest < shrinkCap/4 {
		p.buf = append([]byte(nil), p.buf...)
	}
}

// scan reads the messages complete in b, whose first byte is at offset
// p.at, and returns how many bytes it consumed.
func (p *eventStreamParser) scan(b []byte, emit Emit) int {
	i := 0
	for len(b)-i >= preludeLen {
		total, hlen, ok := prelude(b[i:])
		if !ok {
			p.skip(p.at+int64(i), "no valid event-stream prelude (prelude CRC or lengths wrong)")
			i++
			continue
		}
		if len(b)-i < int(total) {
			break
		}
		p.endSkip()
		p.message(b[i:i+int(total)], p.at+int64(i), hlen, emit)
		i += int(total)
	}
	return i
}

// message decodes one message whose prelude holds, at offset at.
func (p *eventStreamParser) message(m []byte, at int64, hlen uint32, emit Emit) {
	if p.dec == nil {
		p.dec = eventstream.NewDecoder()
	}
	msg, err := p.dec.Decode(bytes.NewReader(m), p.payload[:0])
	if err != nil {
		what := err.Error()
		if errors.As(err, new(eventstream.ChecksumError)) {
			what = "message CRC mismatch"
		}
		p.problem(Problem{Kind: Corrupt, Off: at, Len: int64(len(m)), Msg: "event-stream message of " + strconv.Itoa(len(m)) + " bytes: " + what})
		return
	}
	if cap(msg.Payload) > cap(p.payload) && cap(msg.Payload) <= shrinkCap {
		p.payload = msg.Payload[:0]
	}
	f := Frame{Headers: msg.Headers, Start: at, End: at + int64(len(m)), DataOff: at + preludeLen + int64(hlen), Terminated: true}
	f.MessageType = f.Header(":message-type")
	f.Name = f.Header(":event-type")
	if f.MessageType == "exception" {
		f.Name = f.Header(":exception-type")
	}
	emit(f, m[preludeLen+int(hlen):len(m)-4])
}

// skip notes that the byte at off starts no readable message.
func (p *eventStreamParser) skip(off int64, msg string) {
	if p.badLen > 0 && p.badAt+p.badLen == off {
		p.badLen++
		return
	}
	p.endSkip()
	p.badAt, p.badLen, p.badMsg = off, 1, msg
}

// endSkip reports the corrupt region being skipped, if any.
func (p *eventStreamParser) endSkip() {
	if p.badLen == 0 {
		return
	}
	p.problem(Problem{Kind: Corrupt, Off: p.badAt, Len: p.badLen, Msg: strconv.FormatInt(p.badLen, 10) + " bytes skipped: " + p.badMsg})
	p.badLen = 0
}

func (p *eventStreamParser) Close(emit Emit) {
	if p.closed {
		return
	}
	p.closed = true
	if len(p.buf) == 0 {
		p.endSkip()
		return
	}
	if total, _, ok := prelude(p.buf); ok {
		p.endSkip()
		p.problem(Problem{Kind: Cut, Off: p.at, Len: int64(len(p.buf)),
			Msg: "the body ends inside an event-stream message: " + strconv.Itoa(len(p.buf)) + " of its " + strconv.FormatUint(uint64(total), 10) + " bytes"})
	} else {
		p.skip(p.at, "the body ends inside an event-stream prelude")
		p.badLen = p.at + int64(len(p.buf)) - p.badAt
		p.endSkip()
	}
	p.buf = nil
}
