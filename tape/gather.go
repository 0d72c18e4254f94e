package tape

import (
	"fmt"
	"slices"
)

// Anomaly is a place where a capture contradicts itself: what its lines
// claim (an offset, a time, a byte count, an end) does not match what they
// hold. Readers present anomalies as findings, never the claims as facts.
type Anomaly struct {
	// ID is stable: one of the Anomaly* constants.
	ID string
	// Side is the side concerned, "" for the exchange as a whole.
	Side Side
	// Line is the line of the capture where it shows (the first one, when
	// Count > 1), 0 when unknown.
	Line int
	// Chunk is the index of the chunk concerned in its side, -1 for none.
	Chunk int
	// Off and T are that chunk's offset and time as recorded, when Chunk
	// is set.
	Off, T int64
	// Count is how many times it happened in this exchange and side; only
	// the first is described.
	Count int
	// Message says what the lines claim and what they hold.
	Message string
}

// Anomaly IDs.
const (
	// AnomalyOffsetGap: a chunk's off is not where the side's previous
	// chunks end (bytes missing or repeated).
	AnomalyOffsetGap = "tape.offset-gap"
	// AnomalyTimeBackwards: a time is negative or earlier than the line
	// before it on the same side (or than the request).
	AnomalyTimeBackwards = "tape.time-backwards"
	// AnomalyBytesMismatch: an end line's bytes is not the sum of the
	// side's chunk lengths.
	AnomalyBytesMismatch = "tape.bytes-mismatch"
	// AnomalyInterrupted: a side (or the whole exchange) has no end line:
	// the recording was cut short (a crash, kill -9, or still running).
	AnomalyInterrupted = "tape.interrupted"
	// AnomalyUnrecorded: the recorder stopped recording a side's data
	// because the capture writer fell behind the wire (or withheld it: a
	// compressed body echoing a secret); the end line counts the bytes
	// that went over the wire unrecorded, and a note says why.
	AnomalyUnrecorded = "tape.unrecorded"
)

// gathering is an exchange being assembled from its records, with what the
// consistency checks need.
type gathering struct {
	x         *Exchange
	firstLine int
	lastLine  int
	// sides holds the checks per side: [0] upstream, [1] client.
	sides [2]sideTally
}

// sideTally follows one side's offsets and times in file order.
type sideTally struct {
	lines    bool // any line of this side seen
	next     int64
	lastT    int64
	lastLine int
	sum      int64
}

func sideIndex(s Side) int {
	if s == Client {
		return 1
	}
	return 0
}

// gatherer groups records into exchanges and checks each one's lines
// against each other. It is shared by [Read] and [ExchangeReader].
type gatherer struct {
	name     string
	byEx     map[int]*gathering
	warnings []error
	notes    []Note
}

func newGatherer(name string) *gatherer {
	return &gatherer{name: name, byEx: make(map[int]*gathering)}
}

// get returns the gathering for ex, creating it (and reporting true) when
// ex is new.
func (g *gatherer) get(ex, line int) (*gathering, bool) {
	if x := g.byEx[ex]; x != nil {
		return x, false
	}
	x := &gathering{x: &Exchange{Ex: ex}, firstLine: line}
	g.byEx[ex] = x
	return x, true
}

// add files one record (not the header) under its exchange. It returns the
// gathering it went to, or nil for a capture-level note.
func (g *gatherer) add(rec Record) *gathering {
	if rec.Kind == KindNote && rec.Note.Ex == 0 {
		g.notes = append(g.notes, *rec.Note)
		return nil
	}
	gx, _ := g.get(rec.Ex(), rec.Line)
	gx.lastLine = rec.Line
	x := gx.x
	dup := func(what string) {
		g.warnings = append(g.warnings, &LineError{File: g.name, Line: rec.Line, Err: fmt.Errorf("second %s for exchange %d; ignored", what, rec.Ex())})
	}
	switch rec.Kind {
	case KindRequest:
		slot := &x.Request
		if rec.Request.Side == Upstream {
			slot = &x.UpstreamRequest
		}
		if *slot != nil {
			dup("request")
			break
		}
		*slot = rec.Request
		if t := rec.Request.T; t < 0 {
			x.note(Anomaly{ID: AnomalyTimeBackwards, Line: rec.Line, Chunk: -1, Message: fmt.Sprintf("the request has a negative time (t=%d)", t)})
		}
	case KindResponse:
		r := rec.Response
		s := x.Side(r.Side)
		if s.Response != nil {
			dup(string(r.Side) + " response")
			break
		}
		s.Response = r
		gx.sideTime(x, r.Side, r.T, rec.Line, -1, 0, func() string { return "the " + string(r.Side) + " response" })
	case KindChunk:
		gx.chunk(rec.Chunk, rec.Line)
	case KindEnd:
		e := rec.End
		s := x.Side(e.Side)
		if s.End != nil {
			dup(string(e.Side) + " end")
			break
		}
		s.End = e
		gx.sideTime(x, e.Side, e.T, rec.Line, -1, 0, func() string { return "the " + string(e.Side) + " end" })
		sum := gx.sides[sideIndex(e.Side)].sum
		switch {
		case e.Unrecorded > 0 && e.Bytes-e.Unrecorded == sum:
			x.note(Anomaly{ID: AnomalyUnrecorded, Side: e.Side, Line: rec.Line, Chunk: -1, Off: sum,
				Message: fmt.Sprintf("the %s side's data was recorded up to byte %d of %d: recording stopped there, the stream itself went on (the exchange's notes say why: the capture writer fell behind the wire, or the recorder withheld the rest)", e.Side, sum, e.Bytes)})
		case e.Bytes != sum:
			x.note(Anomaly{ID: AnomalyBytesMismatch, Side: e.Side, Line: rec.Line, Chunk: -1,
				Message: fmt.Sprintf("the %s end line claims %d bytes, but the side's chunks before it hold %d", e.Side, e.Bytes, sum)})
		}
	case KindNote:
		x.Notes = append(x.Notes, *rec.Note)
	}
	return gx
}

// chunk files chunk c, from line, under the exchange: *c is copied, c
// itself is not kept (so a caller's Chunk can stay on its stack).
func (gx *gathering) chunk(c *Chunk, line int) {
	x := gx.x
	s := x.Side(c.Side)
	i := len(s.Chunks)
	s.Chunks = append(s.Chunks, *c)
	sc := &gx.sides[sideIndex(c.Side)]
	if c.Off != sc.next {
		what := fmt.Sprintf("%d bytes missing", c.Off-sc.next)
		if c.Off < sc.next {
			what = fmt.Sprintf("%d bytes repeated or overlapping", sc.next-c.Off)
		}
		x.note(Anomaly{ID: AnomalyOffsetGap, Side: c.Side, Line: line, Chunk: i, Off: c.Off, T: c.T,
			Message: fmt.Sprintf("chunk %d of the %s side claims offset %d, but the chunks before it end at byte %d: %s", i, c.Side, c.Off, sc.next, what)})
	}
	sc.next = c.Off + int64(len(c.Data))
	sc.sum += int64(len(c.Data))
	gx.sideTime(x, c.Side, c.T, line, i, c.Off, func() string { return fmt.Sprintf("chunk %d of the %s side", i, c.Side) })
}

// sideTime checks a time of side s against the side's previous line; what
// names the line, for the anomaly's message (made only when there is one:
// a Sprintf per chunk cost a reader a sixth of its time).
func (gx *gathering) sideTime(x *Exchange, s Side, t int64, line, chunk int, off int64, what func() string) {
	sc := &gx.sides[sideIndex(s)]
	a := Anomaly{ID: AnomalyTimeBackwards, Side: s, Line: line, Chunk: chunk, Off: off, T: t}
	switch {
	case t < 0:
		a.Message = fmt.Sprintf("%s has a negative time (t=%d)", what(), t)
	case sc.lines && t < sc.lastT:
		a.Message = fmt.Sprintf("%s (t=%d) is earlier than the line before it on that side (t=%d, line %d)", what(), t, sc.lastT, sc.lastLine)
	}
	if a.Message != "" {
		if chunk < 0 {
			a.Off, a.T = 0, 0
		}
		x.note(a)
	}
	sc.lines, sc.lastLine = true, line
	sc.lastT = max(sc.lastT, t)
}

// finish runs the checks that need the whole exchange: an end line per
// side, and no side starting before the request arrived.
func (gx *gathering) finish() *Exchange {
	x := gx.x
	if x.Request != nil {
		for _, s := range []Side{Upstream, Client} {
			sd := x.Side(s)
			first := int64(-1)
			if sd.Response != nil {
				first = sd.Response.T
			} else if len(sd.Chunks) > 0 {
				first = sd.Chunks[0].T
			}
			if first >= 0 && first < x.Request.T {
				x.note(Anomaly{ID: AnomalyTimeBackwards, Side: s, Chunk: -1,
					Message: fmt.Sprintf("the %s side starts (t=%d) before the request was received (t=%d)", s, first, x.Request.T)})
			}
		}
	}
	ended := false
	for _, s := range []Side{Upstream, Client} {
		sd := x.Side(s)
		if sd.End != nil {
			ended = true
			continue
		}
		if gx.sides[sideIndex(s)].lines {
			x.note(Anomaly{ID: AnomalyInterrupted, Side: s, Line: gx.sides[sideIndex(s)].lastLine, Chunk: -1,
				Message: fmt.Sprintf("the %s side has no end line: the recording was cut short (a crash or kill, or it is still running) after %d bytes", s, gx.sides[sideIndex(s)].sum)})
			ended = true // reported per side
		}
	}
	if !ended {
		x.note(Anomaly{ID: AnomalyInterrupted, Line: gx.firstLine, Chunk: -1,
			Message: "the exchange has a request but no response and no end line: the recording was cut short (a crash or kill, or it is still running)"})
	}
	return x
}

// note records an anomaly, folding repeats of the same id and side into a
// count so a hostile capture cannot grow the list without bound.
func (x *Exchange) note(a Anomaly) {
	for i := range x.Anomalies {
		if x.Anomalies[i].ID == a.ID && x.Anomalies[i].Side == a.Side {
			x.Anomalies[i].Count++
			return
		}
	}
	a.Count = 1
	x.Anomalies = append(x.Anomalies, a)
}

// done reports whether every line of the exchange has been read, as far as
// a stream can tell: its request and each side it has are ended, and the
// client side (which a recording ends last) has ended. In a sandwich
// recording (engine profile "external") the upstream leg must be there too.
func (gx *gathering) done(sandwich bool) bool {
	x := gx.x
	if x.Request == nil || x.Client.End == nil {
		return false
	}
	if gx.sides[0].lines && x.Upstream.End == nil {
		return false
	}
	return !sandwich || (x.UpstreamRequest != nil && x.Upstream.End != nil)
}

// settledWithoutClient reports whether an exchange with no client side has
// all its lines: its request and its upstream side, ended.
func (gx *gathering) settledWithoutClient() bool {
	x := gx.x
	return !gx.sides[1].lines && x.Request != nil && x.Upstream.End != nil
}

// open returns the exchanges not yet finished, in order of first line.
func (g *gatherer) open() []*gathering {
	out := make([]*gathering, 0, len(g.byEx))
	for _, gx := range g.byEx {
		out = append(out, gx)
	}
	slices.SortFunc(out, func(a, b *gathering) int { return a.firstLine - b.firstLine })
	return out
}

// Merge joins a continuation, more (the lines of x's exchange an
// [ExchangeReader] read after it had handed x over), to x, as [Read]
// gathers them: a request, response or end x lacks is taken from more,
// and chunks, notes and anomalies are appended. It returns x.
func (x *Exchange) Merge(more *Exchange) *Exchange {
	if x.Request == nil {
		x.Request = more.Request
	}
	if x.UpstreamRequest == nil {
		x.UpstreamRequest = more.UpstreamRequest
	}
	for _, s := range []Side{Upstream, Client} {
		a, b := x.Side(s), more.Side(s)
		if a.Response == nil {
			a.Response = b.Response
		}
		a.Chunks = append(a.Chunks, b.Chunks...)
		if a.End == nil {
			a.End = b.End
		}
	}
	x.Notes = append(x.Notes, more.Notes...)
	x.Anomalies = append(x.Anomalies, more.Anomalies...)
	return x
}
