package tape

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/jsontext"
)

// parseLineFast decodes a "request", "response", "end" or "note" line
// without reflection, as parseChunkFast does a chunk line: the line must
// start with its "type" (every line the encoder writes does), and its
// values must be what that kind's fields hold (strings, integers, the
// headers object, a boolean). Unknown members are checked and skipped, as
// encoding/json skips them. On anything else (another order, a null, a
// float, a duplicate key, a key that differs from a known one only in
// case, lone surrogates, invalid UTF-8, malformed JSON) it returns false
// and the caller falls back to encoding/json, which produces the canonical
// result or error. A request line holds the request's body as one escaped
// string, often tens of KB: encoding/json validated it twice (the probe
// for "type", then the decode) and unescaped it once; this reads it once
// and unescapes it once (BenchmarkLine; FuzzDecode checks both agree).
func parseLineFast(line []byte) (Record, bool) {
	i := jsontext.SkipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return Record{}, false
	}
	i = jsontext.SkipSpace(line, i+1)
	if !quoteAt(line, i) {
		return Record{}, false
	}
	key, esc, end, ok := scanString(line, i)
	if !ok || esc || string(key) != "type" {
		return Record{}, false
	}
	if i = jsontext.SkipSpace(line, end); i >= len(line) || line[i] != ':' {
		return Record{}, false
	}
	if i = jsontext.SkipSpace(line, i+1); !quoteAt(line, i) {
		return Record{}, false
	}
	val, esc, end, ok := scanString(line, i)
	if !ok || esc {
		return Record{}, false
	}
	f := lineFields{}
	switch string(val) {
	case typeRequest:
		f.kind, f.keys = KindRequest, requestKeys[:]
	case typeResponse:
		f.kind, f.keys = KindResponse, responseKeys[:]
	case typeEnd:
		f.kind, f.keys = KindEnd, endKeys[:]
	case typeNote:
		f.kind, f.keys = KindNote, noteKeys[:]
	default:
		return Record{}, false
	}
	for i = end; ; {
		i = jsontext.SkipSpace(line, i)
		if i >= len(line) {
			return Record{}, false
		}
		if line[i] == '}' {
			i++
			break
		}
		if line[i] != ',' {
			return Record{}, false
		}
		if i, ok = f.member(line, jsontext.SkipSpace(line, i+1)); !ok {
			return Record{}, false
		}
	}
	if jsontext.SkipSpace(line, i) != len(line) {
		return Record{}, false
	}
	return f.record()
}

// The keys of each kind of line, "type" first; encoding/json matches them
// without regard to case. A key's position in its list is its bit in
// lineFields.seen.
var (
	requestKeys  = [...]string{"type", "ex", "side", "t", "method", "scheme", "host", "url", "headers", "body", "body_b64", "body_truncated", "paired"}
	responseKeys = [...]string{"type", "ex", "side", "t", "status", "headers"}
	endKeys      = [...]string{"type", "ex", "side", "t", "outcome", "bytes", "error", "sha256", "unrecorded"}
	noteKeys     = [...]string{"type", "ex", "t", "text"}
)

// lineFields is what parseLineFast has read of a line so far.
type lineFields struct {
	kind Kind
	keys []string
	seen uint32 // bit i: keys[i] was read

	ex, t, status, bytes, unrecorded int64
	side, method, scheme, host, url  string
	paired, outcome, errText, sha    string
	text                             string
	headers                          Headers
	body                             []byte
	haveBody, haveB64, truncated     bool
}

// member reads the member whose key starts at line[i] and returns the
// position after its value.
func (f *lineFields) member(line []byte, i int) (int, bool) {
	if !quoteAt(line, i) {
		return 0, false
	}
	key, esc, end, ok := scanString(line, i)
	if !ok || esc {
		return 0, false
	}
	if i = jsontext.SkipSpace(line, end); i >= len(line) || line[i] != ':' {
		return 0, false
	}
	i = jsontext.SkipSpace(line, i+1)
	if i >= len(line) {
		return 0, false
	}
	k, exact := f.key(key)
	switch {
	case k < 0:
		end, _, ok := jsontext.ScanValue(line, i, maxRawDepth)
		return end, ok // a key the line does not have: skipped
	case !exact, k == 0, f.seen&(1<<k) != 0:
		// A key encoding/json would take for one of ours without regard
		// to case, a second "type", or a key read twice.
		return 0, false
	}
	f.seen |= 1 << k
	return f.value(f.keys[k], line, i)
}

// key returns the position of key among the line's keys (-1 when it is
// none of them) and whether it matched exactly rather than without regard
// to case.
func (f *lineFields) key(key []byte) (k int, exact bool) {
	for n, name := range f.keys {
		if string(key) == name {
			return n, true
		}
	}
	for n, name := range f.keys {
		if len(name) == len(key) && strings.EqualFold(name, string(key)) {
			return n, false
		}
	}
	return -1, false
}

// value reads the value of the member name at line[i] into f and returns
// the position after it.
func (f *lineFields) value(name string, line []byte, i int) (int, bool) {
	switch name {
	case "ex", "t", "status", "bytes", "unrecorded":
		return f.intValue(name, line, i)
	case "headers":
		h, end, ok := scanHeaders(line, i)
		f.headers = h
		return end, ok
	case "body_truncated":
		switch {
		case strings.HasPrefix(string(line[i:]), "true"):
			f.truncated = true
			return i + 4, true
		case strings.HasPrefix(string(line[i:]), "false"):
			return i + 5, true
		}
		return 0, false
	}
	if !quoteAt(line, i) {
		return 0, false
	}
	if name == "body" { // checked and decoded in one pass
		body, end, flags, ok := jsontext.AppendString(nil, line, i)
		if !ok || flags&jsontext.NonASCII != 0 && !utf8.Valid(body) {
			return 0, false
		}
		f.haveBody, f.body = true, body
		return end, true
	}
	raw, esc, end, ok := scanString(line, i)
	if !ok {
		return 0, false
	}
	switch name {
	case "body_b64":
		if esc {
			return 0, false
		}
		b := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
		n, err := base64.StdEncoding.Decode(b, raw)
		f.haveB64, f.body = true, b[:n]
		return end, err == nil
	}
	s, ok := stringValue(raw, esc)
	*f.stringField(name) = s
	return end, ok
}

// intValue reads the integer member name at line[i]; ex and status must
// fit an int, as encoding/json requires of the fields they fill.
func (f *lineFields) intValue(name string, line []byte, i int) (int, bool) {
	v, end, ok := jsontext.ScanInt(line, i)
	if !ok || (name == "ex" || name == "status") && int64(int(v)) != v {
		return 0, false
	}
	switch name {
	case "ex":
		f.ex = v
	case "t":
		f.t = v
	case "status":
		f.status = v
	case "bytes":
		f.bytes = v
	default:
		f.unrecorded = v
	}
	return end, true
}

// stringField returns the field the string member name fills.
func (f *lineFields) stringField(name string) *string {
	switch name {
	case "side":
		return &f.side
	case "method":
		return &f.method
	case "scheme":
		return &f.scheme
	case "host":
		return &f.host
	case "url":
		return &f.url
	case "paired":
		return &f.paired
	case "outcome":
		return &f.outcome
	case "error":
		return &f.errText
	case "sha256":
		return &f.sha
	}
	return &f.text
}

// stringValue returns a JSON string's decoded text, the sides and the
// common values without allocating.
func stringValue(raw []byte, esc bool) (string, bool) {
	if esc {
		b, ok := jsontext.AppendUnescaped(nil, raw)
		return string(b), ok
	}
	switch string(raw) {
	case "":
		return "", true
	case string(Upstream):
		return string(Upstream), true
	case string(Client):
		return string(Client), true
	case "POST":
		return "POST", true
	case string(Complete):
		return string(Complete), true
	case Redacted:
		return Redacted, true
	}
	return string(raw), true
}

// scanHeaders reads the headers object at b[i]: each member an array of
// strings. It fails on anything else (a null, a key twice) for
// encoding/json to decode.
func scanHeaders(b []byte, i int) (Headers, int, bool) {
	if b[i] != '{' {
		return nil, 0, false
	}
	h := Headers{}
	i = jsontext.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return h, i + 1, true
	}
	for {
		if !quoteAt(b, i) {
			return nil, 0, false
		}
		raw, esc, end, ok := scanString(b, i)
		if !ok {
			return nil, 0, false
		}
		name, ok := stringValue(raw, esc)
		if _, dup := h[name]; !ok || dup {
			return nil, 0, false
		}
		if i = jsontext.SkipSpace(b, end); i >= len(b) || b[i] != ':' {
			return nil, 0, false
		}
		if i = jsontext.SkipSpace(b, i+1); i >= len(b) || b[i] != '[' {
			return nil, 0, false
		}
		vals := []string{}
		i = jsontext.SkipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			if !quoteAt(b, i) {
				return nil, 0, false
			}
			raw, esc, end, ok := scanString(b, i)
			if !ok {
				return nil, 0, false
			}
			v, ok := stringValue(raw, esc)
			if !ok {
				return nil, 0, false
			}
			vals = append(vals, v)
			switch i = jsontext.SkipSpace(b, end); {
			case i < len(b) && b[i] == ',':
				i = jsontext.SkipSpace(b, i+1)
				if i < len(b) && b[i] == ']' {
					return nil, 0, false
				}
			case i < len(b) && b[i] != ']': // two values with no comma between
				return nil, 0, false
			}
		}
		if i >= len(b) {
			return nil, 0, false
		}
		h[name] = vals
		if i = jsontext.SkipSpace(b, i+1); i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case '}':
			return h, i + 1, true
		case ',':
			i = jsontext.SkipSpace(b, i+1)
		default:
			return nil, 0, false
		}
	}
}

// record returns the record the fields read make, or false where
// encoding/json would fail or decide otherwise (both "body" and
// "body_b64").
func (f *lineFields) record() (Record, bool) {
	rec := Record{Kind: f.kind}
	switch f.kind {
	case KindRequest:
		if f.haveBody && f.haveB64 {
			return Record{}, false
		}
		rec.Request = &Request{Ex: int(f.ex), Side: Side(f.side), T: f.t, Method: f.method, Scheme: f.scheme, Host: f.host,
			URL: f.url, Headers: f.headers, Body: f.body, BodyTruncated: f.truncated, Paired: f.paired}
	case KindResponse:
		rec.Response = &Response{Ex: int(f.ex), Side: Side(f.side), T: f.t, Status: int(f.status), Headers: f.headers}
	case KindEnd:
		rec.End = &End{Ex: int(f.ex), Side: Side(f.side), T: f.t, Outcome: Outcome(f.outcome), Bytes: f.bytes,
			Error: f.errText, SHA256: f.sha, Unrecorded: f.unrecorded}
	case KindNote:
		rec.Note = &Note{Ex: int(f.ex), T: f.t, Text: f.text}
	}
	return rec, true
}

// quoteAt reports whether a JSON string starts at b[i].
func quoteAt(b []byte, i int) bool { return i < len(b) && b[i] == '"' }
