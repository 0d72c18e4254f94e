package tape

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// One line of a capture read into its record: the kind, the fields each
// kind carries, and the checks a line must pass on its own.

// decodeKind decodes line as a record of the given kind with encoding/json.
func decodeKind(kind Kind, line []byte) (Record, error) {
	rec := Record{Kind: kind}
	var err error
	switch kind {
	case KindHeader:
		rec.Header, err = decodeHeader(line)
	case KindRequest:
		rec.Request, err = decodeRequest(line)
	case KindResponse:
		var r Response
		if err := json.Unmarshal(line, &r); err != nil {
			return Record{Kind: kind}, err
		}
		if err := checkExSide(r.Ex, r.Side); err != nil {
			return Record{Kind: kind}, err
		}
		rec.Response = &r
	case KindChunk:
		rec.Chunk, err = decodeChunk(line)
	case KindEnd:
		var e End
		if err := json.Unmarshal(line, &e); err != nil {
			return Record{Kind: kind}, err
		}
		if err := checkExSide(e.Ex, e.Side); err != nil {
			return Record{Kind: kind}, err
		}
		rec.End = &e
	case KindNote:
		var n Note
		if err := json.Unmarshal(line, &n); err != nil {
			return Record{Kind: kind}, err
		}
		if n.Ex < 0 {
			return Record{Kind: kind}, fmt.Errorf("ex %d: must not be negative", n.Ex)
		}
		rec.Note = &n
	default:
		return rec, fmt.Errorf("%w %q (written by a newer seam?); skipped", errUnknownType, kind)
	}
	if err != nil {
		return Record{Kind: kind}, err
	}
	return rec, nil
}

// decodeHeader decodes a header line, after checking its version: a newer
// header may not fit Header.
func decodeHeader(line []byte) (*Header, error) {
	var probe struct {
		V int `json:"v"`
	}
	if json.Unmarshal(line, &probe) == nil && probe.V > Version {
		return nil, &VersionError{V: probe.V}
	}
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// decodeRequest decodes a request line: its body as text or base64, its
// exchange number, its side (absent for the client's request).
func decodeRequest(line []byte) (*Request, error) {
	var w struct {
		Request
		BodyText *string `json:"body"`
		BodyB64  []byte  `json:"body_b64"`
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, err
	}
	body, err := pickBytes("body", w.BodyText, w.BodyB64)
	if err != nil {
		return nil, err
	}
	w.Request.Body = body
	if err := checkRequest(&w.Request); err != nil {
		return nil, err
	}
	return &w.Request, nil
}

// checkRequest validates a decoded request: its exchange number and side.
func checkRequest(r *Request) error {
	if r.Ex < 1 {
		return fmt.Errorf("ex %d: exchanges are numbered from 1", r.Ex)
	}
	if r.Side != "" && r.Side != Upstream {
		return fmt.Errorf("side %q: a request's side is absent (the client's request) or %q", r.Side, Upstream)
	}
	return nil
}

// checkRecord runs on a request, response, end or note line read by
// parseLineFast the checks decodeKind runs after encoding/json.
func checkRecord(rec Record) error {
	switch {
	case rec.Request != nil:
		return checkRequest(rec.Request)
	case rec.Response != nil:
		return checkExSide(rec.Response.Ex, rec.Response.Side)
	case rec.End != nil:
		return checkExSide(rec.End.Ex, rec.End.Side)
	case rec.Note != nil && rec.Note.Ex < 0:
		return fmt.Errorf("ex %d: must not be negative", rec.Note.Ex)
	}
	return nil
}

// decodeChunk decodes a chunk line with encoding/json: its bytes written
// one way (text, base64, SSE fields, or a reference to the upstream's
// bytes with their length), and the client chunk it stands for too.
func decodeChunk(line []byte) (*Chunk, error) {
	var w struct {
		Chunk
		DataText *string         `json:"data"`
		DataB64  []byte          `json:"data_b64"`
		SSE      json.RawMessage `json:"sse"`
		Ref      *int64          `json:"ref"`
		Len      *int64          `json:"len"`
		Client   []int64         `json:"client"`
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, err
	}
	data, err := pickBytes("data", w.DataText, w.DataB64)
	if err != nil {
		return nil, err
	}
	w.Chunk.Data = data
	if w.SSE != nil {
		if w.DataText != nil || w.DataB64 != nil || w.Ref != nil {
			return nil, errors.New(`"sse" and one of "data", "data_b64", "ref" set: a chunk's bytes are written one way`)
		}
		if w.Chunk.Data, err = decodeSSE(w.SSE); err != nil {
			return nil, err
		}
	}
	switch {
	case (w.Ref == nil) != (w.Len == nil):
		return nil, errors.New(`"ref" and "len" go together`)
	case w.Ref != nil && (w.DataText != nil || w.DataB64 != nil):
		return nil, errors.New(`both "ref" and "data" set`)
	case w.Ref != nil:
		if *w.Len < 0 {
			return nil, fmt.Errorf("len %d: must not be negative", *w.Len)
		}
		w.Chunk.Ref, w.Chunk.RefOff, w.Chunk.refLen = true, *w.Ref, *w.Len
	}
	if w.Client != nil {
		if len(w.Client) != 2 {
			return nil, fmt.Errorf(`"client" has %d numbers: want [t, off], the time and offset of the client chunk this upstream chunk stands for too`, len(w.Client))
		}
		w.Chunk.Mirrored, w.Chunk.MirrorT, w.Chunk.MirrorOff = true, w.Client[0], w.Client[1]
	}
	if err := checkChunk(&w.Chunk); err != nil {
		return nil, err
	}
	return &w.Chunk, nil
}

// decodeSSE returns the bytes an "sse" array stands for: each string piece
// its text, each object or array piece V the bytes `data: ` V `\n\n`, with
// V's text as it is in the line.
func decodeSSE(raw json.RawMessage) ([]byte, error) {
	var pieces []json.RawMessage
	if err := json.Unmarshal(raw, &pieces); err != nil || raw[0] != '[' {
		return nil, fmt.Errorf(`"sse" is %s: want an array of strings, objects and arrays`, jsonKind(raw))
	}
	out := []byte{}
	for i, p := range pieces {
		switch p[0] {
		case '"':
			var s string
			if err := json.Unmarshal(p, &s); err != nil {
				return nil, fmt.Errorf(`"sse" piece %d: %w`, i+1, err)
			}
			out = append(out, s...)
		case '{', '[':
			out = append(out, ssePrefix...)
			out = append(out, p...)
			out = append(out, '\n', '\n')
		default:
			return nil, fmt.Errorf(`"sse" piece %d is %s: want a string, an object or an array`, i+1, jsonKind(p))
		}
	}
	return out, nil
}

// jsonKind names the kind of a JSON value for an error, with the value when
// it is a short number or a boolean (nothing that could carry text).
func jsonKind(v json.RawMessage) string {
	var kind string
	switch v[0] {
	case 'n':
		return "null"
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		kind = "a boolean"
	default:
		kind = "a number"
	}
	if len(v) > 40 {
		return kind
	}
	return fmt.Sprintf("%s (%s)", kind, v)
}

// pickBytes returns the bytes of a field written as either name or name_b64.
func pickBytes(name string, text *string, b64 []byte) ([]byte, error) {
	switch {
	case text != nil && b64 != nil:
		return nil, fmt.Errorf("both %q and %q set", name, name+"_b64")
	case text != nil:
		return []byte(*text), nil
	}
	return b64, nil
}

// checkExSide validates the exchange number and side of a record.
func checkExSide(ex int, s Side) error {
	if ex < 1 {
		return fmt.Errorf("ex %d: exchanges are numbered from 1", ex)
	}
	if s != Upstream && s != Client {
		return fmt.Errorf("side %q: want %q or %q", s, Upstream, Client)
	}
	return nil
}

// checkChunk validates a decoded chunk.
func checkChunk(c *Chunk) error {
	if err := checkExSide(c.Ex, c.Side); err != nil {
		return err
	}
	if c.Off < 0 {
		return fmt.Errorf("off %d: must not be negative", c.Off)
	}
	if c.Off > math.MaxInt64-int64(len(c.Data))-c.refLen {
		return fmt.Errorf("off %d: the chunk's %d bytes would end past the largest offset", c.Off, int64(len(c.Data))+c.refLen)
	}
	if c.Ref && c.Side != Client {
		return fmt.Errorf(`side %q: only a client chunk may be a "ref" to upstream bytes`, c.Side)
	}
	if c.Ref && c.RefOff < 0 {
		return fmt.Errorf("ref %d: must not be negative", c.RefOff)
	}
	if c.Ref && c.RefOff > math.MaxInt64-c.refLen {
		return fmt.Errorf("ref %d, len %d: the bytes referred to would end past the largest offset", c.RefOff, c.refLen)
	}
	if c.Mirrored && c.Side != Upstream {
		return fmt.Errorf(`side %q: only an upstream chunk may carry the "client" chunk that mirrors it`, c.Side)
	}
	if c.Mirrored && c.MirrorOff < 0 {
		return fmt.Errorf(`"client" offset %d: must not be negative`, c.MirrorOff)
	}
	if c.Mirrored && c.MirrorOff > math.MaxInt64-int64(len(c.Data)) {
		return fmt.Errorf(`"client" offset %d: the client chunk's %d bytes would end past the largest offset`, c.MirrorOff, len(c.Data))
	}
	return nil
}
