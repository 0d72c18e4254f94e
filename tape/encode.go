package tape

import (
	"bytes"
	"encoding/base64"
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/seam-dev/seam/internal/jsstring"
)

// Line types, as written in the "type" field of every line.
const (
	typeHeader   = "capture"
	typeRequest  = "request"
	typeResponse = "response"
	typeChunk    = "chunk"
	typeEnd      = "end"
	typeNote     = "note"
)

// AppendHeader appends h as one complete "capture" line, including the
// trailing newline, to dst and returns the extended buffer.
func AppendHeader(dst []byte, h Header) []byte {
	dst = append(dst, `{"type":"capture","v":`...)
	dst = strconv.AppendInt(dst, int64(h.V), 10)
	dst = appendStringField(dst, "seam", h.Seam)
	dst = appendStringField(dst, "id", h.ID)
	if h.Part > 0 {
		dst = append(dst, `,"part":`...)
		dst = strconv.AppendInt(dst, int64(h.Part), 10)
	}
	if !h.Started.IsZero() {
		dst = append(dst, `,"started":"`...)
		dst = h.Started.AppendFormat(dst, time.RFC3339Nano)
		dst = append(dst, '"')
	}
	dst = appendStringField(dst, "upstream", h.Upstream)
	if h.Insecure {
		dst = append(dst, `,"insecure":true`...)
	}
	dst = append(dst, `,"engine":{"profile":`...)
	dst = appendString(dst, h.Engine.Profile)
	if len(h.Engine.Switches) > 0 {
		dst = append(dst, `,"switches":`...)
		dst = appendObject(dst, h.Engine.Switches, appendString)
	}
	dst = append(dst, '}')
	if im := h.Imported; im != nil {
		dst = append(dst, `,"imported":{"format":`...)
		dst = appendString(dst, im.Format)
		dst = appendStringField(dst, "file", im.File)
		dst = appendStringField(dst, "timing", im.Timing)
		dst = append(dst, '}')
	}
	return append(dst, "}\n"...)
}

// AppendRequest appends r as one complete "request" line, including the
// trailing newline, to dst and returns the extended buffer. The body goes to
// "body" when it is valid UTF-8 and to "body_b64" otherwise; an empty body is
// omitted.
func AppendRequest(dst []byte, r Request) []byte {
	dst = append(dst, `{"type":"request","ex":`...)
	dst = strconv.AppendInt(dst, int64(r.Ex), 10)
	if r.Side != "" {
		dst = appendStringField(dst, "side", string(r.Side))
	}
	dst = appendIntField(dst, "t", r.T)
	dst = appendStringField(dst, "method", r.Method)
	if r.Scheme != "" {
		dst = appendStringField(dst, "scheme", r.Scheme)
	}
	if r.Host != "" {
		dst = appendStringField(dst, "host", r.Host)
	}
	dst = appendStringField(dst, "url", r.URL)
	dst = append(dst, `,"headers":`...)
	dst = appendHeaders(dst, r.Headers)
	if len(r.Body) > 0 {
		dst = appendBytesField(dst, "body", r.Body)
	}
	if r.BodyTruncated {
		dst = append(dst, `,"body_truncated":true`...)
	}
	if r.Paired != "" {
		dst = appendStringField(dst, "paired", r.Paired)
	}
	return append(dst, "}\n"...)
}

// AppendResponse appends r as one complete "response" line, including the
// trailing newline, to dst and returns the extended buffer.
func AppendResponse(dst []byte, r Response) []byte {
	dst = append(dst, `{"type":"response","ex":`...)
	dst = strconv.AppendInt(dst, int64(r.Ex), 10)
	dst = appendStringField(dst, "side", string(r.Side))
	dst = appendIntField(dst, "t", r.T)
	dst = appendIntField(dst, "status", int64(r.Status))
	dst = append(dst, `,"headers":`...)
	dst = appendHeaders(dst, r.Headers)
	return append(dst, "}\n"...)
}

// AppendChunk appends c as one complete "chunk" line, including the trailing
// newline, to dst and returns the extended buffer. Valid UTF-8 data holding
// SSE events whose data is one JSON object or array goes to "sse", each such
// event as its JSON value unescaped and the bytes around them as strings;
// other valid UTF-8 goes to "data" and the rest to "data_b64", so no byte is
// ever replaced. A chunk with Ref set is written as "ref" and "len" instead.
// A Mirrored upstream chunk carries "client" too. It allocates only when dst
// has to grow.
func AppendChunk(dst []byte, c Chunk) []byte {
	dst = append(dst, `{"type":"chunk","ex":`...)
	dst = strconv.AppendInt(dst, int64(c.Ex), 10)
	dst = appendStringField(dst, "side", string(c.Side))
	dst = appendIntField(dst, "t", c.T)
	dst = appendIntField(dst, "off", c.Off)
	if c.Ref {
		dst = appendIntField(dst, "ref", c.RefOff)
		dst = appendIntField(dst, "len", int64(len(c.Data)))
	} else {
		dst = appendChunkData(dst, c.Data)
	}
	if c.Mirrored {
		dst = append(dst, `,"client":[`...)
		dst = strconv.AppendInt(dst, c.MirrorT, 10)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, c.MirrorOff, 10)
		dst = append(dst, ']')
	}
	return append(dst, "}\n"...)
}

// appendChunkData appends the data of a chunk: `,"sse":[...]` when it holds
// at least one event [nextEvent] finds, else `,"data":"..."` or
// `,"data_b64":"..."` as [appendBytesField] writes them. Each event becomes
// its JSON value as it is, and the bytes between events become strings, so
// the line is always shorter than with "data": an event saves at least the
// ten bytes of `data: ` and `\n\n` and costs at most two quotes and two
// commas.
func appendChunkData(dst, b []byte) []byte {
	if !utf8.Valid(b) {
		return appendBytesField(dst, "data", b)
	}
	start, end := -1, -1
	if bytes.Contains(b, emptyLine) { // an event ends with one: a fast way to rule them out
		start, end = nextEvent(b, 0)
	}
	if start < 0 {
		dst = append(dst, `,"data":`...)
		return appendEscaped(dst, b)
	}
	dst = append(dst, `,"sse":[`...)
	pos := 0
	for start >= 0 {
		if start > pos {
			dst = appendEscaped(dst, b[pos:start])
			dst = append(dst, ',')
		}
		dst = append(dst, b[start+len(ssePrefix):end-2]...)
		if pos = end; pos < len(b) {
			dst = append(dst, ',')
		}
		start, end = nextEvent(b, pos)
	}
	if pos < len(b) {
		dst = appendEscaped(dst, b[pos:])
	}
	return append(dst, ']')
}

// maxRawDepth bounds the nesting of a JSON value a chunk line holds as it is
// (an "sse" piece). Events of LLM APIs nest a handful of levels; the bound
// keeps every line readable by parsers with a depth limit (jq, Python's json,
// Go's encoding/json all allow far more), and the check allocation-free.
const maxRawDepth = 64

// ssePrefix starts the line of an event an "sse" piece holds.
const ssePrefix = "data: "

// emptyLine ends an event an "sse" piece holds.
var emptyLine = []byte("\n\n")

// nextEvent finds, from b[i] on (i at the start of a line), the first event
// an "sse" piece can hold: a line that starts with `data: ` followed by a
// JSON object or array (valid, without \r, nested at most maxRawDepth deep)
// that runs to the end of the line, followed by an empty line ended by \n.
// It returns where `data: ` starts and the index after the empty line, or
// -1, -1. b must be valid UTF-8.
func nextEvent(b []byte, i int) (start, end int) {
	for i < len(b) {
		rest := b[i:]
		if len(rest) > len(ssePrefix) && string(rest[:len(ssePrefix)]) == ssePrefix {
			v := rest[len(ssePrefix):]
			nl := bytes.IndexByte(v, '\n')
			if nl < 0 {
				return -1, -1
			}
			if nl > 1 && nl+1 < len(v) && v[nl+1] == '\n' && isOpen(v[0]) && isClose(v[nl-1]) &&
				bytes.IndexByte(v[:nl], '\r') < 0 {
				if e, _, ok := jsontext.ScanValue(v[:nl], 0, maxRawDepth); ok && e == nl {
					return i, i + len(ssePrefix) + nl + 2
				}
			}
			i += len(ssePrefix) + nl + 1
			continue
		}
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return -1, -1
		}
		i += nl + 1
	}
	return -1, -1
}

// isOpen and isClose report whether c opens or closes a JSON object or array.
func isOpen(c byte) bool  { return c == '{' || c == '[' }
func isClose(c byte) bool { return c == '}' || c == ']' }

// AppendEnd appends e as one complete "end" line, including the trailing
// newline, to dst and returns the extended buffer.
func AppendEnd(dst []byte, e End) []byte {
	dst = append(dst, `{"type":"end","ex":`...)
	dst = strconv.AppendInt(dst, int64(e.Ex), 10)
	dst = appendStringField(dst, "side", string(e.Side))
	dst = appendIntField(dst, "t", e.T)
	dst = appendStringField(dst, "outcome", string(e.Outcome))
	dst = appendIntField(dst, "bytes", e.Bytes)
	if e.Error != "" {
		dst = appendStringField(dst, "error", e.Error)
	}
	if e.SHA256 != "" {
		dst = appendStringField(dst, "sha256", e.SHA256)
	}
	if e.Unrecorded != 0 {
		dst = appendIntField(dst, "unrecorded", e.Unrecorded)
	}
	return append(dst, "}\n"...)
}

// AppendNote appends n as one complete "note" line, including the trailing
// newline, to dst and returns the extended buffer.
func AppendNote(dst []byte, n Note) []byte {
	dst = append(dst, `{"type":"note","ex":`...)
	dst = strconv.AppendInt(dst, int64(n.Ex), 10)
	dst = appendIntField(dst, "t", n.T)
	dst = appendStringField(dst, "text", n.Text)
	return append(dst, "}\n"...)
}

// appendIntField appends `,"name":v`.
func appendIntField(dst []byte, name string, v int64) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return strconv.AppendInt(dst, v, 10)
}

// appendStringField appends `,"name":"s"`.
func appendStringField(dst []byte, name, s string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return appendString(dst, s)
}

// appendBytesField appends `,"name":"b"` when b is valid UTF-8 and
// `,"name_b64":"..."` (standard base64) otherwise, or when b is large and
// its JSON escapes would make it longer than base64 does: a line must stay
// within what a reader reads (MaxLine), and a body of control bytes would
// be six times its size escaped.
func appendBytesField(dst []byte, name string, b []byte) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	if utf8.Valid(b) && (len(b) < 1<<20 || escapedLen(b) <= base64.StdEncoding.EncodedLen(len(b))) {
		dst = append(dst, '"', ':')
		return appendEscaped(dst, b)
	}
	dst = append(dst, `_b64":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// appendHeaders appends h as a JSON object with sorted keys; a nil map is
// written as {} so the field is always an object.
func appendHeaders(dst []byte, h Headers) []byte {
	return appendObject(dst, h, func(dst []byte, vs []string) []byte {
		dst = append(dst, '[')
		for j, v := range vs {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, v)
		}
		return append(dst, ']')
	})
}

// appendObject appends m as a JSON object with its keys sorted, each value
// written by value.
func appendObject[V any](dst []byte, m map[string]V, value func([]byte, V) []byte) []byte {
	dst = append(dst, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		dst = value(dst, m[k])
	}
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a quoted JSON string written the way
// JavaScript's JSON.stringify writes it (and so the way LLM APIs and proxies
// do): quotes, backslashes and control characters are escaped; everything
// else, including U+2028, U+2029 and '<', '>', '&', is copied as is. Invalid
// UTF-8 becomes U+FFFD per maximal subpart, as a JavaScript client decodes
// it (jsstring.Decode).
func AppendJSONString(dst []byte, s string) []byte { return appendString(dst, s) }

// appendString appends s as a quoted JSON string, as [AppendJSONString].
// String fields are lossy for invalid UTF-8, while byte fields go through
// [appendBytesField], which never replaces a byte.
func appendString(dst []byte, s string) []byte {
	return appendEscaped(dst, jsstring.Decode(s))
}

// mustEscape marks the bytes a JSON string cannot hold as they are: control
// characters, '"' and '\\'. One table lookup per byte is the hot loop of
// recording.
var mustEscape = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// escapedLen returns the length of b written by appendEscaped, quotes
// aside.
func escapedLen(b []byte) int {
	n := len(b)
	for _, c := range b {
		if mustEscape[c] {
			switch c {
			case '"', '\\', '\n', '\r', '\t', '\b', '\f':
				n++
			default:
				n += 5
			}
		}
	}
	return n
}

// appendEscaped appends valid UTF-8 s as a quoted JSON string.
func appendEscaped[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !mustEscape[c] {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
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
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
