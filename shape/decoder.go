package shape

import "github.com/seam-dev/seam/sse"

// Decoder turns an upstream SSE stream into normalized events, without
// shaping: the decoding half of the engine, for tools that want to look at
// a stream the way the engine sees it. The protocol is told from the first
// event; a stream in no known protocol yields only opaque events. The zero
// value is ready to use.
type Decoder struct {
	parser  sse.Parser
	dec     decoder
	known   bool
	meta    Meta
	evs     []Event
	cur     sse.Event
	emit    func(Event)
	started bool
}

func (d *Decoder) init() {
	if d.started {
		return
	}
	d.started = true
	d.parser.OnComment = func(text string, _ int64) {
		if d.emit != nil {
			d.emit(Event{Kind: KindOpaque, Comment: true, Raw: text})
		}
	}
}

// Push decodes the next bytes of the stream, calling emit for each event.
func (d *Decoder) Push(p []byte, emit func(Event)) {
	d.init()
	d.emit = emit
	d.parser.Feed(p, d.onEvent)
	d.emit = nil
}

// Close ends the stream: an unterminated last event is decoded, and tool
// calls still open are closed.
func (d *Decoder) Close(emit func(Event)) {
	d.init()
	d.emit = emit
	d.parser.Close(d.onEvent)
	if d.dec != nil {
		for _, e := range d.dec.finish(d.evs[:0]) {
			emit(e)
		}
	}
	d.emit = nil
}

// Meta returns what the decoder learned about the response (id, model).
func (d *Decoder) Meta() Meta { return d.meta }

func (d *Decoder) onEvent(ev sse.Event) {
	d.cur = ev
	if !d.known {
		d.known = true
		switch sniff(&d.cur) {
		case protoChat:
			d.dec = &chatDecoder{}
		case protoResponses:
			d.dec = &responsesDecoder{}
		case protoAnthropic:
			d.dec = &anthropicDecoder{}
		}
	}
	if d.dec == nil {
		d.emit(opaque(&d.cur))
		return
	}
	d.evs = d.dec.decode(d.evs[:0], &d.cur, &d.meta)
	for _, e := range d.evs {
		d.emit(e)
	}
}
