package jsontext

import "iter"

// Scanner reads one JSON document in a single pass, checking every byte it
// passes over as ScanValue does. It accepts exactly what gjson.Valid accepts
// and yields values as gjson's ForEach would, so a decoder can read the
// fields it routes by while validating, instead of a validation pass
// followed by one ForEach pass per nesting level. After any syntax error
// the position moves to the end, which ends every loop, and End reports
// false.
type Scanner struct {
	s   string
	i   int
	bad bool
}

// NewScanner returns a Scanner at the start of s.
func NewScanner(s string) Scanner { return Scanner{s: s} }

func (sc *Scanner) fail() {
	sc.bad = true
	sc.i = len(sc.s)
}

// Peek skips whitespace and returns the next byte, or 0 at the end.
func (sc *Scanner) Peek() byte {
	sc.i = SkipSpace(sc.s, sc.i)
	if sc.i < len(sc.s) {
		return sc.s[sc.i]
	}
	return 0
}

// Mark skips whitespace and returns the position, where the next value
// starts; Since(Mark()) is then the text of the values read after it.
func (sc *Scanner) Mark() int {
	sc.i = SkipSpace(sc.s, sc.i)
	return sc.i
}

// Since returns the text from the position mark to the current one.
func (sc *Scanner) Since(mark int) string { return sc.s[mark:sc.i] }

// Failed reports whether the scanner has met a syntax error.
func (sc *Scanner) Failed() bool { return sc.bad }

// Ahead returns up to n bytes of the input from the position, after
// whitespace, without reading them.
func (sc *Scanner) Ahead(n int) string {
	sc.i = SkipSpace(sc.s, sc.i)
	return sc.s[sc.i:min(sc.i+n, len(sc.s))]
}

// Accept consumes text when the input continues with it, after
// whitespace, and reports whether it did. text must be a whole value this
// or another Scanner has read (a value is valid wherever it stands, so
// its bytes are not checked again); it is compared, not scanned.
//
// The last bytes are compared first: texts that start alike (one prompt
// repeated a different number of times) differ soonest at their ends.
func (sc *Scanner) Accept(text string) bool {
	sc.i = SkipSpace(sc.s, sc.i)
	rest := sc.s[sc.i:]
	if len(rest) < len(text) {
		return false
	}
	if k := max(len(text)-16, 0); rest[k:len(text)] != text[k:] || rest[:k] != text[:k] {
		return false
	}
	sc.i += len(text)
	return true
}

// End reports whether the document was valid and nothing but whitespace
// follows the values read.
func (sc *Scanner) End() bool {
	return !sc.bad && SkipSpace(sc.s, sc.i) == len(sc.s)
}

// Open consumes c (an opening bracket) when it is the next byte.
func (sc *Scanner) Open(c byte) bool {
	if sc.Peek() == c {
		sc.i++
		return true
	}
	return false
}

// Members yields the key of each member of the object being read (its
// opening brace consumed), with the position at that member's value, which
// the loop body must consume (read or skip). It stops at the closing brace
// or on error.
func (sc *Scanner) Members() iter.Seq[string] {
	return func(yield func(string) bool) {
		for n := 0; ; {
			k, ok := sc.member(&n)
			if !ok || !yield(k) {
				return
			}
		}
	}
}

// Object yields the keys of the object value at the position, as Members
// does, the loop body consuming each member's value; a value of another
// kind is skipped (checked) and yields nothing.
func (sc *Scanner) Object() iter.Seq[string] {
	return func(yield func(string) bool) {
		if !sc.Open('{') {
			sc.Skip()
			return
		}
		for k := range sc.Members() {
			if !yield(k) {
				return
			}
		}
	}
}

// member advances to the next member of the object being read, returning
// its key; the position is then at the member's value. n counts the members
// read so far. It returns false at the closing brace or on error.
func (sc *Scanner) member(n *int) (string, bool) {
	s := sc.s
	i := SkipSpace(s, sc.i)
	if i >= len(s) {
		sc.fail()
		return "", false
	}
	if s[i] == '}' {
		sc.i = i + 1
		return "", false
	}
	if *n > 0 {
		if s[i] != ',' {
			sc.fail()
			return "", false
		}
		i = SkipSpace(s, i+1)
		if i >= len(s) {
			sc.fail()
			return "", false
		}
	}
	if s[i] != '"' {
		sc.fail()
		return "", false
	}
	end, f, ok := ScanString(s, i)
	if !ok {
		sc.fail()
		return "", false
	}
	key := s[i+1 : end-1]
	if f&Escaped != 0 {
		key = Unescape(key)
	}
	i = SkipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		sc.fail()
		return "", false
	}
	sc.i = SkipSpace(s, i+1)
	*n++
	return key, true
}

// Elem advances to the next element of the array being read (its opening
// bracket consumed). n counts the elements read so far. It returns false
// at the closing bracket or on error.
func (sc *Scanner) Elem(n *int) bool {
	s := sc.s
	i := SkipSpace(s, sc.i)
	if i >= len(s) {
		sc.fail()
		return false
	}
	if s[i] == ']' {
		sc.i = i + 1
		return false
	}
	if *n > 0 {
		if s[i] != ',' {
			sc.fail()
			return false
		}
		i = SkipSpace(s, i+1)
	}
	sc.i = i
	*n++
	return true
}

// Value reads any value.
func (sc *Scanner) Value() Value {
	s := sc.s
	i := SkipSpace(s, sc.i)
	if i < len(s) && s[i] == '"' {
		str, ok := sc.string(i)
		if !ok {
			return Value{}
		}
		return Value{Kind: String, Raw: s[i:sc.i], Str: str, Off: i}
	}
	end, k, ok := ScanValue(s, i, 0)
	if !ok {
		sc.fail()
		return Value{}
	}
	sc.i = end
	return Value{Kind: k, Raw: s[i:end], Off: i}
}

// string reads the string at i and returns its decoded text.
func (sc *Scanner) string(i int) (string, bool) {
	end, f, ok := ScanString(sc.s, i)
	if !ok {
		sc.fail()
		return "", false
	}
	sc.i = end
	if f&Escaped != 0 {
		return Unescape(sc.s[i+1 : end-1]), true
	}
	return sc.s[i+1 : end-1], true
}

// Str reads a value and returns it as gjson's Result.String would, without
// building a Value for the common string and null cases.
func (sc *Scanner) Str() string {
	s := sc.s
	i := SkipSpace(s, sc.i)
	if i < len(s) && s[i] == '"' {
		end, f, ok := ScanString(s, i)
		if !ok {
			sc.fail()
			return ""
		}
		sc.i = end
		if f&Escaped != 0 {
			return Unescape(s[i+1 : end-1])
		}
		return s[i+1 : end-1]
	}
	if i+4 <= len(s) && s[i:i+4] == "null" {
		sc.i = i + 4
		return ""
	}
	sc.i = i
	return sc.Value().String()
}

// Text reads a value and, when it is a string, returns its decoded text
// and true without building a Value; otherwise it returns the Value (an
// absent one after a syntax error).
func (sc *Scanner) Text() (string, Value, bool) {
	s := sc.s
	i := SkipSpace(s, sc.i)
	if i < len(s) && s[i] == '"' {
		str, ok := sc.string(i)
		return str, Value{}, ok
	}
	sc.i = i
	return "", sc.Value(), false
}

// Int reads a value and returns it as gjson's Result.Int would.
func (sc *Scanner) Int() int64 {
	s := sc.s
	i := SkipSpace(s, sc.i)
	if n, end, ok := ScanInt(s, i); ok && end-i <= 15 { // exact in a float64, as gjson reads it
		sc.i = end
		return n
	}
	sc.i = i
	return sc.Value().Int()
}

// Raw reads any value and returns its text.
func (sc *Scanner) Raw() string {
	i := SkipSpace(sc.s, sc.i)
	end, _, ok := ScanValue(sc.s, i, 0)
	if !ok {
		sc.fail()
		return ""
	}
	sc.i = end
	return sc.s[i:end]
}

// True reads a value and reports whether it is true.
func (sc *Scanner) True() bool {
	v := sc.Value()
	return v.Kind == Bool && v.Raw[0] == 't'
}

// Skip reads and discards any value.
func (sc *Scanner) Skip() {
	end, _, ok := ScanValue(sc.s, SkipSpace(sc.s, sc.i), 0)
	if !ok {
		sc.fail()
		return
	}
	sc.i = end
}
