package sse

import (
	"errors"
	"fmt"
	"io"
	"iter"
)

// readSize is the size of each Read from the underlying reader. Memory use
// is this buffer plus the longest line and event, each at most MaxLine.
const readSize = 32 << 10

// maxEmptyReads bounds the number of consecutive (0, nil) Reads tolerated.
const maxEmptyReads = 100

// Reader is the pull form of Parser over an io.Reader. It reads in bounded
// buffers and holds a line, and an event's data, up to the Parser's cap
// (MaxLine).
type Reader struct {
	r    io.Reader
	p    Parser
	buf  []byte
	q    []Event
	head int
	err  error
	emit func(Event)
}

// NewReader returns a Reader parsing the event stream read from r.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{r: r}
	rd.emit = func(e Event) { rd.q = append(rd.q, e) }
	return rd
}

// SetOnComment sets the callback called for each comment line; see
// Parser.OnComment.
func (r *Reader) SetOnComment(fn func(text string, off int64)) { r.p.OnComment = fn }

// Offset returns the number of bytes read from the underlying reader.
func (r *Reader) Offset() int64 { return r.p.Offset() }

// Next returns the next event. After the last event it returns io.EOF; the
// unterminated final event, if any, is returned before that with Terminated
// false. A read error ends the stream the same way (pending events first,
// then the error, wrapped).
func (r *Reader) Next() (Event, error) {
	empty := 0
	for {
		if r.head < len(r.q) {
			e := r.q[r.head]
			r.q[r.head] = Event{}
			r.head++
			if r.head == len(r.q) {
				r.q, r.head = r.q[:0], 0
			}
			return e, nil
		}
		if r.err != nil {
			return Event{}, r.err
		}
		if r.buf == nil {
			r.buf = make([]byte, readSize)
		}
		n, err := r.r.Read(r.buf)
		if n > 0 {
			empty = 0
			r.p.Feed(r.buf[:n], r.emit)
		} else if err == nil {
			empty++
			if empty >= maxEmptyReads {
				err = io.ErrNoProgress
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			r.p.Close(r.emit)
			r.err = io.EOF
		default:
			r.p.Close(r.emit)
			r.err = fmt.Errorf("read event stream at offset %d: %w", r.p.Offset(), err)
		}
	}
}

// All returns an iterator over the remaining events. It stops after the last
// event; a read error other than io.EOF is yielded once, with a zero Event.
func (r *Reader) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			e, err := r.Next()
			if err == io.EOF { //nolint:errorlint // Next returns io.EOF unwrapped
				return
			}
			if err != nil {
				yield(Event{}, err)
				return
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}
