package record

import (
	"errors"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/protocol"
)

// streamWatch follows one side's body to tell how its stream ended: it
// decodes a copy of the body when it is compressed (the recorded and
// forwarded bytes stay as they came), counts the events and notes whether
// the protocol's terminal signal was seen.
//
// The decoded copy is seam's alone, so it is capped: the decoder spends
// from the exchange's budget (coding.MaxStreamBody a body,
// coding.MaxStreamExchange in all) and stops there, and the watch then
// tells nothing more of the body (see capped). What it decodes goes to the
// watch, and to the echo guard, in the decoder's pieces of at most 32 KiB,
// never gathered: a few bytes of br that decode to 512 MiB cost the watch
// its parser's caps, not 512 MiB.
//
// When the client side is the upstream side's bytes (passthrough), the
// client side is not parsed again: [streamWatch.mirror] makes its watch say
// what the upstream side's says of the bytes the client got.
type streamWatch struct {
	dec  *coding.Decoder // nil when the body is not compressed or undecodable
	w    *protocol.Watch
	sink func([]byte) // where fed bytes go: the watch, or the decoder
	// tap, set by tests, sees the decoded bytes (on the decoder's
	// goroutine).
	tap func(where string, p []byte)
	// codingErr is how the compressed stream ended (coding.ErrCut, corrupt,
	// unsupported, or a *coding.CapError), nil when it ended cleanly or was
	// not compressed.
	codingErr error
	closed    bool
	// onDecoded, when set, gets each piece of the decoded copy too (the
	// echo guard); the piece is valid during the call.
	onDecoded func([]byte)

	mirrored          bool // the counts below replace the watch's
	mEvents           int
	mTerminal, mKnown bool
}

// newStreamWatch returns a watch for a body with the given Content-Type and
// Content-Encoding, answering a request for path, decoding within budget
// (nil: the caps of coding.NewDecoder).
func newStreamWatch(contentType, contentEncoding, path string, budget *coding.Budget) *streamWatch {
	s := &streamWatch{w: protocol.NewWatch(contentType, path)}
	s.sink = s.w.Feed
	if contentEncoding != "" {
		d, err := budget.NewDecoder(contentEncoding)
		switch {
		case err != nil:
			s.codingErr = err
			s.sink = func([]byte) {} // bytes seam cannot read tell nothing
		case !d.Identity():
			s.dec = d
			s.sink = func(p []byte) {
				if err := d.Write(p, s.decode); err != nil && s.codingErr == nil {
					s.codingErr = err
				}
			}
		}
	}
	return s
}

// noStream is the watch of a side that carried no body.
func noStream() *streamWatch { return newStreamWatch("", "", "", nil) }

// decode follows a piece of the decoded copy, and hands it to the echo
// guard.
func (s *streamWatch) decode(p []byte) {
	if s.tap != nil {
		s.tap("decoded", p)
	}
	s.w.Feed(p)
	if s.onDecoded != nil {
		s.onDecoded(p)
	}
}

// capped returns the cap the decoded copy passed (its decoding stopped
// there), or nil.
func (s *streamWatch) capped() *coding.CapError {
	var c *coding.CapError
	if errors.As(s.codingErr, &c) {
		return c
	}
	return nil
}

// compressed reports whether the body is compressed in a coding the watch
// decodes.
func (s *streamWatch) compressed() bool { return s.dec != nil }

// feed follows the next bytes of the body as they came on the wire.
func (s *streamWatch) feed(p []byte) { s.sink(p) }

func (s *streamWatch) close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.dec != nil {
		if err := s.dec.Close(s.decode); err != nil && s.codingErr == nil {
			s.codingErr = err
		}
	}
	s.w.Close()
}

// mirror makes s, the closed watch of a client side that got the first n
// bytes of the upstream side's body unchanged, say what up says of them:
// their events, and whether the terminal event was among them. (A
// compressed client side is never mirrored: its echo guard checks what its
// own watch decodes.)
func (s *streamWatch) mirror(up *streamWatch, n int64) {
	s.mirrored, s.mKnown = true, up.w.Known()
	s.mEvents, s.mTerminal = up.w.Prefix(n)
}

func (s *streamWatch) events() int {
	if s.mirrored {
		return s.mEvents
	}
	return s.w.Events()
}

func (s *streamWatch) terminal() bool {
	if s.mirrored {
		return s.mTerminal
	}
	return s.w.Terminal()
}

func (s *streamWatch) cutByCoding() bool { return errors.Is(s.codingErr, coding.ErrCut) }

// unfinished reports whether a body that reached its end cleanly still
// ended short: its compressed stream was cut, or it is a stream of a known
// protocol that never sent its terminal signal. A body whose decoded copy
// passed the cap is not known to be either: the watch read only its start.
func (s *streamWatch) unfinished() bool {
	known := s.w.Known()
	if s.mirrored {
		known = s.mKnown
	}
	return s.cutByCoding() || known && !s.terminal() && s.capped() == nil
}

// corrupt returns the error of a compressed body that does not decode, or
// nil (for a cut body, a coding seam does not decode, or a decoded copy
// that passed the cap: the body is sound as far as the watch read it).
func (s *streamWatch) corrupt() error {
	var u *coding.UnsupportedError
	if s.codingErr == nil || s.cutByCoding() || errors.As(s.codingErr, &u) || s.capped() != nil {
		return nil
	}
	return s.codingErr
}
