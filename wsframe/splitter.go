package wsframe

import (
	"bytes"
	"io"

	"github.com/gobwas/ws"
)

// DefaultMaxChunk is the longest piece a [Splitter] holds back waiting for
// the end of a frame; a longer frame is handed out in pieces of this size.
const DefaultMaxChunk = 1 << 20

// Splitter cuts a byte stream fed in arbitrary pieces into whole frames.
// The zero value is ready to use, with [DefaultMaxChunk].
type Splitter struct {
	// MaxChunk bounds the bytes held back; zero means DefaultMaxChunk.
	MaxChunk int

	buf  []byte // bytes of the current, incomplete frame
	need int64  // length of the current frame, when its header is known; -1 when not
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
// a whole frame (header and payload), or the first MaxChunk bytes of a
// longer one. The slice passed to emit is valid only during the call.
func (s *Splitter) Feed(p []byte, emit func(piece []byte)) {
	max := s.MaxChunk
	if max <= 0 {
		max = DefaultMaxChunk
	}
	for len(p) > 0 {
		if s.broken {
			n := min(len(p), max)
			emit(p[:n])
			p = p[n:]
			continue
		}
		if len(s.buf) == 0 && s.need <= 0 {
			// At a frame boundary: hand out whole frames straight from p.
			n, ok := s.frameLen(p)
			if ok && int64(len(p)) >= n && n <= int64(max) {
				emit(p[:n])
				p = p[n:]
				continue
			}
			if ok {
				s.need = n
			} else {
				s.need = -1
			}
			if s.broken {
				continue
			}
		}
		if s.need < 0 {
			// The header is not whole yet: add bytes until it is.
			take := min(len(p), 14)
			s.buf = append(s.buf, p[:take]...)
			p = p[take:]
			n, ok := s.frameLen(s.buf)
			if !ok {
				if s.broken || len(s.buf) >= 14 {
					s.broken = true
					emit(s.buf)
					s.buf = s.buf[:0]
				}
				continue
			}
			// The header is complete: give back what belongs after it.
			s.need = n
			if extra := int64(len(s.buf)) - n; extra > 0 {
				back := len(s.buf) - int(extra)
				p = append(append([]byte(nil), s.buf[back:]...), p...)
				s.buf = s.buf[:back]
			}
		}
		missing := s.need - int64(len(s.buf))
		take := int(min(int64(len(p)), missing, int64(max-len(s.buf))))
		s.buf = append(s.buf, p[:take]...)
		p = p[take:]
		switch {
		case int64(len(s.buf)) == s.need:
			emit(s.buf)
			s.buf, s.need = s.buf[:0], 0
		case len(s.buf) >= max:
			emit(s.buf)
			s.need -= int64(len(s.buf))
			s.buf = s.buf[:0]
		}
	}
}

// frameLen returns the length of the frame starting at b, when its header
// is complete, and notes a close frame.
func (s *Splitter) frameLen(b []byte) (int64, bool) {
	h, err := s.hr.read(b)
	if err != nil {
		if err != io.ErrUnexpectedEOF && err != io.EOF {
			s.broken = true // not a frame header: stop framing
		}
		return 0, false
	}
	if h.OpCode == ws.OpClose {
		s.Close = true
	}
	return int64(ws.HeaderSize(h)) + h.Length, true
}

// Flush hands out the bytes of an incomplete last frame, if any.
func (s *Splitter) Flush(emit func(piece []byte)) {
	if len(s.buf) > 0 {
		emit(s.buf)
	}
	s.buf, s.need = s.buf[:0], 0
}
