package framing

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
	"time"

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

// Header value types (aws-c-event-stream aws_event_stream_header_value_type).
const (
	hTrue = iota
	hFalse
	hByte
	hInt16
	hInt32
	hInt64
	hBytes
	hString
	hTimestamp
	hUUID
)

// fixedSize is the value size of the fixed-size header types.
var fixedSize = [...]int{hTrue: 0, hFalse: 0, hByte: 1, hInt16: 2, hInt32: 4, hInt64: 8, hTimestamp: 8, hUUID: 16}

// scanHeaders walks the header bytes of a message, calling fn for each
// header with its name, value type and value bytes (views into h), and
// reports the first malformed header.
func scanHeaders(h []byte, fn func(name []byte, typ byte, value []byte)) error {
	for i, n := 0, 0; i < len(h); n++ {
		nl := int(h[i])
		i++
		if nl == 0 || i+nl+1 > len(h) {
			return fmt.Errorf("header %d: name runs past the headers", n)
		}
		name := h[i : i+nl]
		i += nl
		typ := h[i]
		i++
		var vl int
		switch {
		case typ == hBytes || typ == hString:
			if i+2 > len(h) {
				return fmt.Errorf("header %d (%s): value length runs past the headers", n, name)
			}
			vl = int(binary.BigEndian.Uint16(h[i:]))
			i += 2
		case int(typ) < len(fixedSize):
			vl = fixedSize[typ]
		default:
			return fmt.Errorf("header %d (%s): unknown value type %d", n, name, typ)
		}
		if i+vl > len(h) {
			return fmt.Errorf("header %d (%s): value runs past the headers", n, name)
		}
		fn(name, typ, h[i:i+vl])
		i += vl
	}
	return nil
}

// headerValue returns a header's value as the AWS SDK's decoder gives it.
func headerValue(typ byte, b []byte) eventstream.Value {
	switch typ {
	case hTrue:
		return eventstream.BoolValue(true)
	case hFalse:
		return eventstream.BoolValue(false)
	case hByte:
		return eventstream.Int8Value(int8(b[0]))
	case hInt16:
		return eventstream.Int16Value(int16(binary.BigEndian.Uint16(b)))
	case hInt32:
		return eventstream.Int32Value(int32(binary.BigEndian.Uint32(b)))
	case hInt64:
		return eventstream.Int64Value(int64(binary.BigEndian.Uint64(b)))
	case hBytes:
		return eventstream.BytesValue(append([]byte(nil), b...))
	case hString:
		return eventstream.StringValue(string(b))
	case hTimestamp:
		return eventstream.TimestampValue(time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC())
	}
	var u eventstream.UUIDValue
	copy(u[:], b)
	return u
}

// eventStreamParser reads AWS event-stream messages. It checks each
// message's prelude and message CRCs and header structure itself, with the
// hardware CRC, rather than through the AWS SDK's decoder, which reads a
// message byte by byte through a hashing reader and allocates for every
// header: on Bedrock's small messages that decoder alone runs below the
// throughput inspect needs. The SDK's decoder remains the reference this
// parser is tested against, message for message (eventstream_test.go).
type eventStreamParser struct {
	problem func(Problem)
	buf     []byte // bytes not yet consumed
	at      int64  // offset of buf[0]
	closed  bool
	names   map[string]string // interned header values

	// A corrupt region being skipped.
	badAt  int64
	badLen int64
	badMsg string
}

func (p *eventStreamParser) Feed(b []byte, emit Emit) {
	if p.closed {
		return
	}
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

// message checks and emits one message whose prelude holds, at offset at.
func (p *eventStreamParser) message(m []byte, at int64, hlen uint32, emit Emit) {
	bad := func(what string) {
		p.problem(Problem{Kind: Corrupt, Off: at, Len: int64(len(m)), Msg: "event-stream message of " + strconv.Itoa(len(m)) + " bytes: " + what})
	}
	if crc32.ChecksumIEEE(m[:len(m)-4]) != binary.BigEndian.Uint32(m[len(m)-4:]) {
		bad("message CRC mismatch")
		return
	}
	hdr := m[preludeLen : preludeLen+int(hlen)]
	f := Frame{headers: hdr, Start: at, End: at + int64(len(m)), DataOff: at + preludeLen + int64(hlen), Terminated: true}
	var exception string
	err := scanHeaders(hdr, func(name []byte, typ byte, value []byte) {
		if typ != hString {
			return
		}
		switch string(name) {
		case ":message-type":
			f.MessageType = p.intern(value)
		case ":event-type":
			f.Name = p.intern(value)
		case ":exception-type":
			exception = p.intern(value)
		}
	})
	if err != nil {
		bad(err.Error())
		return
	}
	if f.MessageType == "exception" {
		f.Name = exception
	}
	emit(f, m[preludeLen+int(hlen):len(m)-4])
}

// intern returns b as a string, the same string for the same bytes while
// the cache is small (header values repeat on every message).
func (p *eventStreamParser) intern(b []byte) string {
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if p.names == nil {
		p.names = map[string]string{}
	}
	if len(p.names) < 256 {
		p.names[s] = s
	}
	return s
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
