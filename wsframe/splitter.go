package wsframe

import (
	"bytes"
	"io"
	"math"

	"github.com/gobwas/ws"
)

// DefaultMaxChunk is the longest piece a [Splitter] holds back waiting for
// the end of a frame; a longer frame is handed out in pieces of this size.
const DefaultMaxChunk = 1 << 20

// Header is a frame header as it came.
type Header struct {
	Fin bool
	// Rsv1 is the first reserved bit: the compression bit under
	// permessage-deflate.
	Rsv1   bool
	Opcode Opcode
	Masked bool
	Mask   [4]byte
	// Length is the payload length the header declares: up to 2^63−1,
	// whatever the stream holds.
	Length int64
	// Size is the header's own length in bytes (2 to 14).
	Size int
}

// FrameLen is the length of the frame, header included; a length too
// large for an int64 (a hostile header) is clamped to math.MaxInt64,
// which no stream reaches.
func (h Header) FrameLen() int64 {
	if h.Length > math.MaxInt64-int64(h.Size) {
		return math.MaxInt64
	}
	return int64(h.Size) + h.Length
}

func fromWS(h ws.Header) Header {
	return Header{Fin: h.Fin, Rsv1: h.Rsv1(), Opcode: Opcode(h.OpCode), Masked: h.Masked, Mask: h.Mask, Length: h.Length, Size: ws.HeaderSize(h)}
}

// Piece is what a [Splitter] hands out: a whole frame, a piece of a frame
// longer than MaxChunk, what came of a frame cut by the end of the stream,
// or bytes that are not frames.
type Piece struct {
	// Data is the piece's bytes, valid only during the call it is handed
	// to.
	Data []byte
	// Frame is the header of the frame the piece is part of, unless Raw.
	Frame Header
	// At is the offset of Data's first byte in its frame: 0 when the
	// piece begins with the header.
	At int64
	// Last is set when the piece ends its frame.
	Last bool
	// Raw is set for bytes that are not known to be frames: the stream
	// stopped looking like frames, or ended inside a header.
	Raw bool
}

// Splitter cuts a byte stream fed in arbitrary pieces into whole frames.
// The zero value is ready to use, with [DefaultMaxChunk].
type Splitter struct {
	// MaxChunk bounds the bytes held back; zero means DefaultMaxChunk.
	MaxChunk int

	buf   []byte // bytes of the current frame held back
	known bool   // the current frame's header has been read
	cur   Header // the current frame's header, when known
	total int64  // the current frame's length, when known
	at    int64  // bytes of the current frame handed out before buf
	// broken is set once the stream stopped looking like frames: from then
	// on pieces are handed out as they come.
	broken bool
	// Close reports whether a close frame has gone by.
	Close bool

	hr headerReader
}

// headerReader reads frame headers with ws.ReadHeaderBuffer out of byte
// slices, reusing its reader and buffer: no allocation per frame.
type headerReader struct {
	r   bytes.Reader
	buf [ws.MaxHeaderSize - 2]byte
}

// read reads the header of the frame starting at b.
func (hr *headerReader) read(b []byte) (ws.Header, error) {
	hr.r.Reset(b)
	return ws.ReadHeaderBuffer(&hr.r, hr.buf[:])
}

// Feed adds p to the stream and calls emit with each piece that is ready:
// a whole frame (header and payload), or the next MaxChunk bytes of a
// longer one. The piece's data is valid only during the call.
func (s *Splitter) Feed(p []byte, emit func(Piece)) {
	max := s.MaxChunk
	if max <= 0 {
		max = DefaultMaxChunk
	}
	for len(p) > 0 {
		if s.broken {
			n := min(len(p), max)
			emit(Piece{Data: p[:n], Raw: true})
			p = p[n:]
			continue
		}
		if !s.known {
			if len(s.buf) == 0 && s.header(p) {
				// At a frame boundary: hand out a whole frame straight
				// from p.
				if n := s.total; int64(len(p)) >= n && n <= int64(max) {
					s.out(p[:n], emit)
					p = p[n:]
				}
				continue
			}
			if s.broken {
				continue
			}
			// The header is not whole yet: add bytes until it is.
			take := min(len(p), ws.MaxHeaderSize-len(s.buf))
			s.buf = append(s.buf, p[:take]...)
			p = p[take:]
			if !s.header(s.buf) {
				if s.broken {
					emit(Piece{Data: s.buf, Raw: true})
					s.buf = s.buf[:0]
				}
				continue
			}
			// The header is complete: give back what belongs after the
			// frame.
			if extra := int64(len(s.buf)) - s.total; extra > 0 {
				back := len(s.buf) - int(extra)
				p = append(append([]byte(nil), s.buf[back:]...), p...)
				s.buf = s.buf[:back]
			}
		}
		missing := s.total - s.at - int64(len(s.buf))
		take := int(min(int64(len(p)), missing, int64(max-len(s.buf))))
		s.buf = append(s.buf, p[:take]...)
		p = p[take:]
		if s.at+int64(len(s.buf)) == s.total || len(s.buf) >= max {
			s.out(s.buf, emit)
			s.buf = s.buf[:0]
		}
	}
}

// out hands out data, the next bytes of the current frame.
func (s *Splitter) out(data []byte, emit func(Piece)) {
	pc := Piece{Data: data, Frame: s.cur, At: s.at}
	s.at += int64(len(data))
	if s.at == s.total {
		pc.Last = true
		s.known, s.at, s.total = false, 0, 0
	}
	emit(pc)
}

// header reads the header of the frame starting at b, when it is
// complete, and notes a close frame. It sets broken when b does not start
// with a frame header.
func (s *Splitter) header(b []byte) bool {
	h, err := s.hr.read(b)
	if err != nil {
		if err != io.ErrUnexpectedEOF && err != io.EOF {
			s.broken = true // not a frame header: stop framing
		}
		return false
	}
	if h.OpCode == ws.OpClose {
		s.Close = true
	}
	s.cur = fromWS(h)
	s.known, s.total, s.at = true, s.cur.FrameLen(), 0
	return true
}

// Flush hands out the bytes of an incomplete last frame, if any.
func (s *Splitter) Flush(emit func(Piece)) {
	if len(s.buf) > 0 {
		if s.known {
			emit(Piece{Data: s.buf, Frame: s.cur, At: s.at})
		} else {
			emit(Piece{Data: s.buf, Raw: true})
		}
	}
	s.buf, s.known, s.at, s.total = s.buf[:0], false, 0, 0
}
