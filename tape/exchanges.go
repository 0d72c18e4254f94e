package tape

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ExchangeReader reads a capture exchange by exchange, handing each one
// over as soon as its last line has been read, so a capture of any size is
// read holding only the exchanges still in progress at that point of the
// file (with a recording's usual concurrency, a few). [Read] holds them all.
//
// An exchange is complete when its request and the end line of each side
// it has are read and, for a recording, its client side has ended (the
// recorder writes the client's end last); a sandwich recording (engine
// profile "external") also waits for the upstream leg. An exchange with no
// client side (an import) is complete once a line of another exchange
// follows its upstream end, as long as no two exchanges' lines have
// interleaved so far. Exchanges still open at the end of the file are
// handed over then, in the order of their first line, with an
// [AnomalyInterrupted] for each side that has no end.
//
// A line for an exchange already handed over (a note appended later, or a
// recording that broke these rules) is not lost: it starts a continuation,
// an Exchange with the same Ex and Continued set, handed over like any
// other, and a warning says so.
type ExchangeReader struct {
	d        *Decoder
	g        *gatherer
	header   *Header
	sandwich bool
	// keep, when set, selects the exchanges to gather; lines of others are
	// read and dropped.
	keep func(ex int) bool
	// ready holds complete exchanges not yet returned.
	ready []*Exchange
	// yielded records every exchange handed over, and the line of its
	// last record, to recognise late lines.
	yielded map[int]int
	// lastEx is the exchange of the previous exchange record, and
	// interleaved whether a line ever went back to an earlier exchange.
	lastEx      int
	interleaved bool
	lineErrs    []error
	eof         bool
	err         error
	// eager hands an exchange over as soon as it is complete (Eager).
	eager bool
}

// NewExchangeReader returns an ExchangeReader for the capture in r; name is
// the file name used in errors.
func NewExchangeReader(r io.Reader, name string) *ExchangeReader {
	return &ExchangeReader{d: NewDecoder(r, name), g: newGatherer(name), yielded: map[int]int{}}
}

// Only makes the reader gather just the exchanges keep selects; the lines
// of the others are decoded (so the file is checked) and dropped.
func (r *ExchangeReader) Only(keep func(ex int) bool) { r.keep = keep }

// Eager makes the reader hand an exchange over as soon as its last line
// is read, rather than when a line of another exchange follows it: for a
// reader following a capture still being recorded, whose last exchange
// may be followed by nothing for a long time. A line that comes for it
// later (a note) is read as a continuation, with a warning.
func (r *ExchangeReader) Eager() { r.eager = true }

// Header reads up to the capture header and returns it. Errors about the
// file as a whole (empty, no header, an unsupported version, a read error)
// are returned here and by every later call.
func (r *ExchangeReader) Header() (*Header, error) {
	for r.header == nil && r.err == nil {
		rec, err := r.d.Next()
		if err != nil {
			r.fail(err)
			break
		}
		if rec.Kind == KindHeader {
			r.header = rec.Header
			r.sandwich = rec.Header.Engine.Profile == "external"
		}
	}
	return r.header, r.err
}

func (r *ExchangeReader) fail(err error) {
	if errors.Is(err, io.EOF) {
		r.eof = true
		if r.header == nil {
			r.err = err
		}
		return
	}
	r.err = err
}

// Next returns the next complete exchange. At the end of the capture it
// returns io.EOF; errors about the file as a whole are returned as they
// happen (after the exchanges completed before them). Problems with single
// lines are collected in Warnings, as [Read] does.
func (r *ExchangeReader) Next() (*Exchange, error) {
	if _, err := r.Header(); err != nil {
		return nil, err
	}
	for len(r.ready) == 0 {
		if r.eof || r.err != nil {
			if len(r.g.byEx) > 0 {
				for _, gx := range r.g.open() {
					r.hand(gx)
				}
				break
			}
			if r.err != nil {
				return nil, r.err
			}
			return nil, io.EOF
		}
		rec, err := r.d.Next()
		if err != nil {
			var lerr *LineError
			if errors.As(err, &lerr) {
				r.lineErrs = append(r.lineErrs, err)
				continue
			}
			r.fail(err)
			continue
		}
		r.take(rec)
	}
	x := r.ready[0]
	r.ready[0] = nil
	r.ready = r.ready[1:]
	return x, nil
}

// take files one record and hands over what it completes.
func (r *ExchangeReader) take(rec Record) {
	if rec.Kind == KindHeader {
		return
	}
	ex := rec.Ex()
	if ex != 0 && r.keep != nil && !r.keep(ex) {
		return
	}
	if ex != 0 && ex != r.lastEx {
		// A line of another exchange: the previous one is complete if all
		// its lines are in.
		if prev := r.g.byEx[r.lastEx]; prev != nil && (prev.done(r.sandwich) || !r.interleaved && prev.settledWithoutClient()) {
			r.hand(prev)
		}
		_, open := r.g.byEx[ex]
		last, handed := r.yielded[ex]
		if open || handed {
			r.interleaved = true
		}
		if handed && !open {
			r.g.warnings = append(r.g.warnings, &LineError{File: r.d.name, Line: rec.Line,
				Err: fmt.Errorf("a %s line for exchange %d after the exchange was complete (its last line is %d); read as a continuation of it", rec.Kind, ex, last)})
			gx, _ := r.g.get(ex, rec.Line)
			gx.x.Continued = true
		}
		r.lastEx = ex
	}
	r.g.add(rec)
	if r.eager && ex != 0 {
		if gx := r.g.byEx[ex]; gx != nil && gx.done(r.sandwich) {
			r.hand(gx)
			r.lastEx = 0 // a later line of ex is a continuation
		}
	}
}

// hand moves a gathered exchange to the ready list.
func (r *ExchangeReader) hand(gx *gathering) {
	x := gx.finish()
	delete(r.g.byEx, x.Ex)
	r.yielded[x.Ex] = max(r.yielded[x.Ex], gx.lastLine)
	r.ready = append(r.ready, x)
}

// Warnings returns the problems skipped so far, sorted by line: malformed,
// torn, duplicate, unknown and late lines, each a [*LineError].
func (r *ExchangeReader) Warnings() []error {
	w := append(append(slices.Clone(r.d.Warnings()), r.lineErrs...), r.g.warnings...)
	slices.SortStableFunc(w, func(a, b error) int { return cmp.Compare(warningLine(a), warningLine(b)) })
	return w
}

// Notes returns the notes on the capture as a whole (ex 0) read so far; all
// of them once Next has returned io.EOF.
func (r *ExchangeReader) Notes() []Note { return r.g.notes }
