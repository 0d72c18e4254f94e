package framing

import "bytes"

// shrinkCap is the capacity above which a carry buffer is released after
// use, so one huge frame does not pin memory for the rest of the stream.
const shrinkCap = 1 << 20

// ndjsonParser reads one JSON text per line.
type ndjsonParser struct {
	problem func(Problem)
	limit   int    // the cap on a line (MaxFrame)
	off     int64  // bytes fed before the current Feed
	carry   []byte // the start of a line that spans Feeds, up to the cap
	carryAt int64  // its offset
	lineLen int64  // its length, the bytes past the cap counted
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
				p.inLine, p.carryAt, p.lineLen = true, base, 0
			}
			p.keep(b)
			return
		}
		line, at, n := b[:nl], base, int64(nl)
		if p.inLine {
			p.keep(line)
			line, at, n = p.carry, p.carryAt, p.lineLen
		}
		p.line(line, at, n, true, emit)
		p.release()
		base += int64(nl + 1)
		b = b[nl+1:]
	}
}

// keep appends b, bytes of a line that spans Feeds, to the carry while the
// line is within the cap; past it the carry is dropped and only the length
// is counted.
func (p *ndjsonParser) keep(b []byte) {
	p.lineLen += int64(len(b))
	if p.lineLen > int64(p.limit) {
		p.carry = nil
		return
	}
	p.carry = append(p.carry, b...)
}

func (p *ndjsonParser) Close(emit Emit) {
	if p.closed {
		return
	}
	p.closed = true
	if p.inLine {
		p.line(p.carry, p.carryAt, p.lineLen, false, emit)
		p.release()
	}
}

// line emits one line of n bytes (without its LF) unless it is blank, or
// reports it when it is longer than the cap (line then holds nothing).
func (p *ndjsonParser) line(line []byte, at, n int64, terminated bool, emit Emit) {
	if n > int64(p.limit) {
		p.problem(tooLong("an NDJSON line", at, n, p.limit))
		return
	}
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
