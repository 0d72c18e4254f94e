package sse

import (
	"bytes"
	"unicode/utf8"
)

// What a line's field does to the event being built (data, event, id,
// retry, and the fields the spec ignores), and the event's dispatch.

// field interprets one non-blank line that starts at offset off. inFeed
// is true when line lies in the bytes being scanned (not in p.line); cut
// when it is the first bytes of a longer line, up to the cap.
func (p *Parser) field(line []byte, off int64, inFeed, cut bool) {
	if !p.started {
		p.started = true
		p.start = off
	}
	if p.quirks&QuirkInvalidUTF8 == 0 && !utf8.Valid(line) {
		p.quirks |= QuirkInvalidUTF8
	}
	if line[0] == ':' {
		p.comment(line, off)
		return
	}
	name, value := line, line[len(line):]
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		name, value = line[:c], line[c+1:]
		switch {
		case len(value) == 0:
		case value[0] != ' ':
			p.quirks |= QuirkNoSpace
		default:
			value = value[1:]
			if len(value) > 0 && value[0] == ' ' {
				p.quirks |= QuirkExtraSpace
			}
		}
	} else {
		p.quirks |= QuirkNoColon
		if cut {
			// The cap cut the field name: a name longer than the cap is
			// none of the known ones.
			p.quirks |= QuirkUnknownField
			return
		}
	}
	switch string(name) {
	case "data":
		if p.hasData {
			p.quirks |= QuirkMultiLineData
		}
		if !p.hasData && inFeed {
			p.hasData = true
			p.view, p.viewSet = value, true
			p.viewOff = int(off-p.off) + len(line) - len(value)
			return
		}
		if !p.hasData && !inFeed && len(p.data) == 0 && cap(p.line) > len(value) {
			// The block's first data line, held in the line buffer: the
			// buffer becomes the data buffer (the value moved to its
			// start), rather than a copy of a line up to the cap.
			p.hasData = true
			n := copy(p.line, value)
			p.data, p.line = append(p.line[:n], '\n'), p.data[:0]
			return
		}
		p.hasData = true
		p.appendData(value)
	case "event":
		if p.hasType {
			p.quirks |= QuirkDuplicateField
		}
		p.hasType = true
		p.control = true
		p.typ = append(p.typ[:0], value...)
	case "id":
		p.idField(value)
	case "retry":
		p.retryField(value)
	default:
		p.unknownField(name, value, off)
	}
}

// comment reports a comment line (its text after the colon and one
// space) to OnComment.
func (p *Parser) comment(line []byte, off int64) {
	p.quirks |= QuirkComment
	if p.OnComment != nil {
		text := line[1:]
		if len(text) > 0 && text[0] == ' ' {
			text = text[1:]
		}
		p.OnComment(string(text), off)
	}
}

// appendData copies a data line's value into the event's data, with the
// "\n" that joins it to the next; the data (its last "\n" aside) is kept
// up to the cap.
func (p *Parser) appendData(value []byte) {
	p.keepView()
	room := p.limit() - len(p.data)
	if len(value) > room {
		p.quirks |= QuirkTooLong
		if room < 0 {
			return // the data is full: this line adds nothing
		}
		value = value[:room]
	}
	p.data = append(p.data, value...)
	p.data = append(p.data, '\n')
}

// idField sets the last event id, unless the value holds a NUL (the spec
// ignores such a field).
func (p *Parser) idField(value []byte) {
	if bytes.IndexByte(value, 0) >= 0 {
		p.quirks |= QuirkNULInID
		return
	}
	if p.sawID {
		p.quirks |= QuirkDuplicateField
	}
	p.sawID = true
	p.control = true
	if string(value) != p.id {
		p.id = string(value)
	}
}

// retryField sets the reconnection time, when the value is only ASCII
// digits.
func (p *Parser) retryField(value []byte) {
	v, ok := parseRetry(value)
	if !ok {
		p.quirks |= QuirkBadRetry
		return
	}
	p.retry, p.hasRetry = v, true
	p.control = true
}

// unknownField reports a field the spec ignores to OnField.
func (p *Parser) unknownField(name, value []byte, off int64) {
	p.quirks |= QuirkUnknownField
	if bytes.HasPrefix(name, []byte(bom)) {
		p.quirks |= QuirkStrayBOM
	}
	if p.OnField != nil {
		p.OnField(string(name), string(value), off)
	}
}

// parseRetry accepts one or more ASCII digits, clamping at the largest int.
func parseRetry(v []byte) (int, bool) {
	if len(v) == 0 {
		return 0, false
	}
	const maxInt = int(^uint(0) >> 1)
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int(c - '0')
		if n > (maxInt-d)/10 {
			n = maxInt
		} else {
			n = n*10 + d
		}
	}
	return n, true
}

// dispatch ends the current block at offset end, emitting it when it has
// data, and resets the block state.
func (p *Parser) dispatch(end int64, terminated bool, emit viewFunc) {
	if !p.started {
		return
	}
	if p.hasData {
		q := p.quirks | p.carry
		if p.blockEnd&endCR != 0 {
			q |= QuirkCR
		}
		if p.blockEnd&endCRLF != 0 {
			q |= QuirkCRLF
		}
		if p.blockEnd&^p.firstEnding != 0 {
			q |= QuirkMixedEndings
		}
		ev := Event{
			Type:       p.typeString(),
			Data:       p.dataString(),
			ID:         p.id,
			Retry:      -1,
			Start:      p.start,
			End:        end,
			Terminated: terminated,
			Quirks:     q,
		}
		if p.hasRetry {
			ev.Retry = p.retry
		}
		// The view stays valid after reset: reset only reslices p.data or
		// drops it, and nothing appends to it until emit returns.
		var data []byte
		if p.viewSet {
			data = p.view
		} else {
			data = p.data[:len(p.data)-1]
		}
		p.carry = 0
		p.reset()
		emit(ev, data)
		return
	}
	if p.control {
		p.carry |= QuirkSkippedBlock
	}
	p.reset()
}

// Feed copies the rest of b into one string shared by the Data of the
// events it dispatches when that rest is between sharedMin bytes (below,
// too few events share it to beat one allocation each) and sharedMax bytes
// (above, a large Feed holding little data would cost a large copy).
const (
	sharedMin = 4 << 10
	sharedMax = 64 << 10
)

// dataString returns the current block's data as Event.Data in Feed mode
// (and "" otherwise, where the data goes out as a view).
func (p *Parser) dataString() string {
	if !p.strs {
		return ""
	}
	if !p.viewSet {
		return string(p.data[:len(p.data)-1])
	}
	if !p.curSet || p.viewOff < p.curBase {
		if n := len(p.cur) - p.viewOff; n < sharedMin || n > sharedMax {
			return string(p.view)
		}
		p.curStr, p.curBase, p.curSet = string(p.cur[p.viewOff:]), p.viewOff, true
	}
	i := p.viewOff - p.curBase
	return p.curStr[i : i+len(p.view)]
}

func (p *Parser) typeString() string {
	if !p.hasType {
		return ""
	}
	if string(p.typ) != p.lastType {
		p.lastType = string(p.typ)
	}
	return p.lastType
}

func (p *Parser) reset() {
	p.started = false
	p.hasData = false
	p.view, p.viewSet = nil, false
	if cap(p.data) > shrinkCap {
		p.data = nil
	} else {
		p.data = p.data[:0]
	}
	p.typ = p.typ[:0]
	p.hasType = false
	p.sawID = false
	p.hasRetry = false
	p.control = false
	p.quirks = 0
	p.blockEnd = 0
}
