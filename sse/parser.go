package sse

import (
	"bytes"
)

const bom = "\xEF\xBB\xBF"

// Line-ending kinds, as bits.
const (
	endLF uint8 = 1 << iota
	endCR
	endCRLF
)

// shrinkCap is the capacity above which the line and data buffers are
// released after use, so one huge event does not pin memory for the rest
// of a long stream.
const shrinkCap = 1 << 20

// MaxLine is the default cap on the bytes of a line a Parser keeps, and on
// the bytes of an event's data: twice the 8 MiB line seam is designed to
// carry, above any event real providers send (a partial image, a
// response.completed repeating the whole output: a few MiB), and small
// enough that a stream that never ends its line (a few bytes of br decode
// to one of 512 MiB) costs at most two caps, its line and its data. The
// bytes past the cap are dropped and the event is marked QuirkTooLong.
const MaxLine = 16 << 20

// Parser is a push parser for an event stream. Feed it bytes as they arrive,
// in any split: inside a line, inside a CRLF pair, inside a UTF-8 rune or the
// BOM. The zero value is ready to use. A Parser is not safe for concurrent
// use.
type Parser struct {
	// OnComment, when set, is called for each comment line (one starting
	// with ':') with its text (the leading ':' and then one leading space
	// removed) and the offset of the line's first byte.
	OnComment func(text string, off int64)
	// OnField, when set, is called for each field the spec does not
	// interpret (any name but data, event, id and retry), which it
	// ignores, with the field's name and value (the one leading space
	// removed) and the offset of the line's first byte: a server that
	// writes "error: …" is heard by no client, but the line is evidence.
	OnField func(name, value string, off int64)
	// Limit is the cap on a line's length and on an event's data, in
	// bytes; 0 means MaxLine. Set it before the first Feed.
	Limit int

	off     int64 // bytes consumed by scan
	bomHeld int   // bytes of a possible BOM held back at the stream start
	bomDone bool
	closed  bool

	line      []byte // bytes of a line that spans Feeds, up to the cap
	inLine    bool   // a line has started and not ended
	lineLong  bool   // that line passed the cap: its bytes past it were dropped
	lineStart int64

	pendingCR       bool // the last byte was a CR ending a line; an LF next joins it
	pendingDispatch bool // that line was blank

	firstEnding uint8
	blockEnd    uint8 // ending kinds seen in the current block

	// Current block.
	started bool
	start   int64
	data    []byte
	hasData bool
	// view is the value of the block's only data line so far while it
	// still lies in the bytes being scanned (viewSet); it is copied into
	// data only when a second data line comes or the scan ends first.
	view    []byte
	viewSet bool
	viewOff int // offset of view in cur

	// cur is the slice being scanned. In Feed (strs set), events whose
	// data is a view into cur take Data from curStr, a copy of cur from
	// curBase on, made once for the first such event.
	strs     bool
	cur      []byte
	curStr   string
	curBase  int
	curSet   bool
	typ      []byte
	hasType  bool
	sawID    bool
	retry    int
	hasRetry bool
	control  bool // event, id or retry seen
	quirks   Quirk
	carry    Quirk // quirks for the next dispatched event

	id       string
	lastType string
}

// Offset returns the number of bytes fed so far.
func (p *Parser) Offset() int64 { return p.off + int64(p.bomHeld) }

// Feed parses b and calls emit for each event dispatched by these bytes.
// An event ended by a blank line whose terminator is a CR at the very end of
// b is dispatched by the next Feed (or Close), because an LF there would
// belong to the same terminator and move End. Feed after Close does nothing.
//
// The Data of events dispatched by one Feed may share one string copied
// from b (at most 64 KiB), instead of one allocation per event.
func (p *Parser) Feed(b []byte, emit func(Event)) {
	p.strs = true
	p.feed(b, func(e Event, _ []byte) { emit(e) })
	p.strs = false
}

// FeedView is Feed for consumers that decode or copy each event at once: it
// calls emit with the event's Data left "" and the data bytes as a view,
// into b or into the Parser's buffer, valid only until emit returns (emit
// must not modify or keep it, or call the Parser). It saves the allocation
// of a string per event. Feed and FeedView may be mixed on one Parser.
func (p *Parser) FeedView(b []byte, emit func(e Event, data []byte)) { p.feed(b, emit) }

// CloseView is Close with the event delivered as by FeedView.
func (p *Parser) CloseView(emit func(e Event, data []byte)) { p.close(emit) }

// viewFunc receives a dispatched event and its data as a view.
type viewFunc = func(e Event, data []byte)

func (p *Parser) feed(b []byte, emit viewFunc) {
	if p.closed {
		return
	}
	for !p.bomDone && len(b) > 0 {
		if b[0] != bom[p.bomHeld] {
			p.releaseBOM(emit)
			break
		}
		p.bomHeld++
		b = b[1:]
		if p.bomHeld == len(bom) {
			p.bomDone = true
			p.bomHeld = 0
			p.off += int64(len(bom))
			p.carry |= QuirkBOM
		}
	}
	if len(b) > 0 {
		p.scan(b, emit)
	}
}

// Close ends the stream. It finishes a pending last line and, when the final
// block has data but was never dispatched by a blank line, emits it with
// Terminated false and End equal to the stream length.
func (p *Parser) Close(emit func(Event)) {
	p.strs = true
	p.close(func(e Event, _ []byte) { emit(e) })
	p.strs = false
}

func (p *Parser) close(emit viewFunc) {
	if p.closed {
		return
	}
	if !p.bomDone {
		p.releaseBOM(emit)
	}
	if p.pendingCR {
		p.pendingCR = false
		p.ending(endCR)
		if p.pendingDispatch {
			p.pendingDispatch = false
			p.dispatch(p.off, true, emit)
		}
	}
	if p.inLine {
		if p.lineLong {
			p.quirks |= QuirkTooLong
		}
		p.field(p.line, p.lineStart, false, p.lineLong)
		p.endLine()
	}
	p.dispatch(p.off, false, emit)
	p.closed = true
}

// limit returns the cap on a line and on an event's data.
func (p *Parser) limit() int {
	if p.Limit > 0 {
		return p.Limit
	}
	return MaxLine
}

// keepLine appends b, bytes of a line that spans Feeds, to the line
// buffer, up to the cap; the bytes past it are dropped.
func (p *Parser) keepLine(b []byte) {
	lim := p.limit()
	if room := lim - len(p.line); len(b) > room {
		b = b[:room]
		p.lineLong = true
	}
	if need := len(p.line) + len(b); need > cap(p.line) {
		// Grow as append would, but never past the cap.
		nb := make([]byte, len(p.line), min(max(2*cap(p.line), need, 512), lim))
		copy(nb, p.line)
		p.line = nb
	}
	p.line = append(p.line, b...)
}

// releaseBOM gives the bytes held as a possible BOM to the line scanner.
func (p *Parser) releaseBOM(emit viewFunc) {
	p.bomDone = true
	n := p.bomHeld
	p.bomHeld = 0
	if n > 0 {
		p.scan([]byte(bom[:n]), emit)
	}
}

// scan splits b into lines, continuing a line started by earlier Feeds.
func (p *Parser) scan(b []byte, emit viewFunc) {
	base := p.off
	p.cur, p.curSet = b, false
	n := len(b)
	i := 0
	if p.pendingCR {
		i = p.endPendingCR(b, base, emit)
	}
	// Next CR and LF at or after i: -2 unknown, -1 none left in b.
	cr, lf := -2, -2
	for i < n {
		if cr != -1 && cr < i {
			cr = indexFrom(b, i, '\r')
		}
		if lf != -1 && lf < i {
			lf = indexFrom(b, i, '\n')
		}
		j := cr
		if j == -1 || (lf != -1 && lf < j) {
			j = lf
		}
		if j == -1 {
			if !p.inLine {
				p.inLine = true
				p.lineStart = base + int64(i)
			}
			p.keepLine(b[i:])
			break
		}
		var line []byte
		inFeed := !p.inLine
		cut := false
		if p.inLine {
			p.keepLine(b[i:j])
			line, cut = p.line, p.lineLong
		} else {
			line = b[i:j]
			p.lineStart = base + int64(i)
			if lim := p.limit(); len(line) > lim {
				line, cut = line[:lim], true
			}
		}
		if cut {
			p.quirks |= QuirkTooLong
		}
		var kind uint8
		if kind, i = lineEnd(b, j); kind == 0 {
			p.pendingCR = true
		}
		if len(line) == 0 {
			if kind == 0 {
				p.pendingDispatch = true
			} else {
				p.ending(kind)
				p.dispatch(base+int64(i), true, emit)
			}
		} else {
			p.field(line, p.lineStart, inFeed, cut)
			if kind != 0 {
				p.ending(kind)
			}
		}
		p.endLine()
	}
	p.off = base + int64(n)
	p.keepView()
	p.cur, p.curStr, p.curSet = nil, "", false
}

// endPendingCR ends the line whose CR was the last byte of the previous
// feed: a CRLF when b starts with the LF, a lone CR else; a blank line
// dispatches. It returns where the next line starts in b.
func (p *Parser) endPendingCR(b []byte, base int64, emit viewFunc) int {
	p.pendingCR = false
	i := 0
	kind := endCR
	if b[0] == '\n' {
		kind = endCRLF
		i = 1
	}
	p.ending(kind)
	if p.pendingDispatch {
		p.pendingDispatch = false
		p.dispatch(base+int64(i), true, emit)
	}
	return i
}

// lineEnd classifies the line ending at b[j], a CR or an LF: its kind and
// where the next line starts. Kind 0 is a CR that is the last byte of b,
// whose LF may be the first of the next feed.
func lineEnd(b []byte, j int) (kind uint8, next int) {
	switch {
	case b[j] == '\n':
		return endLF, j + 1
	case j+1 == len(b):
		return 0, j + 1
	case b[j+1] == '\n':
		return endCRLF, j + 2
	}
	return endCR, j + 1
}

// keepView copies a pending data view into data, before the bytes it
// points into go away.
func (p *Parser) keepView() {
	if p.viewSet {
		p.data = append(p.data, p.view...)
		p.data = append(p.data, '\n')
		p.view, p.viewSet = nil, false
	}
}

func indexFrom(b []byte, i int, c byte) int {
	k := bytes.IndexByte(b[i:], c)
	if k < 0 {
		return -1
	}
	return i + k
}

func (p *Parser) endLine() {
	p.inLine, p.lineLong = false, false
	if cap(p.line) > shrinkCap {
		p.line = nil
	} else {
		p.line = p.line[:0]
	}
}

// ending records the terminator kind of the line just parsed.
func (p *Parser) ending(kind uint8) {
	if p.firstEnding == 0 {
		p.firstEnding = kind
	}
	if p.started {
		p.blockEnd |= kind
	}
}
