package shape

import (
	"strconv"
	"unicode/utf8"
)

// frames collects the client frames produced by one Push or Close in a single
// arena: frame i is buf[ends[i-1]:ends[i]]. The arena is reused, so frames are
// valid until the next call, as the Engine contract allows.
type frames struct {
	buf  []byte
	ends []int
}

func (f *frames) reset() {
	f.buf = f.buf[:0]
	f.ends = f.ends[:0]
}

// end closes the frame written since the previous end.
func (f *frames) end() { f.ends = append(f.ends, len(f.buf)) }

// appendTo appends the frames to dst.
func (f *frames) appendTo(dst [][]byte) [][]byte {
	start := 0
	for _, e := range f.ends {
		if e > start {
			dst = append(dst, f.buf[start:e:e])
		}
		start = e
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way JavaScript's
// JSON.stringify writes it: no HTML escaping, only '"', '\\' and control
// characters escaped. Invalid UTF-8 becomes U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\ufffd"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendInt(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// appendRawOr appends raw JSON, or def when raw is empty.
func appendRawOr(dst []byte, raw, def string) []byte {
	if raw == "" {
		return append(dst, def...)
	}
	return append(dst, raw...)
}
