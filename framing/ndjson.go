package framing

import "bytes"

// shrinkCap is the capacity above which a carry buffer is released after
// use, so one huge frame does not pin memory for the rest of the stream.
const shrinkCap = 1 << 20

// ndjsonParser reads one JSON text per line.
type ndjsonParser struct {
	problem func(Problem)
	off     int64  // bytes fed before the current Feed
	carry   []byte // the start of a line that spans Feeds
	carryAt int64  // its offset
	inLine  bool
	closed  bool
}

func (p *ndjsonParser) Feed(b []byte, emit Emit) {
	if p.closed {
		return
	}
	base := p.off
	p.off += int64(len(b))
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			if !p.inLine {
				p.inLine, p.carryAt = true, base
			}
			p.carry = append(p.carry, b...)
			return
		}
		line, at := b[:nl], base
		if p.inLine {
			p.carry = append(p.carry, line...)
			line, at = p.carry, p.carryAt
		}
		p.line(line, at, true, emit)
		p.release()
		base += int64(nl + 1)
		b = b[nl+1:]
	}
}

func (p *ndjsonParser) Close(emit Emit) {
	if p.closed {
		return
	}
	p.closed = true
	if p.inLine {
		p.line(p.carry, p.carryAt, false, emit)
		p.release()
	}
}

// line emits one line (without its LF) unless it is blank.
func (p *ndjsonParser) line(line []byte, at int64, terminated bool, emit Emit) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(bytes.Trim(line, " \t\r")) == 0 {
		return
	}
	emit(Frame{Start: at, End: at + int64(len(line)), DataOff: at, Terminated: terminated}, line)
}

func (p *ndjsonParser) release() {
	p.inLine = false
	if cap(p.carry) > shrinkCap {
		p.carry = nil
	} else {
		p.carry = p.carry[:0]
	}
}
