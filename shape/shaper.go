package shape

import (
	"github.com/seam-dev/seam/internal/jsstring"
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// sniffLimit bounds the bytes held while waiting for the first upstream
// event; a stream with no recognizable event by then passes through.
const sniffLimit = 64 << 10

type engineState uint8

const (
	stateSniffing engineState = iota // before the first event: protocol unknown
	stateDecoding                    // decoding and shaping
	stateRaw                         // passing bytes through unchanged
	stateStopped                     // the turn was ended (stop-after-tools)
)

// shaper is the decoding engine: upstream bytes → SSE events → normalized
// events → transforms → client SSE events, one frame per client event.
type shaper struct {
	cfg   config
	state engineState

	parser    sse.Parser
	onEventFn func(sse.Event)
	held      []byte  // raw bytes while sniffing
	heldEnds  []int   // end offset in held of each pushed chunk
	early     []Event // comments seen while sniffing

	dec  decoder
	enc  encoder
	meta Meta
	evs  []Event
	out  frames
	cur  sse.Event // the upstream event being decoded (kept here so it does not escape)
	// tmp is the event the shaper itself writes (a text delta, a cumulative
	// argument snapshot, a cut's finish); kept here so it does not escape.
	// It is used for one encode call at a time.
	tmp Event
	xml []byte // reusable buffer for rendering a structured call as XML

	chatUp bool // the upstream speaks Chat Completions

	// partial is the upstream's last event when the stream ended before
	// the blank line that would have dispatched it (a cut stream). A client
	// discards such an event, so it is not decoded; its fields are written
	// last, unterminated, so the client side ends cut as the upstream did.
	partial    sse.Event
	hasPartial bool

	choices []*choiceState
}

func newShaper(cfg config) *shaper {
	s := &shaper{cfg: cfg}
	s.onEventFn = s.onEvent
	s.parser.OnComment = s.onComment
	return s
}

// Push implements [Engine].
func (s *shaper) Push(dst [][]byte, p []byte) [][]byte {
	if s.state == stateStopped {
		return dst
	}
	if s.state == stateRaw {
		if len(p) == 0 {
			return dst
		}
		return append(dst, p)
	}
	s.out.reset()
	if s.state == stateSniffing && len(p) > 0 {
		s.held = append(s.held, p...)
		s.heldEnds = append(s.heldEnds, len(s.held))
	}
	s.parser.Feed(p, s.onEventFn)
	if s.state == stateSniffing && len(s.held) > sniffLimit {
		s.state = stateRaw
	}
	if s.state == stateRaw && s.held != nil {
		return s.releaseHeld(dst)
	}
	return s.out.appendTo(dst)
}

// Close implements [Engine].
func (s *shaper) Close(dst [][]byte) [][]byte {
	if s.state == stateRaw || s.state == stateStopped {
		return dst
	}
	s.out.reset()
	s.parser.Close(s.onEventFn)
	if s.state == stateSniffing || (s.state == stateRaw && s.held != nil) {
		s.state = stateRaw
		return s.releaseHeld(dst)
	}
	if s.state == stateDecoding {
		s.evs = s.dec.finish(s.evs[:0])
		s.processAll()
		for _, c := range s.choices {
			if s.state != stateDecoding {
				break
			}
			c.flush(s)
		}
		if c, ok := s.enc.(cutEncoder); ok && s.state == stateDecoding {
			c.ended(&s.out, &s.meta)
		}
		if s.hasPartial && s.state == stateDecoding {
			// The event's lines without the blank line that would end it.
			ev := sse.AppendEvent(nil, s.partial)
			s.out.buf = append(s.out.buf, ev[:len(ev)-1]...)
			s.out.end()
		}
	}
	return s.out.appendTo(dst)
}

// releaseHeld gives back the bytes held while sniffing, with the boundaries
// they were pushed with, once the stream turned out not to be decodable.
func (s *shaper) releaseHeld(dst [][]byte) [][]byte {
	start := 0
	for _, e := range s.heldEnds {
		dst = append(dst, s.held[start:e:e])
		start = e
	}
	s.held, s.heldEnds = nil, nil
	return dst
}

func (s *shaper) onComment(text string, _ int64) {
	switch s.state {
	case stateSniffing:
		s.early = append(s.early, Event{Kind: KindOpaque, Comment: true, Raw: text})
	case stateDecoding:
		// An opaque event goes through the transforms untouched.
		s.tmp = Event{Kind: KindOpaque, Comment: true, Raw: text}
		s.enc.encode(&s.out, &s.tmp, &s.meta)
	}
}

func (s *shaper) onEvent(ev sse.Event) {
	if s.state == stateRaw || s.state == stateStopped {
		return
	}
	if !ev.Terminated {
		// Only Close dispatches an unterminated event. While sniffing,
		// the held bytes are given back as they came.
		if s.state == stateDecoding {
			s.partial, s.hasPartial = ev, true
		}
		return
	}
	s.cur = ev
	// A client decodes the stream's bytes before it parses them: bad
	// UTF-8 becomes U+FFFD per maximal subpart in each event, never
	// merged with the bytes of another.
	s.cur.Data = jsstring.Decode(ev.Data)
	if s.state == stateSniffing && !s.begin() {
		return
	}
	if malformedJSON(s.cur.Data) {
		// gjson reads broken JSON leniently; a client cannot read it at
		// all. Forward it as it came instead of decoding a guess.
		s.tmp = opaque(&s.cur)
		s.tmp.Lost = "an event whose data is not valid JSON"
		s.process(&s.tmp)
		return
	}
	s.evs = s.dec.decode(s.evs[:0], &s.cur, &s.meta)
	s.processAll()
}

// malformedJSON reports whether data looks like a JSON object but does not
// parse as one.
func malformedJSON(data string) bool {
	return len(data) > 0 && data[0] == '{' && !gjson.Valid(data)
}

// begin ends sniffing at the first event (in s.cur): it picks the codecs, or
// goes raw when the protocol is unknown or nothing would change, and reports
// whether the event is to be decoded.
func (s *shaper) begin() bool {
	if !s.start(sniff(&s.cur)) {
		s.state = stateRaw
		return false
	}
	adapt := s.cfg.responsesAdapter && s.chatUp
	if !s.cfg.reshapes() && !adapt && !s.cfg.decodeAlways {
		// Nothing to change (e.g. the responses profile on a Responses
		// upstream): give the bytes back as they came.
		s.state = stateRaw
		return false
	}
	s.held, s.heldEnds = nil, nil
	for i := range s.early {
		s.process(&s.early[i])
	}
	s.early = nil
	return true
}

// start picks the decoder and encoder for the upstream protocol.
func (s *shaper) start(p protocol) bool {
	switch p {
	case protoChat:
		s.dec = &chatDecoder{legacyCalls: s.cfg.xmlTools || s.cfg.responsesAdapter, refusals: s.cfg.responsesAdapter}
		s.enc = chatEncoder{}
		s.chatUp = true
		if s.cfg.responsesAdapter {
			s.enc = &responsesEncoder{}
		}
	case protoResponses:
		s.dec = &responsesDecoder{customTools: s.cfg.xmlTools}
		s.enc = &responsesEncoder{}
	case protoAnthropic:
		s.dec = &anthropicDecoder{}
		s.enc = &anthropicEncoder{}
	default:
		return false
	}
	s.state = stateDecoding
	return true
}

func (s *shaper) processAll() {
	for i := range s.evs {
		if s.state != stateDecoding {
			return
		}
		s.process(&s.evs[i])
	}
}

func (s *shaper) choice(i int) *choiceState {
	for _, c := range s.choices {
		if c.index == i {
			return c
		}
	}
	c := newChoice(i)
	s.choices = append(s.choices, c)
	return c
}

// emitText writes a text delta for choice c to the client.
func (s *shaper) emitText(c *choiceState, text string) {
	if text == "" {
		return
	}
	s.tmp = Event{Kind: KindText, Choice: c.index, Text: text}
	s.enc.encode(&s.out, &s.tmp, &s.meta)
}

// process runs one normalized event through the transforms.
func (s *shaper) process(e *Event) {
	if s.state != stateDecoding {
		return
	}
	switch e.Kind {
	case KindText:
		s.choice(e.Choice).appendText(s, e.Text)
		return
	case KindToolStart, KindToolArgs, KindToolEnd:
		if s.cfg.xmlTools {
			c := s.choice(e.Choice)
			switch e.Kind {
			case KindToolStart:
				if c.tool(e.Index) == nil {
					c.tools = append(c.tools, toolAcc{index: e.Index, id: e.ID, name: e.Name})
				}
			case KindToolArgs:
				if t := c.tool(e.Index); t != nil {
					t.args = append(t.args, e.Text...)
				}
			case KindToolEnd:
				c.endTool(s, e.Index)
			}
			return
		}
		if e.Kind == KindToolArgs && !s.cfg.incrementalArgs {
			c := s.choice(e.Choice)
			if c.cum == nil {
				c.cum = map[int]string{}
			}
			c.cum[e.Index] += e.Text
			s.tmp = *e
			s.tmp.Text = c.cum[e.Index]
			s.enc.encode(&s.out, &s.tmp, &s.meta)
			return
		}
	case KindFinish:
		s.choice(e.Choice).flush(s)
	case KindDone:
		for _, c := range s.choices {
			c.flush(s)
		}
	case KindOpaque:
		if s.adapting() && !e.Comment {
			s.refuse(e)
			return
		}
	}
	if s.state != stateDecoding {
		return
	}
	s.enc.encode(&s.out, e, &s.meta)
}

// adapting reports whether the client protocol differs from the
// upstream's (a Chat Completions upstream encoded as Responses), so that an
// upstream event cannot be forwarded as it came.
func (s *shaper) adapting() bool { return s.chatUp && s.cfg.responsesAdapter }

// refuse handles an upstream event the client's protocol cannot carry as
// it came. One that carries content the engine does not model is refused
// loudly: the client gets an error event naming what was not carried,
// rather than losing it unseen or getting another protocol's JSON. One
// that carries nothing a client shows (a Chat chunk with no choices, such
// as a content-filter report) has no form in the client's protocol and is
// left out.
func (s *shaper) refuse(e *Event) {
	if e.Lost == "" {
		return
	}
	b := []byte(`{"type":"seam_cannot_carry","code":"cannot_carry","message":`)
	b = tape.AppendJSONString(b, "seam's responses-adapter cannot carry "+e.Lost+" of the upstream Chat Completions stream to a Responses client; it was not forwarded")
	b = append(b, '}')
	s.tmp = Event{Kind: KindError, Raw: string(b)}
	s.enc.encode(&s.out, &s.tmp, &s.meta)
}

// cut ends the turn for stop-after-tools: every choice finishes with "stop",
// the terminal event is written, and the rest of the upstream is ignored.
func (s *shaper) cut() {
	for _, c := range s.choices {
		s.tmp = Event{Kind: KindFinish, Choice: c.index, Text: "stop"}
		s.enc.encode(&s.out, &s.tmp, &s.meta)
	}
	s.tmp = Event{Kind: KindDone}
	s.enc.encode(&s.out, &s.tmp, &s.meta)
	s.state = stateStopped
}
