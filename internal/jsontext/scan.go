package jsontext

import "math/bits"

// Kind is the kind of a JSON value; the zero value is an absent one.
type Kind uint8

// The kinds of JSON value.
const (
	Absent Kind = iota
	Null
	Bool
	Number
	String
	Container // an object or an array
)

// SkipSpace returns the position of the first byte at or after i that is
// not JSON whitespace (space, tab, newline, carriage return).
func SkipSpace[S ~string | ~[]byte](s S, i int) int {
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

// Valid reports whether s is one JSON value with nothing but whitespace
// around it: what encoding/json.Valid and gjson.Valid report (neither
// checks that the bytes of a string are UTF-8, nor does Valid).
func Valid[S ~string | ~[]byte](s S) bool {
	end, _, ok := ScanValue(s, SkipSpace(s, 0), 0)
	return ok && SkipSpace(s, end) == len(s)
}

// ScanValue checks that s[i:] starts with one JSON value as RFC 8259
// defines it (no whitespace before it; the bytes after it are not looked
// at) and returns the position after it and its kind. maxDepth > 0 bounds
// how deep objects and arrays nest (a value opening one more fails);
// maxDepth <= 0 leaves the depth to the data. Nesting is kept on a stack of
// closing brackets, not by recursion, which within 64 levels does not
// allocate. After an error end is meaningless.
func ScanValue[S ~string | ~[]byte](s S, i, maxDepth int) (end int, k Kind, ok bool) {
	if i >= len(s) {
		return i, Absent, false
	}
	if c := s[i]; c != '{' && c != '[' {
		return scanScalar(s, i)
	}
	end, ok = scanContainer(s, i, maxDepth)
	return end, Container, ok
}

// scanContainer checks the object or array at s[i], as ScanValue. It is a
// state machine whose states are the labels: at a value, after a value, at
// an object key.
func scanContainer[S ~string | ~[]byte](s S, i, maxDepth int) (int, bool) {
	var buf [64]byte
	stack := buf[:0] // the closing bracket of each open container
	var ok bool
value: // i is at a value
	if i >= len(s) {
		return i, false
	}
	switch c := s[i]; c {
	case '{', '[':
		if maxDepth > 0 && len(stack) >= maxDepth {
			return i, false
		}
		closer := c + 2 // '}' and ']' follow '{' and '[' by two
		i = SkipSpace(s, i+1)
		if i < len(s) && s[i] == closer {
			i++
			goto after
		}
		stack = append(stack, closer)
		if closer == '}' {
			goto key
		}
		goto value
	case '"':
		if i, _, ok = ScanString(s, i); !ok {
			return i, false
		}
	default:
		if i, _, ok = scanScalar(s, i); !ok {
			return i, false
		}
	}
after: // a value ended at i
	if len(stack) == 0 {
		return i, true
	}
	if i = SkipSpace(s, i); i >= len(s) {
		return i, false
	}
	switch s[i] {
	case ',':
		i = SkipSpace(s, i+1)
		if stack[len(stack)-1] == '}' {
			goto key
		}
		goto value
	case stack[len(stack)-1]:
		stack = stack[:len(stack)-1]
		i++
		goto after
	}
	return i, false
key: // i is at an object key
	if i >= len(s) || s[i] != '"' {
		return i, false
	}
	if i, _, ok = ScanString(s, i); !ok {
		return i, false
	}
	if i = SkipSpace(s, i); i >= len(s) || s[i] != ':' {
		return i, false
	}
	i = SkipSpace(s, i+1)
	goto value
}

// scanScalar checks the string, number, true, false or null at s[i].
func scanScalar[S ~string | ~[]byte](s S, i int) (end int, k Kind, ok bool) {
	switch c := s[i]; c {
	case '"':
		end, _, ok = ScanString(s, i)
		return end, String, ok
	case 't':
		return i + 4, Bool, len(s)-i >= 4 && string(s[i:i+4]) == "true"
	case 'f':
		return i + 5, Bool, len(s)-i >= 5 && string(s[i:i+5]) == "false"
	case 'n':
		return i + 4, Null, len(s)-i >= 4 && string(s[i:i+4]) == "null"
	default:
		if c == '-' || c >= '0' && c <= '9' {
			end, ok = ScanNumber(s, i)
			return end, Number, ok
		}
	}
	return i, Absent, false
}

// StringFlags says what the text of a string ScanString read holds.
type StringFlags uint8

const (
	// Escaped: the string holds a backslash escape.
	Escaped StringFlags = 1 << iota
	// NonASCII: the string, or one of the seven bytes after it, holds a
	// byte of 0x80 or above. It is never missing when the string holds
	// one, so a string without it is ASCII.
	NonASCII
)

// ScanString checks the JSON string whose opening quote is at s[i] and
// returns the position after its closing quote and what it holds. Its
// bytes are not checked for UTF-8; NonASCII tells a caller that must check
// them whether there can be anything to check (it is taken from the
// eight-byte words the string is read in, the last of which may reach past
// it).
func ScanString[S ~string | ~[]byte](s S, i int) (end int, f StringFlags, ok bool) {
	i++
	var high uint64 // the bytes passed over, ORed: bit 7 set for a non-ASCII one
	for {
		// Skip eight plain bytes at a time: none is a quote, a backslash
		// or a control byte. The test has no false negatives; on a hit it
		// jumps to the first such byte (the lowest flagged lane is a true
		// hit: a false positive needs a borrow from a lower one), and the
		// byte loop takes the tail.
		for i+8 <= len(s) {
			x := word(s, i)
			high |= x
			q := x ^ (lsb * '"')
			b := x ^ (lsb * '\\')
			if m := ((q-lsb)&^q | (b-lsb)&^b | (x-lsb*' ')&^x) & msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(s) && s[i] >= ' ' && s[i] != '"' && s[i] != '\\' {
			high |= uint64(s[i])
			i++
		}
		if i >= len(s) {
			return i, f, false
		}
		switch s[i] {
		case '"':
			if high&msb != 0 {
				f |= NonASCII
			}
			return i + 1, f, true
		case '\\':
			f |= Escaped
			i++
			if i >= len(s) {
				return i, f, false
			}
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) {
					return i, f, false
				}
				i += 4
			default:
				return i, f, false
			}
			i++
		default: // a control byte
			return i, f, false
		}
	}
}

// isHex reports whether c is a hex digit.
func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// word returns the eight bytes of s from i as one little-endian word (one
// bounds check, one load): the strings are read eight bytes at a time.
func word[S ~string | ~[]byte](s S, i int) uint64 {
	w := s[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// Byte-lane constants for plainRun's eight-byte test.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// ScanNumber checks the JSON number at s[i]
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) and returns the position
// after it.
func ScanNumber[S ~string | ~[]byte](s S, i int) (int, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) || s[i] < '0' || s[i] > '9' {
		return i, false
	}
	if s[i] == '0' {
		i++
	} else {
		i = skipDigits(s, i)
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return i, false
		}
		i = skipDigits(s, i)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return i, false
		}
		i = skipDigits(s, i)
	}
	return i, true
}

// skipDigits returns the position of the first byte at or after i that is
// not an ASCII digit.
func skipDigits[S ~string | ~[]byte](s S, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// ScanInt reads the JSON number at s[i] when it is an integer (no fraction,
// no exponent) that fits in an int64, and returns it and the position after
// it; ok is false for anything else, which the caller reads another way
// (ScanNumber). It parses as it checks, which is what the hot paths read
// most: indexes, offsets and times.
func ScanInt[S ~string | ~[]byte](s S, i int) (n int64, end int, ok bool) {
	j := i
	neg := j < len(s) && s[j] == '-'
	if neg {
		j++
	}
	digits := j
	var u uint64 // 19 digits fit
	for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-digits < 19 {
		u = u*10 + uint64(s[j]-'0')
		j++
	}
	switch {
	case j == digits, s[digits] == '0' && j-digits > 1: // no digit, a leading zero
		return 0, 0, false
	case j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E'):
		return 0, 0, false // a 20th digit, a fraction, an exponent
	case neg && u > 1<<63, !neg && u > 1<<63-1:
		return 0, 0, false
	}
	if neg {
		return -int64(u), j, true
	}
	return int64(u), j, true
}
