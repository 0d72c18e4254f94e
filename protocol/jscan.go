package protocol

import (
	"iter"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// jscan reads one JSON document in a single pass, validating every byte it
// passes over. It accepts exactly what gjson.Valid accepts (RFC 8259 JSON;
// the bytes of strings are not checked for UTF-8) and yields values as
// gjson's ForEach would, so the decoders in decode.go can read the fields
// they route by while validating, instead of a validation pass followed by
// one ForEach pass per nesting level. After any syntax error bad is set and
// the position moves to the end, which ends every loop.
type jscan struct {
	s   string
	i   int
	bad bool
}

// jval is one value read by jscan.
type jval struct {
	k   Kind
	raw string
	str string // the unescaped value of a string
	off int    // offset of raw in the document
}

func (sc *jscan) fail() {
	sc.bad = true
	sc.i = len(sc.s)
}

// peek skips whitespace and returns the next byte, or 0 at the end.
func (sc *jscan) peek() byte {
	sc.i = jsWS(sc.s, sc.i)
	if sc.i < len(sc.s) {
		return sc.s[sc.i]
	}
	return 0
}

// end reports whether the document was valid and nothing but whitespace
// follows the value read.
func (sc *jscan) end() bool {
	return !sc.bad && jsWS(sc.s, sc.i) == len(sc.s)
}

// open consumes c (an opening bracket) when it is the next byte.
func (sc *jscan) open(c byte) bool {
	if sc.peek() == c {
		sc.i++
		return true
	}
	return false
}

// members yields the key of each member of the object being read, with
// the position at that member's value, which the loop body must consume
// (read or skip). It stops at the closing brace or on error.
func (sc *jscan) members() iter.Seq[string] {
	return func(yield func(string) bool) {
		for n := 0; ; {
			k, ok := sc.member(&n)
			if !ok || !yield(k) {
				return
			}
		}
	}
}

// object yields the keys of the object value at the position, as members
// does, the loop body consuming each member's value; a value of another
// kind is skipped (validated) and yields nothing.
func (sc *jscan) object() iter.Seq[string] {
	return func(yield func(string) bool) {
		if !sc.open('{') {
			sc.skip()
			return
		}
		for k := range sc.members() {
			if !yield(k) {
				return
			}
		}
	}
}

// member advances to the next member of the object being read, returning
// its key; the position is then at the member's value. n counts the members
// read so far. It returns false at the closing brace or on error.
func (sc *jscan) member(n *int) (string, bool) {
	s := sc.s
	i := jsWS(s, sc.i)
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
		i = jsWS(s, i+1)
		if i >= len(s) {
			sc.fail()
			return "", false
		}
	}
	if s[i] != '"' {
		sc.fail()
		return "", false
	}
	end, esc, ok := jsString(s, i)
	if !ok {
		sc.fail()
		return "", false
	}
	key := s[i+1 : end-1]
	if esc {
		key = unescapeJSON(key)
	}
	i = jsWS(s, end)
	if i >= len(s) || s[i] != ':' {
		sc.fail()
		return "", false
	}
	sc.i = jsWS(s, i+1)
	*n++
	return key, true
}

// elem advances to the next element of the array being read. n counts the
// elements read so far. It returns false at the closing bracket or on
// error.
func (sc *jscan) elem(n *int) bool {
	s := sc.s
	i := jsWS(s, sc.i)
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
		i = jsWS(s, i+1)
	}
	sc.i = i
	*n++
	return true
}

// val reads any value.
func (sc *jscan) val() jval {
	s := sc.s
	i := jsWS(s, sc.i)
	end, k, esc, ok := jsSkip(s, i)
	if !ok {
		sc.fail()
		return jval{}
	}
	sc.i = end
	v := jval{k: k, raw: s[i:end], off: i}
	if k == jString {
		v.str = s[i+1 : end-1]
		if esc {
			v.str = unescapeJSON(v.str)
		}
	}
	return v
}

// str reads a value and returns it as Result.String would, without
// building a jval for the common string and null cases.
func (sc *jscan) str() string {
	s := sc.s
	i := jsWS(s, sc.i)
	if i < len(s) && s[i] == '"' {
		end, esc, ok := jsString(s, i)
		if !ok {
			sc.fail()
			return ""
		}
		sc.i = end
		if esc {
			return unescapeJSON(s[i+1 : end-1])
		}
		return s[i+1 : end-1]
	}
	if i+4 <= len(s) && s[i:i+4] == "null" {
		sc.i = i + 4
		return ""
	}
	sc.i = i
	return sc.val().String()
}

// jv reads a value and returns it as the reference decoder's mkjv (decode_ref_test.go) would.
func (sc *jscan) jv() Value {
	s := sc.s
	i := jsWS(s, sc.i)
	if i < len(s) && s[i] == '"' {
		end, esc, ok := jsString(s, i)
		if !ok {
			sc.fail()
			return Value{}
		}
		sc.i = end
		if esc {
			return Value{s: unescapeJSON(s[i+1 : end-1]), k: jString}
		}
		return Value{s: s[i+1 : end-1], k: jString}
	}
	sc.i = i
	return sc.val().jv()
}

// int reads a value and returns it as Result.Int would.
func (sc *jscan) int() int64 {
	s := sc.s
	i := jsWS(s, sc.i)
	if i < len(s) && s[i] >= '0' && s[i] <= '9' {
		end, ok := jsNumber(s, i)
		if ok && end-i <= 15 && plainInt(s[i:end]) {
			sc.i = end
			n, _ := strconv.ParseInt(s[i:end], 10, 64)
			return n
		}
	}
	sc.i = i
	return sc.val().Int()
}

// raw reads any value and returns its raw text.
func (sc *jscan) raw() RawJSON {
	i := jsWS(sc.s, sc.i)
	end, _, _, ok := jsSkip(sc.s, i)
	if !ok {
		sc.fail()
		return ""
	}
	sc.i = end
	return RawJSON(sc.s[i:end])
}

// truth reads a value and reports whether it is true.
func (sc *jscan) truth() bool {
	v := sc.val()
	return v.k == jBool && v.raw[0] == 't'
}

// skip reads and discards any value.
func (sc *jscan) skip() {
	end, _, _, ok := jsSkip(sc.s, jsWS(sc.s, sc.i))
	if !ok {
		sc.fail()
		return
	}
	sc.i = end
}

// jv returns the value as the reference decoder's mkjv (decode_ref_test.go) would.
func (v jval) jv() Value {
	switch v.k {
	case jString:
		return Value{s: v.str, k: jString}
	case jNull:
		return Value{k: jNull}
	}
	return Value{s: v.raw, k: v.k}
}

// String returns what gjson's Result.String returns for the value.
func (v jval) String() string {
	switch v.k {
	case jString:
		return v.str
	case jNull, jAbsent:
		return ""
	case jNumber:
		if plainInt(v.raw) {
			return v.raw
		}
		return v.result().String()
	}
	return v.raw
}

// Int returns what gjson's Result.Int returns for the value.
func (v jval) Int() int64 {
	if v.k == jNumber && plainInt(v.raw) && len(v.raw) <= 15 {
		n, _ := strconv.ParseInt(v.raw, 10, 64)
		return n
	}
	return v.result().Int()
}

// result returns the value as the gjson.Result ForEach yields for it.
func (v jval) result() gjson.Result {
	r := gjson.Result{Raw: v.raw, Index: v.off}
	switch v.k {
	case jAbsent:
		return gjson.Result{}
	case jNull:
		r.Type = gjson.Null
	case jBool:
		r.Type = gjson.False
		if v.raw[0] == 't' {
			r.Type = gjson.True
		}
	case jNumber:
		r.Type = gjson.Number
		r.Num, _ = strconv.ParseFloat(v.raw, 64)
	case jString:
		r.Type = gjson.String
		r.Str = v.str
	default:
		r.Type = gjson.JSON
	}
	return r
}

// plainInt reports whether s is an optional '-' followed by digits only.
func plainInt(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// jsWS returns the position of the first non-whitespace byte at or after i.
func jsWS[S ~string | ~[]byte](s S, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// jsString validates the string whose opening quote is at i and returns the
// position after its closing quote and whether it has escapes.
func jsString(s string, i int) (end int, esc, ok bool) {
	i++
	for {
		// Skip eight plain bytes at a time: none is a quote, a backslash
		// or a control byte. The test has no false negatives; on a hit it
		// jumps to the first such byte, and the byte loop takes the tail.
		for i+8 <= len(s) {
			x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			q := x ^ (lsb * '"')
			b := x ^ (lsb * '\\')
			if m := ((q-lsb)&^q | (b-lsb)&^b | (x-lsb*' ')&^x) & msb; m != 0 {
				// The lowest flagged lane is a true hit (a false
				// positive needs a borrow from a lower hit).
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(s) && s[i] >= ' ' && s[i] != '"' && s[i] != '\\' {
			i++
		}
		if i >= len(s) {
			return i, esc, false
		}
		switch s[i] {
		case '"':
			return i + 1, esc, true
		case '\\':
			esc = true
			i++
			if i >= len(s) {
				return i, esc, false
			}
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s) {
					return i, esc, false
				}
				for _, h := range []byte(s[i+1 : i+5]) {
					if !isHex(h) {
						return i, esc, false
					}
				}
				i += 4
			default:
				return i, esc, false
			}
			i++
		default: // a control byte
			return i, esc, false
		}
	}
}

// Byte-lane constants for jsString's eight-byte test.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// jsNumber validates the number starting at i.
func jsNumber(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) || s[i] < '0' || s[i] > '9' {
		return i, false
	}
	if s[i] == '0' {
		i++
	} else {
		i = jsDigits(s, i)
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return i, false
		}
		i = jsDigits(s, i)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return i, false
		}
		i = jsDigits(s, i)
	}
	return i, true
}

func jsDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// jsScalar validates the non-container value at i and returns its end and
// kind.
func jsScalar(s string, i int) (end int, k Kind, esc, ok bool) {
	if i >= len(s) {
		return i, jAbsent, false, false
	}
	switch c := s[i]; c {
	case '"':
		end, esc, ok = jsString(s, i)
		return end, jString, esc, ok
	case 't':
		return i + 4, jBool, false, len(s) >= i+4 && s[i:i+4] == "true"
	case 'f':
		return i + 5, jBool, false, len(s) >= i+5 && s[i:i+5] == "false"
	case 'n':
		return i + 4, jNull, false, len(s) >= i+4 && s[i:i+4] == "null"
	default:
		if c == '-' || c >= '0' && c <= '9' {
			end, ok = jsNumber(s, i)
			return end, jNumber, false, ok
		}
	}
	return i, jAbsent, false, false
}

// jsSkip validates the value starting at i (no leading whitespace) and
// returns its end and kind, and for a string whether it has escapes.
// Nesting is tracked on a stack of expected closing brackets, not by
// recursion, so depth is bounded only by the data.
func jsSkip(s string, i int) (end int, k Kind, esc, ok bool) {
	if i >= len(s) {
		return i, jAbsent, false, false
	}
	if c := s[i]; c != '{' && c != '[' {
		return jsScalar(s, i)
	}
	var buf [32]byte
	stack := buf[:0]
	for {
		// i is at a value.
		if i >= len(s) {
			return i, jAbsent, false, false
		}
		switch s[i] {
		case '{':
			i = jsWS(s, i+1)
			if i < len(s) && s[i] == '}' {
				i++
				break
			}
			stack = append(stack, '}')
			if i, ok = jsKey(s, i); !ok {
				return i, jAbsent, false, false
			}
			continue
		case '[':
			i = jsWS(s, i+1)
			if i < len(s) && s[i] == ']' {
				i++
				break
			}
			stack = append(stack, ']')
			continue
		default:
			if i, _, _, ok = jsScalar(s, i); !ok {
				return i, jAbsent, false, false
			}
		}
		// A value ended at i: close containers, or move to the next value.
		for {
			if len(stack) == 0 {
				return i, jJSON, false, true
			}
			i = jsWS(s, i)
			if i >= len(s) {
				return i, jAbsent, false, false
			}
			top := stack[len(stack)-1]
			if s[i] == top {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return i, jAbsent, false, false
			}
			i = jsWS(s, i+1)
			if top == '}' {
				if i, ok = jsKey(s, i); !ok {
					return i, jAbsent, false, false
				}
			}
			break
		}
	}
}

// jsKey validates an object key and its colon at i and returns the position
// of the member's value.
func jsKey(s string, i int) (int, bool) {
	if i >= len(s) || s[i] != '"' {
		return i, false
	}
	i, _, ok := jsString(s, i)
	if !ok {
		return i, false
	}
	i = jsWS(s, i)
	if i >= len(s) || s[i] != ':' {
		return i, false
	}
	return jsWS(s, i+1), true
}

// unescapeJSON decodes the escapes of a valid JSON string body the way
// gjson does: a surrogate followed by another \u escape is paired with it
// (U+FFFD when the pair is invalid), a lone surrogate becomes U+FFFD.
func unescapeJSON(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(s[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) && i+7 <= len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				r = utf16.DecodeRune(r, hex4(s[i+3:i+7]))
				i += 6
			}
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, s[i])
		}
	}
	return string(b)
}

func hex4(h string) rune {
	var r rune
	for i := 0; i < 4; i++ {
		c := h[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// getFields sets dst[i] to v.Get(keys[i]) for each plain key (no path
// syntax), in one pass over the object v instead of one per key: the first
// member with a key wins, as with Get. v is a value of an already validated
// payload.
func getFields(v gjson.Result, keys []string, dst []gjson.Result) {
	clear(dst)
	sc := jscan{s: v.Raw}
	if !sc.open('{') {
		return
	}
	left := len(keys)
	if left == 0 {
		return
	}
	for k := range sc.members() {
		hit := false
		for i, key := range keys {
			if k == key && dst[i].Type == gjson.Null && dst[i].Raw == "" {
				dst[i] = sc.val().result()
				left--
				hit = true
				break
			}
		}
		if !hit {
			sc.skip()
		}
		if left == 0 {
			return
		}
	}
}
