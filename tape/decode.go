package tape

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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
		if err != nil {
			if lerr := d.readFailed(err); lerr != nil {
				return Record{}, lerr
			}
			break
		}
		d.line++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		rec, err := d.parse(line)
		if err != nil {
			if lerr := d.lineFailed(err, complete); lerr != nil {
				return Record{}, lerr
			}
			continue
		}
		if lerr := d.takeHeader(&rec); lerr != nil {
			return Record{}, lerr
		}
		if d.err != nil {
			break
		}
		if err := migrate(d.header.V, &rec); err != nil {
			return Record{}, &LineError{File: d.name, Line: d.line, Err: err}
		}
		if err := d.check(&rec); err != nil {
			return Record{}, &LineError{File: d.name, Line: d.line, Err: err}
		}
		rec.Line = d.line
		if c := rec.Chunk; c != nil && c.Mirrored {
			d.keepMirror(c)
		}
		return rec, nil
	}
	return Record{}, d.err
}

// readFailed handles an error reading the next line. A line past the cap
// is returned as a LineError, and the reading goes on after it, unless it
// is the first line; any other error, or the end of the file, ends the
// reading (d.err) and readFailed returns nil.
func (d *Decoder) readFailed(err error) error {
	if errors.Is(err, errLineTooLong) {
		d.line++
		lerr := &LineError{File: d.name, Line: d.line, Err: err}
		if d.header == nil {
			d.err = lerr
			return nil
		}
		return lerr
	}
	if err == io.EOF && d.header == nil {
		err = fmt.Errorf("%s: empty capture: no %q header line", d.name, typeHeader)
	} else if err != io.EOF {
		err = fmt.Errorf("read %s: %w", d.name, err)
	}
	d.err = err
	return nil
}

// lineFailed handles a line that does not decode (err; complete is false
// for a last line with no newline). A line of a type this seam does not
// know, after the header, and a torn last line are warnings; before the
// header, a bad line ends the reading (d.err). lineFailed returns the
// LineError for the caller to return, or nil when the line is skipped.
func (d *Decoder) lineFailed(err error, complete bool) error {
	lerr := &LineError{File: d.name, Line: d.line, Err: err}
	switch {
	case errors.Is(err, errUnknownType) && d.header != nil:
		d.warnings = append(d.warnings, lerr)
	case !complete && d.header == nil:
		d.err = &LineError{File: d.name, Line: d.line, Err: fmt.Errorf("%w: %v", errTorn, err)}
	case !complete:
		d.warnings = append(d.warnings, &LineError{File: d.name, Line: d.line, Err: fmt.Errorf("%w: %v", errTorn, err)})
		// the next read reports EOF
	case d.header == nil:
		d.err = lerr
	default:
		return lerr
	}
	return nil
}

// takeHeader takes the first record as the capture's header: one that is
// not a header, or of a version this seam does not read, ends the reading
// (d.err). A second header line is returned as a LineError.
func (d *Decoder) takeHeader(rec *Record) error {
	if d.header != nil {
		if rec.Kind == KindHeader {
			return &LineError{File: d.name, Line: d.line, Err: fmt.Errorf("second %q header line (the first is on line %d)", typeHeader, d.headerLine)}
		}
		return nil
	}
	if rec.Kind != KindHeader {
		d.err = &LineError{File: d.name, Line: d.line, Err: fmt.Errorf("not a capture: first line is a %q line, want a %q header", rec.Kind, typeHeader)}
		return nil
	}
	if err := checkVersion(rec.Header.V); err != nil {
		d.err = &LineError{File: d.name, Line: d.line, Err: err}
		return nil
	}
	d.header = rec.Header
	d.headerLine = d.line
	return nil
}

// keepMirror keeps the client chunk that upstream chunk c stands for too
// (the same bytes), for the next call, and takes the mirror off c.
func (d *Decoder) keepMirror(c *Chunk) {
	d.mirror = &Chunk{
		Ex: c.Ex, Side: Client, T: c.MirrorT, Off: c.MirrorOff, Data: c.Data,
		Ref: true, RefOff: c.Off, mirror: true,
	}
	c.Mirrored, c.MirrorT, c.MirrorOff = false, 0, 0
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
	if rec, ok := parseLineFast(line); ok && checkRecord(rec) == nil {
		return rec, nil
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
