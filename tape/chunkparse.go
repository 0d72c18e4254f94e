package tape

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parseChunkFast decodes a "chunk" line without reflection. It handles
// objects whose values are strings or integers, and an "sse" array, in any
// key order, which covers every chunk line [AppendChunk] writes. On anything
// else (another type, other nested values, floats, lone surrogates, invalid
// UTF-8, malformed JSON, a key that differs from a known one only in case)
// it returns false and the caller falls back to encoding/json, which
// produces the canonical result or error.
func parseChunkFast(line []byte) (*Chunk, bool) {
	var (
		c               Chunk
		isChunk         bool
		haveData, haveB bool
		dataSpan        []byte
		dataEsc         bool
		b64Span         []byte
		haveRef         bool
		haveLen         bool
		haveSSE         bool
		sseData         []byte
		haveClient      bool
		n               int64
	)
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return nil, false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return nil, false
	}
	for {
		// Key.
		if i >= len(line) || line[i] != '"' {
			return nil, false
		}
		key, esc, end, ok := scanString(line, i)
		if !ok || esc {
			return nil, false
		}
		i = skipSpace(line, end)
		if i >= len(line) || line[i] != ':' {
			return nil, false
		}
		i = skipSpace(line, i+1)
		if i >= len(line) {
			return nil, false
		}
		// Value.
		if line[i] == '[' && string(key) == "client" {
			t, off, end, ok := scanIntPair(line, i)
			if !ok || haveClient {
				return nil, false
			}
			haveClient, c.Mirrored, c.MirrorT, c.MirrorOff, i = true, true, t, off, end
		} else if line[i] == '[' {
			if string(key) != "sse" {
				return nil, false
			}
			data, end, ok := scanSSE(line, i)
			if !ok {
				return nil, false
			}
			haveSSE, sseData, i = true, data, end
		} else if line[i] == '"' {
			val, vesc, end, ok := scanString(line, i)
			if !ok {
				return nil, false
			}
			i = end
			switch string(key) {
			case "type":
				if vesc || string(val) != typeChunk {
					return nil, false
				}
				isChunk = true
			case "side":
				switch {
				case vesc:
					return nil, false
				case string(val) == string(Upstream):
					c.Side = Upstream
				case string(val) == string(Client):
					c.Side = Client
				default:
					c.Side = Side(val)
				}
			case "data":
				haveData, dataSpan, dataEsc = true, val, vesc
			case "data_b64":
				if vesc {
					return nil, false
				}
				haveB, b64Span = true, val
			case "ex", "t", "off", "ref", "len", "sse", "client":
				return nil, false
			default:
				if nearKey(key) {
					return nil, false
				}
			}
		} else {
			v, end, ok := scanInt(line, i)
			if !ok {
				return nil, false
			}
			i = end
			switch string(key) {
			case "ex":
				if int64(int(v)) != v {
					return nil, false
				}
				c.Ex = int(v)
			case "t":
				c.T = v
			case "off":
				c.Off = v
			case "ref":
				haveRef, c.RefOff = true, v
			case "len":
				haveLen, n = true, v
			case "type", "side", "data", "data_b64", "sse", "client":
				return nil, false
			default:
				if nearKey(key) {
					return nil, false
				}
			}
		}
		i = skipSpace(line, i)
		if i >= len(line) {
			return nil, false
		}
		if line[i] == '}' {
			i++
			break
		}
		if line[i] != ',' {
			return nil, false
		}
		i = skipSpace(line, i+1)
	}
	if skipSpace(line, i) != len(line) || !isChunk || (haveData && haveB) || haveRef != haveLen || (haveRef && (haveData || haveB)) ||
		(haveSSE && (haveData || haveB || haveRef)) {
		return nil, false
	}
	switch {
	case haveSSE:
		c.Data = sseData
	case haveRef:
		if n < 0 {
			return nil, false
		}
		c.Ref, c.refLen = true, n // the Decoder fills Data
	case haveData:
		data, ok := unquote(dataSpan, dataEsc)
		if !ok {
			return nil, false
		}
		c.Data = data
	case haveB:
		data := make([]byte, base64.StdEncoding.DecodedLen(len(b64Span)))
		n, err := base64.StdEncoding.Decode(data, b64Span)
		if err != nil {
			return nil, false
		}
		c.Data = data[:n]
	}
	return &c, true
}

// chunkKeys are the keys of a chunk line; encoding/json matches them
// without regard to case.
var chunkKeys = [...]string{"type", "ex", "side", "t", "off", "data", "data_b64", "sse", "ref", "len", "client"}

// nearKey reports whether key, not one of chunkKeys, equals one of them
// without regard to case, which encoding/json would take for it.
func nearKey(key []byte) bool {
	for _, k := range chunkKeys {
		if len(k) == len(key) && strings.EqualFold(k, string(key)) {
			return true
		}
	}
	return false
}

// scanIntPair reads the array of two integers at b[i] == '[' and returns
// them with the index after it.
func scanIntPair(b []byte, i int) (x, y int64, end int, ok bool) {
	i = skipSpace(b, i+1)
	if x, i, ok = scanInt(b, i); !ok {
		return 0, 0, 0, false
	}
	if i = skipSpace(b, i); i >= len(b) || b[i] != ',' {
		return 0, 0, 0, false
	}
	if y, i, ok = scanInt(b, skipSpace(b, i+1)); !ok {
		return 0, 0, 0, false
	}
	if i = skipSpace(b, i); i >= len(b) || b[i] != ']' {
		return 0, 0, 0, false
	}
	return x, y, i + 1, true
}

// scanSSE decodes the "sse" array starting at b[i] == '[' into the chunk
// bytes it stands for and returns them with the index after the array. A
// string piece stands for its bytes, an object or array piece V for
// `data: ` V `\n\n`. It fails on anything else, which encoding/json then
// reports.
func scanSSE(b []byte, i int) (data []byte, end int, ok bool) {
	type piece struct {
		lo, hi int
		kind   byte // 's' string, 'e' string with escapes, 'v' JSON value
	}
	var stack [32]piece
	pieces := stack[:0]
	size := 0
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return []byte{}, i + 1, true
	}
	for {
		if i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case '"':
			raw, esc, e, ok := scanString(b, i)
			if !ok {
				return nil, 0, false
			}
			p := piece{i + 1, e - 1, 's'}
			if esc {
				p.kind = 'e'
			}
			pieces = append(pieces, p)
			size += len(raw)
			i = e
		case '{', '[':
			e, ok := scanJSON(b, i)
			if !ok {
				return nil, 0, false
			}
			pieces = append(pieces, piece{i, e, 'v'})
			size += e - i + len(ssePrefix) + 2
			i = e
		default:
			return nil, 0, false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return nil, 0, false
		}
		if b[i] == ']' {
			break
		}
		if b[i] != ',' {
			return nil, 0, false
		}
		i = skipSpace(b, i+1)
	}
	out := make([]byte, 0, size)
	for _, p := range pieces {
		switch p.kind {
		case 's':
			out = append(out, b[p.lo:p.hi]...)
		case 'e':
			if out, ok = appendUnquoted(out, b[p.lo:p.hi]); !ok {
				return nil, 0, false
			}
		default:
			out = append(out, ssePrefix...)
			out = append(out, b[p.lo:p.hi]...)
			out = append(out, '\n', '\n')
		}
	}
	return out, i + 1, true
}

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString scans the JSON string starting at b[i] == '"'. It returns the raw
// contents between the quotes, whether they hold escapes, and the index after
// the closing quote. It fails on control characters and on invalid UTF-8.
func scanString(b []byte, i int) (raw []byte, esc bool, end int, ok bool) {
	start := i + 1
	nonASCII := false
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			raw = b[start:j]
			if nonASCII && !utf8.Valid(raw) {
				return nil, false, 0, false
			}
			return raw, esc, j + 1, true
		case c == '\\':
			esc = true
			j++ // skip the escaped byte; unquote validates it
		case c < 0x20:
			return nil, false, 0, false
		case c >= utf8.RuneSelf:
			nonASCII = true
		}
	}
	return nil, false, 0, false
}

// scanInt scans a JSON integer (no fraction or exponent) starting at b[i].
func scanInt(b []byte, i int) (n int64, end int, ok bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	digits := j
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == digits || (b[digits] == '0' && j-digits > 1) {
		return 0, 0, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return 0, 0, false
	}
	if j-digits <= 18 { // fits int64: no conversion, no allocation
		for _, c := range b[digits:j] {
			n = n*10 + int64(c-'0')
		}
		if digits > i {
			n = -n
		}
		return n, j, true
	}
	n, err := strconv.ParseInt(string(b[i:j]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return n, j, true
}

// unquote returns a new slice holding the decoded contents of a JSON string.
// It fails on invalid escapes and on lone surrogates.
func unquote(raw []byte, esc bool) ([]byte, bool) {
	if !esc {
		out := make([]byte, len(raw))
		copy(out, raw)
		return out, true
	}
	return appendUnquoted(make([]byte, 0, len(raw)), raw)
}

// appendUnquoted appends the decoded contents of a JSON string, raw being
// what lies between its quotes, to out. It fails on invalid escapes and on
// lone surrogates.
func appendUnquoted(out, raw []byte) ([]byte, bool) {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			j := i + 1
			for j < len(raw) && raw[j] != '\\' {
				j++
			}
			out = append(out, raw[i:j]...)
			i = j
			continue
		}
		if i+1 >= len(raw) {
			return nil, false
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			out = append(out, raw[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw, i+2)
			if !ok {
				return nil, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
					return nil, false
				}
				r2, ok := hex4(raw, i+2)
				if !ok {
					return nil, false
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return nil, false
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return nil, false
		}
		i += 2
	}
	return out, true
}

// hex4 decodes the four hex digits at b[i:i+4].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
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
