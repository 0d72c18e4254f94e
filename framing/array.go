package framing

import "strconv"

// arrayParser reads a JSON array element by element as the body grows.
type arrayParser struct {
	problem func(Problem)
	limit   int   // the cap on an element (MaxFrame)
	off     int64 // bytes fed before the current Feed
	st      arrayState
	closed  bool

	// The element being read.
	start   int64
	carry   []byte // its bytes from earlier Feeds, while within the cap
	long    bool   // it is longer than the cap: carry is dropped
	depth   int
	inStr   bool
	esc     bool
	scalar  bool // a string, number or literal at the top level
	elems   int
	junkAt  int64 // first byte that is not the array (aJunk, aNotArray)
	junkLen int64
}

type arrayState uint8

const (
	aBefore   arrayState = iota // before '['
	aFirst                      // after '[': an element or ']'
	aElem                       // after ',': an element
	aValue                      // inside an element
	aAfter                      // after an element: ',' or ']'
	aDone                       // after ']': whitespace only
	aJunk                       // bytes after ']' were seen
	aNotArray                   // the body does not start with '['
)

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (p *arrayParser) Feed(b []byte, emit Emit) {
	if p.closed {
		return
	}
	base := p.off
	p.off += int64(len(b))
	from := 0 // first byte of b belonging to the element being read
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch p.st {
		case aBefore:
			if !isJSONSpace(c) && p.before(c, base+int64(i), len(b)-i) {
				return
			}
		case aFirst, aElem:
			if !isJSONSpace(c) && p.elemStart(c, base+int64(i)) {
				from = i
			}
		case aValue:
			if p.inStr {
				switch {
				case p.esc:
					p.esc = false
				case c == '\\':
					p.esc = true
				case c == '"':
					p.inStr = false
				}
				continue
			}
			if p.scalar {
				if c == ',' || c == ']' || isJSONSpace(c) {
					p.finish(b[from:i], base+int64(i), emit)
					i-- // the delimiter is read in aAfter
				}
				continue
			}
			switch c {
			case '"':
				p.inStr = true
			case '{', '[':
				p.depth++
			case '}', ']':
				p.depth--
				if p.depth == 0 {
					p.finish(b[from:i+1], base+int64(i)+1, emit)
				}
			}
		case aAfter:
			if !isJSONSpace(c) && p.after(c, base+int64(i)) {
				i--
			}
		case aDone, aJunk:
			if !isJSONSpace(c) {
				p.trailing(base + int64(i))
			}
		case aNotArray:
			p.junkLen += int64(len(b) - i)
			return
		}
	}
	if p.st == aValue {
		p.keep(b[from:], base+int64(len(b)))
	}
}

// before reads byte c (not whitespace, at offset at) before the array: the
// '[' that opens it, or anything else, which makes the body not an array:
// the rest bytes left in the feed are junk, and before returns true.
func (p *arrayParser) before(c byte, at int64, rest int) bool {
	if c == '[' {
		p.st = aFirst
		return false
	}
	p.st, p.junkAt = aNotArray, at
	p.junkLen = int64(rest)
	return true
}

// elemStart reads byte c (not whitespace, at offset at) where an element
// is due, and returns true when it starts one: a ']' closes an empty
// array; a ',' or a ']' after a ',' is a missing element.
func (p *arrayParser) elemStart(c byte, at int64) bool {
	if c == ']' && p.st == aFirst {
		p.st = aDone
		return false
	}
	if c == ']' || c == ',' {
		p.junk(at, "an array element is missing before "+strconv.QuoteRune(rune(c)))
		if c == ']' {
			p.st = aDone
		}
		return false
	}
	p.st, p.start = aValue, at
	p.depth, p.inStr, p.esc, p.scalar = 0, false, false, c != '{' && c != '['
	if !p.scalar {
		p.depth = 1
		return true
	}
	if c == '"' {
		p.inStr = true
	}
	return true
}

// after reads byte c (not whitespace, at offset at) after an element: ','
// or ']'. Anything else is junk, and after returns true: c is read again
// as the start of an element.
func (p *arrayParser) after(c byte, at int64) bool {
	switch c {
	case ',':
		p.st = aElem
	case ']':
		p.st = aDone
	default:
		p.junk(at, "array elements are not separated by ','")
		p.st = aElem
		return true
	}
	return false
}

// trailing counts a byte other than whitespace (at offset at) after the
// array's ']' as junk.
func (p *arrayParser) trailing(at int64) {
	if p.st == aDone {
		p.st, p.junkAt = aJunk, at
	}
	p.junkLen = at + 1 - p.junkAt
}

// keep appends b, the bytes of the element being read up to end, to the
// carry while the element is within the cap; past it the carry is
// dropped.
func (p *arrayParser) keep(b []byte, end int64) {
	if p.long || end-p.start > int64(p.limit) {
		p.long, p.carry = true, nil
		return
	}
	p.carry = append(p.carry, b...)
}

// finish emits the element whose last bytes (in the current Feed) are
// tail, ending at offset end, or reports it when it is longer than the
// cap.
func (p *arrayParser) finish(tail []byte, end int64, emit Emit) {
	p.elems++
	if n := end - p.start; p.long || n > int64(p.limit) {
		p.problem(tooLong("array element "+strconv.Itoa(p.elems-1), p.start, n, p.limit))
		p.long, p.carry = false, nil
		p.st = aAfter
		return
	}
	data := tail
	if len(p.carry) > 0 {
		p.carry = append(p.carry, tail...)
		data = p.carry
	}
	emit(Frame{Start: p.start, End: p.start + int64(len(data)), DataOff: p.start, Terminated: true}, data)
	if cap(p.carry) > shrinkCap {
		p.carry = nil
	} else {
		p.carry = p.carry[:0]
	}
	p.st = aAfter
}

func (p *arrayParser) junk(at int64, msg string) {
	p.problem(Problem{Kind: Corrupt, Off: at, Len: 1, Msg: msg})
}

func (p *arrayParser) Close(emit Emit) {
	if p.closed {
		return
	}
	p.closed = true
	switch p.st {
	case aValue:
		p.problem(Problem{Kind: Cut, Off: p.off, Msg: "the body ends inside array element " + strconv.Itoa(p.elems) + " (no closing ']')"})
		if p.long {
			p.problem(tooLong("array element "+strconv.Itoa(p.elems), p.start, p.off-p.start, p.limit))
		} else {
			emit(Frame{Start: p.start, End: p.start + int64(len(p.carry)), DataOff: p.start, Terminated: false}, p.carry)
		}
		p.carry = nil
	case aFirst, aElem, aAfter:
		p.problem(Problem{Kind: Cut, Off: p.off, Msg: "the body ends before the array's closing ']'"})
	case aJunk:
		p.problem(Problem{Kind: Corrupt, Off: p.junkAt, Len: p.junkLen, Msg: strconv.FormatInt(p.junkLen, 10) + " bytes after the array's closing ']'"})
	case aNotArray:
		p.problem(Problem{Kind: Corrupt, Off: p.junkAt, Len: p.junkLen, Msg: "the body is not a JSON array"})
	}
}
