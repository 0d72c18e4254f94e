package tape

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/seam-dev/seam/coding"
)

// Kind names the type of a capture line, as written in its "type" field.
type Kind string

// The line types of the capture format.
const (
	KindHeader   Kind = typeHeader
	KindRequest  Kind = typeRequest
	KindResponse Kind = typeResponse
	KindChunk    Kind = typeChunk
	KindEnd      Kind = typeEnd
	KindNote     Kind = typeNote
)

// Record is one decoded line. Exactly one of the pointer fields is set, the
// one matching Kind.
type Record struct {
	Kind Kind
	// Line is the 1-based line number in the file.
	Line     int
	Header   *Header
	Request  *Request
	Response *Response
	Chunk    *Chunk
	End      *End
	Note     *Note
}

// Ex returns the exchange number the record belongs to, or 0 for the header.
func (r Record) Ex() int {
	switch {
	case r.Request != nil:
		return r.Request.Ex
	case r.Response != nil:
		return r.Response.Ex
	case r.Chunk != nil:
		return r.Chunk.Ex
	case r.End != nil:
		return r.End.Ex
	case r.Note != nil:
		return r.Note.Ex
	}
	return 0
}

// LineError is a problem with one line of a capture file.
type LineError struct {
	File string
	Line int
	Err  error
}

// Error returns "file:line: message".
func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e *LineError) Unwrap() error { return e.Err }

// VersionError reports a capture written in a format version this package
// cannot read. It is wrapped in a [*LineError] naming the file.
type VersionError struct {
	// V is the version found in the header.
	V int
}

// Error names the version found and the supported one.
func (e *VersionError) Error() string {
	if e.V > Version {
		return fmt.Sprintf("capture format v%d is newer than this seam supports (v%d); upgrade seam", e.V, Version)
	}
	return fmt.Sprintf("capture format v%d is not a valid version (this seam supports v1 to v%d)", e.V, Version)
}

// errTorn marks the last line of a file that has no trailing newline and does
// not parse: a write cut short by a crash.
var errTorn = errors.New("torn last line (no trailing newline, does not parse); skipped")

// errUnknownType marks a line whose type this version does not know.
var errUnknownType = errors.New("unknown line type")

// maxKeptLine is the largest line buffer a Decoder keeps between lines; a
// longer line is decoded, then its buffer is released.
const maxKeptLine = 4 << 20

// MaxLine is the longest capture line a Decoder reads: a longer one is
// skipped with an error naming the file, the line and the cap, and the
// next line is read. seam's own lines stay far below it (a chunk is one
// read of at most a few tens of KiB; a request line holds at most the 16
// MiB of body the recorder keeps, 21.4 MiB in base64; an imported body is
// cut into chunks of at most 8 MiB), while a compressed capture can make
// a line of any length from a few KiB (135 KB of zstd for one of 4 GiB):
// a line is held whole to be decoded, so the cap bounds the memory one
// line costs.
const MaxLine = 32 << 20

// errLineTooLong marks a line longer than the cap; the message says how
// long it was.
var errLineTooLong = errors.New("the line is too long")

// Decoder reads a capture one line at a time. It holds one line in memory at
// a time, so a capture of any size decodes in bounded memory; a line longer
// than [MaxLine] is skipped with an error.
type Decoder struct {
	r      *bufio.Reader
	name   string
	line   int
	buf    []byte
	header *Header
	// headerLine is the line number of the header.
	headerLine int
	err        error // sticky: returned by every later Next
	warnings   []error
	// started is set once the first bytes were looked at for compression.
	started bool
	// cut is set once a compressed stream was found cut short.
	cut bool
	// open holds, per exchange not yet ended on both sides, what resolving
	// references and verifying hashes needs.
	open map[int]*exCheck
	// untracked is set once too many exchanges were open at once to keep
	// checking new ones.
	untracked bool
	// mirror is the client chunk a mirrored upstream chunk's line (the
	// last line read) stands for too, returned by the next call.
	mirror *Chunk
	// kept is the bytes of upstream chunks the open exchanges keep for
	// references (see maxKeptChunks).
	kept int64
	// maxLine is the cap on a line (0: MaxLine); tests lower it.
	maxLine int
}

// NewDecoder returns a Decoder reading a capture from r, plain or zstd
// compressed. The name is the file name used in errors ("-" for stdin).
func NewDecoder(r io.Reader, name string) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10), name: name, open: make(map[int]*exCheck)}
}

// Warnings returns the problems that were skipped so far: a torn last line and
// lines of unknown type, each a [*LineError].
func (d *Decoder) Warnings() []error { return d.warnings }

// Header returns the capture header, or nil before the first successful Next.
func (d *Decoder) Header() *Header { return d.header }

// Next returns the next record. The first record is always the header. At the
// end of the capture it returns io.EOF. A malformed line is returned as a
// [*LineError] and the next call continues after it. Errors about the file as
// a whole (no header, an unsupported version, a read error) are returned by
// every later call too.
func (d *Decoder) Next() (Record, error) {
	if c := d.mirror; c != nil {
		d.mirror = nil
		rec := Record{Kind: KindChunk, Line: d.line, Chunk: c}
		if err := d.check(&rec); err != nil {
			return Record{}, &LineError{File: d.name, Line: d.line, Err: err}
		}
		return rec, nil
	}
	for d.err == nil {
		line, complete, err := d.readLine()
		if errors.Is(err, errLineTooLong) {
			d.line++
			lerr := &LineError{File: d.name, Line: d.line, Err: err}
			if d.header == nil {
				d.err = lerr
				break
			}
			return Record{}, lerr
		}
		if err != nil {
			if err == io.EOF && d.header == nil {
				err = fmt.Errorf("%s: empty capture: no %q header line", d.name, typeHeader)
			} else if err != io.EOF {
				err = fmt.Errorf("read %s: %w", d.name, err)
			}
			d.err = err
			break
		}
		d.line++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		rec, err := d.parse(line)
		if err != nil {
			lerr := &LineError{File: d.name, Line: d.line, Err: err}
			switch {
			case errors.Is(err, errUnknownType) && d.header != nil:
				d.warnings = append(d.warnings, lerr)
				continue
			case !complete && d.header == nil:
				d.err = &LineError{File: d.name, Line: d.line, Err: fmt.Errorf("%w: %v", errTorn, err)}
			case !complete:
				d.warnings = append(d.warnings, &LineError{File: d.name, Line: d.line, Err: fmt.Errorf("%w: %v", errTorn, err)})
				continue // the next read reports EOF
			case d.header == nil:
				d.err = lerr
			default:
				return Record{}, lerr
			}
			break
		}
		if d.header == nil {
			if rec.Kind != KindHeader {
				d.err = &LineError{File: d.name, Line: d.line, Err: fmt.Errorf("not a capture: first line is a %q line, want a %q header", rec.Kind, typeHeader)}
				break
			}
			if err := checkVersion(rec.Header.V); err != nil {
				d.err = &LineError{File: d.name, Line: d.line, Err: err}
				break
			}
			d.header = rec.Header
			d.headerLine = d.line
		} else if rec.Kind == KindHeader {
			return Record{}, &LineError{File: d.name, Line: d.line, Err: fmt.Errorf("second %q header line (the first is on line %d)", typeHeader, d.headerLine)}
		}
		if err := migrate(d.header.V, &rec); err != nil {
			return Record{}, &LineError{File: d.name, Line: d.line, Err: err}
		}
		if err := d.check(&rec); err != nil {
			return Record{}, &LineError{File: d.name, Line: d.line, Err: err}
		}
		rec.Line = d.line
		if c := rec.Chunk; c != nil && c.Mirrored {
			// The client chunk the line stands for too: the same bytes.
			d.mirror = &Chunk{
				Ex: c.Ex, Side: Client, T: c.MirrorT, Off: c.MirrorOff, Data: c.Data,
				Ref: true, RefOff: c.Off, mirror: true,
			}
			c.Mirrored, c.MirrorT, c.MirrorOff = false, 0, 0
		}
		return rec, nil
	}
	return Record{}, d.err
}

// readLine returns the next line without its newline, and whether it ended
// with one. The returned slice is valid until the next call.
func (d *Decoder) readLine() (line []byte, complete bool, err error) {
	if cap(d.buf) > maxKeptLine {
		d.buf = nil
	}
	d.buf = d.buf[:0]
	if !d.started {
		d.started = true
		r, err := Uncompress(d.r)
		if err != nil {
			return nil, false, err
		}
		if r != io.Reader(d.r) {
			d.r = bufio.NewReaderSize(r, 64<<10)
		}
	}
	if d.cut {
		return nil, false, io.EOF
	}
	for {
		frag, err := d.r.ReadSlice('\n')
		if need := len(d.buf) + len(frag); need > d.limit() {
			return nil, false, d.skipLine(int64(need), err)
		} else if need > cap(d.buf) && err != nil {
			// Grow as append would, but never past the cap.
			nb := make([]byte, len(d.buf), min(max(2*cap(d.buf), need), d.limit()))
			d.buf = nb[:copy(nb, d.buf)]
		}
		switch err {
		case nil:
			if len(d.buf) == 0 {
				return frag[:len(frag)-1], true, nil
			}
			d.buf = append(d.buf, frag[:len(frag)-1]...)
			return d.buf, true, nil
		case bufio.ErrBufferFull:
			d.buf = append(d.buf, frag...)
		case io.EOF:
			d.buf = append(d.buf, frag...)
			if len(d.buf) == 0 {
				return nil, false, io.EOF
			}
			return d.buf, false, nil
		default:
			if errors.Is(err, ErrCutShort) {
				d.cut = true
				d.warnings = append(d.warnings, &LineError{File: d.name, Line: d.line + 1, Err: err})
				d.buf = append(d.buf, frag...)
				if len(d.buf) == 0 {
					return nil, false, io.EOF
				}
				return d.buf, false, nil
			}
			return nil, false, err
		}
	}
}

// limit returns the cap on a line.
func (d *Decoder) limit() int {
	if d.maxLine > 0 {
		return d.maxLine
	}
	return MaxLine
}

// skipLine reads past the rest of a line longer than the cap, of which n
// bytes were read with the error err of the last read, and returns the
// error that reports it.
func (d *Decoder) skipLine(n int64, err error) error {
	d.buf = d.buf[:0]
	for err == bufio.ErrBufferFull {
		var frag []byte
		frag, err = d.r.ReadSlice('\n')
		n += int64(len(frag))
	}
	what := fmt.Sprintf("%d bytes", n-1) // without its newline
	switch {
	case err == io.EOF:
		what = fmt.Sprintf("%d bytes, and the file ends before its newline", n)
	case errors.Is(err, ErrCutShort):
		d.cut = true
		d.warnings = append(d.warnings, &LineError{File: d.name, Line: d.line + 1, Err: err})
		what = fmt.Sprintf("%d bytes, and the file is cut before its newline", n)
	case err != nil:
		d.err = fmt.Errorf("read %s: %w", d.name, err)
		what = fmt.Sprintf("%d bytes or more", n)
	}
	return fmt.Errorf("%w: %s (seam reads capture lines of up to %s); skipped", errLineTooLong, what, coding.Size(int64(d.limit())))
}

// checkVersion accepts every version this package reads or migrates.
func checkVersion(v int) error {
	if v < 1 || v > Version {
		return &VersionError{V: v}
	}
	return nil
}

// migrate upgrades a record read from a capture of version v to the current
// version, in memory. Versions 2 and 3 only added what older readers could
// not have read (chunk references and end hashes; chunk data as "sse"
// pieces), so a version 1 or 2 record is a valid version 3 record as it is.
func migrate(v int, rec *Record) error {
	switch v {
	case 1, 2, Version:
		return nil
	}
	return &VersionError{V: v}
}

// parse decodes one non-blank line.
func (d *Decoder) parse(line []byte) (Record, error) {
	if c, ok := parseChunkFast(line); ok {
		if err := checkChunk(c); err != nil {
			return Record{}, fmt.Errorf("decode %s line: %w", typeChunk, err)
		}
		return Record{Kind: KindChunk, Chunk: c}, nil
	}
	var probe struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return Record{}, fmt.Errorf("malformed line: %w", err)
	}
	if probe.Type == nil {
		return Record{}, errors.New(`malformed line: no "type" field`)
	}
	kind := Kind(*probe.Type)
	rec, err := decodeKind(kind, line)
	if errors.Is(err, errUnknownType) || errors.As(err, new(*VersionError)) {
		return Record{}, err
	}
	if err != nil {
		return Record{}, fmt.Errorf("decode %s line: %w", kind, err)
	}
	return rec, nil
}

// decodeKind decodes line as a record of the given kind with encoding/json.
func decodeKind(kind Kind, line []byte) (Record, error) {
	rec := Record{Kind: kind}
	switch kind {
	case KindHeader:
		// Check the version before the rest: a newer header may not fit Header.
		var probe struct {
			V int `json:"v"`
		}
		if json.Unmarshal(line, &probe) == nil && probe.V > Version {
			return rec, &VersionError{V: probe.V}
		}
		var h Header
		if err := json.Unmarshal(line, &h); err != nil {
			return rec, err
		}
		rec.Header = &h
	case KindRequest:
		var w struct {
			Request
			BodyText *string `json:"body"`
			BodyB64  []byte  `json:"body_b64"`
		}
		if err := json.Unmarshal(line, &w); err != nil {
			return rec, err
		}
		body, err := pickBytes("body", w.BodyText, w.BodyB64)
		if err != nil {
			return rec, err
		}
		w.Request.Body = body
		if w.Ex < 1 {
			return rec, fmt.Errorf("ex %d: exchanges are numbered from 1", w.Ex)
		}
		if w.Side != "" && w.Side != Upstream {
			return rec, fmt.Errorf("side %q: a request's side is absent (the client's request) or %q", w.Side, Upstream)
		}
		rec.Request = &w.Request
	case KindResponse:
		var r Response
		if err := json.Unmarshal(line, &r); err != nil {
			return rec, err
		}
		if err := checkExSide(r.Ex, r.Side); err != nil {
			return rec, err
		}
		rec.Response = &r
	case KindChunk:
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
			return rec, err
		}
		data, err := pickBytes("data", w.DataText, w.DataB64)
		if err != nil {
			return rec, err
		}
		w.Chunk.Data = data
		if w.SSE != nil {
			if w.DataText != nil || w.DataB64 != nil || w.Ref != nil {
				return rec, errors.New(`"sse" and one of "data", "data_b64", "ref" set: a chunk's bytes are written one way`)
			}
			if w.Chunk.Data, err = decodeSSE(w.SSE); err != nil {
				return rec, err
			}
		}
		switch {
		case (w.Ref == nil) != (w.Len == nil):
			return rec, errors.New(`"ref" and "len" go together`)
		case w.Ref != nil && (w.DataText != nil || w.DataB64 != nil):
			return rec, errors.New(`both "ref" and "data" set`)
		case w.Ref != nil:
			if *w.Len < 0 {
				return rec, fmt.Errorf("len %d: must not be negative", *w.Len)
			}
			w.Chunk.Ref, w.Chunk.RefOff, w.Chunk.refLen = true, *w.Ref, *w.Len
		}
		if w.Client != nil {
			if len(w.Client) != 2 {
				return rec, fmt.Errorf(`"client" has %d numbers: want [t, off], the time and offset of the client chunk this upstream chunk stands for too`, len(w.Client))
			}
			w.Chunk.Mirrored, w.Chunk.MirrorT, w.Chunk.MirrorOff = true, w.Client[0], w.Client[1]
		}
		if err := checkChunk(&w.Chunk); err != nil {
			return rec, err
		}
		rec.Chunk = &w.Chunk
	case KindEnd:
		var e End
		if err := json.Unmarshal(line, &e); err != nil {
			return rec, err
		}
		if err := checkExSide(e.Ex, e.Side); err != nil {
			return rec, err
		}
		rec.End = &e
	case KindNote:
		var n Note
		if err := json.Unmarshal(line, &n); err != nil {
			return rec, err
		}
		if n.Ex < 0 {
			return rec, fmt.Errorf("ex %d: must not be negative", n.Ex)
		}
		rec.Note = &n
	default:
		return rec, fmt.Errorf("%w %q (written by a newer seam?); skipped", errUnknownType, kind)
	}
	return rec, nil
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
