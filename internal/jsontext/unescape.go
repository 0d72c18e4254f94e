package jsontext

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendUnescaped appends the decoded text of a JSON string, s being what
// lies between its quotes, to dst. It decodes as gjson does: a surrogate
// escape followed by another \u escape is paired with it (U+FFFD, both
// consumed, when the pair is invalid), a lone one becomes U+FFFD. ok is
// false when an escape is invalid or a surrogate is not half of a valid
// pair, the cases where encoding/json decodes otherwise or fails; bytes
// that are not escapes are copied as they are, UTF-8 or not.
func AppendUnescaped[S ~string | ~[]byte](dst []byte, s S) ([]byte, bool) {
	dst, stop := appendUnescaped(dst, s)
	if stop == len(s) {
		return dst, true
	}
	return appendLossy(dst, s, stop), false
}

// appendLossy carries on decoding s as gjson does from stop, where
// appendUnescaped stopped: at a \u escape of a surrogate left alone or
// badly paired, or at an invalid escape (stop < 0), where it ends.
func appendLossy[S ~string | ~[]byte](dst []byte, s S, stop int) []byte {
	for stop >= 0 && stop < len(s) {
		r, n, _ := unescapeRune(s[stop+2:])
		dst = utf8.AppendRune(dst, r)
		s = s[stop+2+n:]
		dst, stop = appendUnescaped(dst, s)
	}
	return dst
}

// appendUnescaped decodes s as AppendUnescaped does up to the first escape
// that is invalid (stop is then -1) or a surrogate not half of a valid pair
// (stop is its position); stop is len(s) when all of s is decoded.
//
// The decoded text is never longer than s (every escape is at least as
// long as what it stands for), so it is written in place into room for
// len(s) bytes: plain bytes eight at a time, each word stored whole and
// the position advanced to the first backslash in it (the lowest flagged
// lane is a true hit, as in ScanString), which the escape then overwrites.
// Request bodies recorded as strings hold an escape every few bytes, and
// an append per run of plain bytes cost half the time.
func appendUnescaped[S ~string | ~[]byte](dst []byte, s S) ([]byte, int) {
	base := len(dst)
	dst = slices.Grow(dst, len(s))[:base+len(s)]
	n := base
	for i := 0; i < len(s); {
		for i+8 <= len(s) {
			x := word(s, i)
			binary.LittleEndian.PutUint64(dst[n:n+8], x) // n-base <= i: room for 8
			b := x ^ (lsb * '\\')
			if m := (b - lsb) &^ b & msb; m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				n += k
				i += k
				break
			}
			n += 8
			i += 8
		}
		for i < len(s) && s[i] != '\\' {
			dst[n] = s[i]
			n++
			i++
		}
		if i >= len(s) {
			break
		}
		if i+1 >= len(s) {
			return dst[:n], -1
		}
		if c := unescaped[s[i+1]]; c != 0 {
			dst[n] = c
		} else {
			if s[i+1] != 'u' {
				return dst[:n], -1
			}
			r, size, valid := unescapeRune(s[i+2:])
			switch {
			case size < 0:
				return dst[:n], -1
			case !valid:
				return dst[:n], i
			}
			n += utf8.EncodeRune(dst[n:], r)
			i += 2 + size
			continue
		}
		n++
		i += 2
	}
	return dst[:n], len(s)
}

// unescapeRune decodes the \u escape whose hex digits start s, and the one
// after it when the first is a surrogate, and returns the rune, the bytes
// they take and whether the rune is not a surrogate left alone or badly
// paired. n is -1 when the digits are not hex.
func unescapeRune[S ~string | ~[]byte](s S) (r rune, n int, ok bool) {
	r, valid := hex4(s, 0)
	if !valid {
		return 0, -1, false
	}
	if !utf16.IsSurrogate(r) {
		return r, 4, true
	}
	if len(s) < 10 || s[4] != '\\' || s[5] != 'u' {
		return utf8.RuneError, 4, false
	}
	r2, valid := hex4(s, 6)
	if !valid {
		return 0, -1, false
	}
	r = utf16.DecodeRune(r, r2)
	return r, 10, r != utf8.RuneError
}

// Unescape returns the decoded text of a JSON string that ScanString has
// checked, s being what lies between its quotes, as gjson decodes it.
func Unescape(s string) string {
	b, _ := AppendUnescaped(make([]byte, 0, len(s)), s)
	return string(b)
}

// hex4 decodes the four hex digits at s[i:i+4].
func hex4[S ~string | ~[]byte](s S, i int) (rune, bool) {
	if i < 0 || i+4 > len(s) {
		return 0, false
	}
	var r rune
	for j := i; j < i+4; j++ {
		c := s[j]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// AppendString decodes the JSON string whose opening quote is at s[i] in
// one pass, appending its text to dst, and returns the position after its
// closing quote and what it holds (NonASCII as ScanString says it). ok is
// false where ScanString fails, and where AppendUnescaped reports an
// escape it cannot decode (an invalid one, or a surrogate not half of a
// valid pair); dst then holds what was decoded. Checking a string and then
// decoding it passed over it twice, which for a capture's request bodies
// (recorded as strings, an escape every few bytes) took as long as the
// decoding.
func AppendString[S ~string | ~[]byte](dst []byte, s S, i int) (out []byte, end int, f StringFlags, ok bool) {
	i++
	// The text is never longer than what is left of s.
	base := len(dst)
	dst = slices.Grow(dst, len(s)-min(i, len(s)))
	dst = dst[:cap(dst)]
	n := base
	var high uint64
	for {
		if i+8 <= len(s) {
			x := word(s, i)
			binary.LittleEndian.PutUint64(dst[n:n+8], x) // n-base < i: room for 8
			q := x ^ (lsb * '"')
			b := x ^ (lsb * '\\')
			m := ((q-lsb)&^q | (b-lsb)&^b | (x-lsb*' ')&^x) & msb
			if m == 0 {
				high |= x
				n += 8
				i += 8
				continue
			}
			k := bits.TrailingZeros64(m) >> 3
			high |= x & (1<<(8*k) - 1)
			n += k
			i += k
		} else if i >= len(s) {
			return dst[:n], i, f, false
		}
		switch c := s[i]; {
		case c == '\\':
			f |= Escaped
			if i+1 < len(s) {
				if r := unescaped[s[i+1]]; r != 0 {
					dst[n] = r
					n++
					i += 2
					continue
				}
			}
			wrote, read, ok := unescapeAt(dst[n:], s, i)
			if !ok {
				return dst[:n], i, f, false
			}
			n += wrote
			i += read
		case c == '"':
			if high&msb != 0 {
				f |= NonASCII
			}
			return dst[:n], i + 1, f, true
		case c < ' ': // a control byte
			return dst[:n], i, f, false
		default: // one of the last seven bytes of s
			high |= uint64(c)
			dst[n] = c
			n++
			i++
		}
	}
}

// unescaped maps the letter of each one-letter escape to the byte it
// stands for; 0 for the others (u, and the invalid ones).
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescapeAt decodes the \u escape at s[i] (a backslash) into dst, which
// has room, and returns the bytes it wrote and read; false for an escape
// AppendString fails on.
func unescapeAt[S ~string | ~[]byte](dst []byte, s S, i int) (wrote, read int, ok bool) {
	if i+1 >= len(s) || s[i+1] != 'u' {
		return 0, 0, false
	}
	r, size, valid := unescapeRune(s[i+2:])
	if size < 0 || !valid {
		return 0, 0, false
	}
	return utf8.EncodeRune(dst, r), 2 + size, true
}
