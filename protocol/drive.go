package protocol

import (
	"slices"

	"github.com/seam-dev/seam/internal/excerpt"
)

// handlers are a family's part of assembling a stream: how to decode an
// event's payload, its type, what each type of event adds to the message,
// and the family's own detectors. S is the family's assembly state, V its
// decoded payload. The driver calls them only for the events its preamble
// lets through.
type handlers[S, V any] struct {
	// decode decodes event i's payload, reporting whether it is the JSON
	// the family carries (the driver flags it when not).
	decode func(s *S, i int, e *Event) (*V, bool)
	// typeOf returns the event's routing key (family.key); nil for a
	// family whose events have none.
	typeOf func(v *V, e *Event) string
	// each, when set, reads every event the preamble let through, before
	// the handler of its type in on.
	each func(s *S, i int, e *Event, v *V)
	on   map[string]func(s *S, i int, e *Event, v *V)
	// own raises the family's own detector k, which a rule of its row
	// called for, at event i (of type typ; e is nil for ownSettled).
	own func(s *S, k own, i int, e *Event, typ string)
	// matters reports whether an event after the end carries anything a
	// client could lose (nil: every event does).
	matters func(v *V) bool
	// settled reports whether the stream reached its semantic end (every
	// choice finished) without its terminal event (family.settles).
	settled func(s *S) bool
	// finish builds the message from what the events added, once the
	// driver checked how the stream ended; n is the number of events.
	finish func(s *S, n int)
}

// drive assembles events into a by the rules of family f, the family's
// handlers h reading its state s. It owns what every family shares, in
// this order for each event: event-stream exceptions; data: [DONE] (the
// terminal, due after it, or stray); events after the point where clients
// stop reading (lost); invalid JSON; payloads without a type; SSE names;
// events after the end that clients still read (late); the opening event;
// the terminal event; then the family's handlers. At the end it flags a
// stream that never reached its end, and the family builds its message.
func drive[S, V any](a *Assembly, f *family, events []Event, s *S, h *handlers[S, V]) {
	d := driver[S, V]{a: a, f: f, s: s, h: h}
	for i := range events {
		d.event(i, &events[i])
	}
	n := len(events)
	switch {
	case a.Terminal >= 0 || d.stopped || n == 0:
	case f.settles && h.settled(s):
		h.own(s, ownSettled, n-1, nil, "")
	default:
		a.noTerminal(n, f.noEnd)
	}
	h.finish(s, n)
}

// driver is the state of drive over one stream.
type driver[S, V any] struct {
	a *Assembly
	f *family
	s *S
	h *handlers[S, V]

	stopped  bool   // stopAtDone: a data: [DONE] came
	started  bool   // the opening event (f.start) came
	trailed  bool   // the trailer event came
	lastType string // the last routing key, and its handler
	handler  func(s *S, i int, e *Event, v *V)
}

// event runs the preamble over event i and hands it to the family's
// handlers if it gets through.
func (d *driver[S, V]) event(i int, e *Event) {
	a, f, h := d.a, d.f, d.h
	if f.exceptions && e.MessageType != "" && bedrockError(a, e, i) {
		return
	}
	// pass matters only where a [DONE] may be (not in the JSON object
	// nearly every event is) or clients stopped.
	if (f.done != doneNone && !jsonObject(e.Data) || d.stopped || f.stops == stopAtEnd && a.Terminal >= 0) && !d.pass(i, e) {
		return
	}
	v, ok := h.decode(d.s, i, e)
	if !ok {
		a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "%s", fill(f.invalid, "", e.Name))
		return
	}
	typ := ""
	if h.typeOf != nil {
		typ = h.typeOf(v, e)
	}
	if typ == "" && f.typed {
		h.own(d.s, ownUntyped, i, e, typ)
		return
	}
	if f.names != namesFree && (e.Name != typ || e.Name == "" || e.Name == "message") {
		checkName(a, f, i, e, typ, d.s, h)
	}
	if f.stops != stopAtEnd && (a.Terminal >= 0 || d.trailed) {
		late(a, f, i, e, typ, d.trailed, h.matters == nil || h.matters(v))
	}
	if f.start != "" {
		d.opening(i, e, typ)
	}
	if f.trailer != "" && typ == f.trailer {
		d.trailed = true
	}
	if len(f.ends) > 0 && slices.Contains(f.ends, typ) {
		a.end(i)
	}
	if h.each != nil {
		h.each(d.s, i, e, v)
	}
	if h.on != nil {
		if typ != d.lastType || d.handler == nil {
			d.lastType, d.handler = typ, h.on[typ]
		}
		if d.handler != nil {
			d.handler(d.s, i, e, v)
		}
	}
}

// pass applies the rules on data: [DONE] and on the point where clients
// stop reading to event i, and reports whether the event goes on to be
// decoded: a [DONE] never does, nor an event a client never reads.
func (d *driver[S, V]) pass(i int, e *Event) bool {
	a, f := d.a, d.f
	done := f.done != doneNone && IsDone(e.Data)
	switch {
	case done && f.done == doneStops:
		if a.Terminal < 0 {
			a.flag("stream.no-terminal", i, e.Data, "%s", f.stray)
		}
		d.stopped = true
	case d.stopped || f.stops == stopAtEnd && a.Terminal >= 0:
		if done {
			a.flag("stream.trailing-done", i, e.Data, "%s", f.trailing)
		} else {
			a.flag("stream.after-terminal", i, excerpt.Clip(e.Data, 120), "%s", f.lost)
		}
	case !done:
		return true
	case f.done == doneEnds:
		a.end(i)
		a.Message.Status = "done"
	case f.done == doneStray:
		a.flag("stream.after-terminal", i, e.Data, "%s", f.stray)
	case f.done == doneUntyped:
		d.h.own(d.s, ownDone, i, e, "")
	}
	return false
}

// jsonObject reports whether data starts as a JSON object does, so that it
// is no data: [DONE] (IsDone), at the cost of one comparison.
func jsonObject(data string) bool { return len(data) > 0 && data[0] == '{' }

// opening checks event i, of type typ, against the event the stream must
// open with.
func (d *driver[S, V]) opening(i int, e *Event, typ string) {
	f := d.f
	switch {
	case typ == f.start:
		if d.started {
			d.h.own(d.s, ownAgain, i, e, typ)
		}
		d.started = true
	case !d.started && !slices.Contains(f.startFree, typ):
		d.h.own(d.s, ownEarly, i, e, typ)
	}
}

// checkName checks an event's SSE name against its type by the family's
// name rule.
func checkName[S, V any](a *Assembly, f *family, i int, e *Event, typ string, s *S, h *handlers[S, V]) {
	unnamed := e.Name == "" || e.Name == "message"
	switch f.names {
	case namesFollowType:
		if !unnamed && e.Name != typ {
			a.flagOnce("stream.event-name-mismatch", i, "event: "+e.Name+" / type: "+typ, "%s", f.renamed)
		}
	case namesRoute:
		if unnamed {
			h.own(s, ownUnnamed, i, e, typ)
		} else if e.Name != typ {
			h.own(s, ownRenamed, i, e, typ)
		}
	}
}

// late flags an event after the end that clients still read: after the
// trailer event when one came (even before the terminal), else after the
// terminal (the trailer itself is due there).
func late(a *Assembly, f *family, i int, e *Event, typ string, trailed, matters bool) {
	msg := f.late
	switch {
	case trailed:
		msg = f.afterTrailer
	case typ == f.trailer && f.trailer != "", !matters:
		return
	}
	evidence := e.Name
	if !f.lateByName {
		evidence = excerpt.Clip(e.Data, 120)
	}
	if f.lateOnce {
		a.flagOnce("stream.after-end", i, evidence, "%s", fill(msg, typ, e.Name))
		return
	}
	a.flag("stream.after-end", i, evidence, "%s", fill(msg, typ, e.Name))
}
