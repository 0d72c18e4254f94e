package tape

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/jsontext"
)

// parseChunkFast decodes a "chunk" line without reflection. It handles
// objects whose values are strings or integers, and an "sse" array, in any
// key order, which covers every chunk line [AppendChunk] writes. On anything
// else (another type, other nested values, floats, lone surrogates, invalid
// UTF-8, malformed JSON, a key that differs from a known one only in case)
// it returns false and the caller falls back to encoding/json, which
// produces the canonical result or error. It reads with jsontext's scanning
// functions, each byte once: BenchmarkChunkLine measures it against
// encoding/json on the same lines.
func parseChunkFast(line []byte) (*Chunk, bool) {
	var f chunkFields
	i := jsontext.SkipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return nil, false
	}
	i = jsontext.SkipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return nil, false
	}
	for {
		var ok bool
		if i, ok = f.member(line, i); !ok {
			return nil, false
		}
		i = jsontext.SkipSpace(line, i)
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
		i = jsontext.SkipSpace(line, i+1)
	}
	if jsontext.SkipSpace(line, i) != len(line) {
		return nil, false
	}
	return f.chunk()
}

// chunkFields is what parseChunkFast has read of a chunk line so far.
type chunkFields struct {
	c                         Chunk
	isChunk, haveData, haveB  bool
	haveRef, haveLen, haveSSE bool
	haveClient, dataEsc       bool
	dataSpan, b64Span         []byte // the raw text of "data" and "data_b64"
	sseData                   []byte // the bytes "sse" stands for
	n                         int64  // "len"
}

// member reads the member of a chunk line whose key starts at line[i] and
// returns the position after its value.
func (f *chunkFields) member(line []byte, i int) (int, bool) {
	if i >= len(line) || line[i] != '"' {
		return 0, false
	}
	key, esc, end, ok := scanString(line, i)
	if !ok || esc {
		return 0, false
	}
	i = jsontext.SkipSpace(line, end)
	if i >= len(line) || line[i] != ':' {
		return 0, false
	}
	i = jsontext.SkipSpace(line, i+1)
	if i >= len(line) {
		return 0, false
	}
	switch {
	case line[i] == '[' && string(key) == "client":
		t, off, end, ok := scanIntPair(line, i)
		if !ok || f.haveClient {
			return 0, false
		}
		f.haveClient, f.c.Mirrored, f.c.MirrorT, f.c.MirrorOff = true, true, t, off
		return end, true
	case line[i] == '[':
		if string(key) != "sse" {
			return 0, false
		}
		data, end, ok := scanSSE(line, i)
		f.haveSSE, f.sseData = true, data
		return end, ok
	case line[i] == '"':
		val, vesc, end, ok := scanString(line, i)
		return end, ok && f.stringField(key, val, vesc)
	}
	v, end, ok := jsontext.ScanInt(line, i)
	return end, ok && f.intField(key, v)
}

// stringField takes the member key whose value is the string val (raw, esc
// telling whether it holds escapes).
func (f *chunkFields) stringField(key, val []byte, esc bool) bool {
	switch string(key) {
	case "type":
		if esc || string(val) != typeChunk {
			return false
		}
		f.isChunk = true
	case "side":
		switch {
		case esc:
			return false
		case string(val) == string(Upstream):
			f.c.Side = Upstream
		case string(val) == string(Client):
			f.c.Side = Client
		default:
			f.c.Side = Side(val)
		}
	case "data":
		f.haveData, f.dataSpan, f.dataEsc = true, val, esc
	case "data_b64":
		if esc || f.haveB { // encoding/json decodes each, failing on any bad one
			return false
		}
		f.haveB, f.b64Span = true, val
	case "ex", "t", "off", "ref", "len", "sse", "client":
		return false
	default:
		return !nearKey(key)
	}
	return true
}

// intField takes the member key whose value is the integer v.
func (f *chunkFields) intField(key []byte, v int64) bool {
	switch string(key) {
	case "ex":
		if int64(int(v)) != v {
			return false
		}
		f.c.Ex = int(v)
	case "t":
		f.c.T = v
	case "off":
		f.c.Off = v
	case "ref":
		f.haveRef, f.c.RefOff = true, v
	case "len":
		f.haveLen, f.n = true, v
	case "type", "side", "data", "data_b64", "sse", "client":
		return false
	default:
		return !nearKey(key)
	}
	return true
}

// chunk checks that the fields read make one chunk line and returns the
// chunk with its bytes decoded.
func (f *chunkFields) chunk() (*Chunk, bool) {
	if !f.isChunk || (f.haveData && f.haveB) || f.haveRef != f.haveLen || (f.haveRef && (f.haveData || f.haveB)) ||
		(f.haveSSE && (f.haveData || f.haveB || f.haveRef)) {
		return nil, false
	}
	c := f.c
	switch {
	case f.haveSSE:
		c.Data = f.sseData
	case f.haveRef:
		if f.n < 0 {
			return nil, false
		}
		c.Ref, c.refLen = true, f.n // the Decoder fills Data
	case f.haveData:
		data, ok := unquote(f.dataSpan, f.dataEsc)
		if !ok {
			return nil, false
		}
		c.Data = data
	case f.haveB:
		data := make([]byte, base64.StdEncoding.DecodedLen(len(f.b64Span)))
		n, err := base64.StdEncoding.Decode(data, f.b64Span)
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
	i = jsontext.SkipSpace(b, i+1)
	if x, i, ok = jsontext.ScanInt(b, i); !ok {
		return 0, 0, 0, false
	}
	if i = jsontext.SkipSpace(b, i); i >= len(b) || b[i] != ',' {
		return 0, 0, 0, false
	}
	if y, i, ok = jsontext.ScanInt(b, jsontext.SkipSpace(b, i+1)); !ok {
		return 0, 0, 0, false
	}
	if i = jsontext.SkipSpace(b, i); i >= len(b) || b[i] != ']' {
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
	i = jsontext.SkipSpace(b, i+1)
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
			e, _, ok := jsontext.ScanValue(b, i, maxRawDepth)
			if !ok {
				return nil, 0, false
			}
			pieces = append(pieces, piece{i, e, 'v'})
			size += e - i + len(ssePrefix) + 2
			i = e
		default:
			return nil, 0, false
		}
		i = jsontext.SkipSpace(b, i)
		if i >= len(b) {
			return nil, 0, false
		}
		if b[i] == ']' {
			break
		}
		if b[i] != ',' {
			return nil, 0, false
		}
		i = jsontext.SkipSpace(b, i+1)
	}
	out := make([]byte, 0, size)
	for _, p := range pieces {
		switch p.kind {
		case 's':
			out = append(out, b[p.lo:p.hi]...)
		case 'e':
			if out, ok = jsontext.AppendUnescaped(out, b[p.lo:p.hi]); !ok {
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

// scanString scans the JSON string starting at b[i] == '"'. It returns the raw
// contents between the quotes, whether they hold escapes, and the index after
// the closing quote. It fails on what jsontext.ScanString fails on and on
// invalid UTF-8, which encoding/json would replace.
func scanString(b []byte, i int) (raw []byte, esc bool, end int, ok bool) {
	end, f, ok := jsontext.ScanString(b, i)
	if !ok {
		return nil, false, 0, false
	}
	raw = b[i+1 : end-1]
	if f&jsontext.NonASCII != 0 && !utf8.Valid(raw) {
		return nil, false, 0, false
	}
	return raw, f&jsontext.Escaped != 0, end, true
}

// unquote returns a new slice holding the decoded contents of a JSON string.
// It fails on invalid escapes and on lone surrogates.
func unquote(raw []byte, esc bool) ([]byte, bool) {
	if !esc {
		out := make([]byte, len(raw))
		copy(out, raw)
		return out, true
	}
	return jsontext.AppendUnescaped(make([]byte, 0, len(raw)), raw)
}
