package main

import (
	"context"
	"fmt"
	"io"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// exchangeSource hands over a capture's exchanges one at a time: a
// capture file is read by a tape.ExchangeReader, holding only the
// exchanges in progress; an imported recording is held whole (it was
// converted in memory).
type exchangeSource interface {
	// Header returns the capture header.
	Header() (*tape.Header, error)
	// Next returns the next exchange, or io.EOF after the last.
	Next() (*tape.Exchange, error)
	// Only restricts the exchanges handed over to those keep selects.
	Only(keep func(ex int) bool)
	// Warnings returns the problems skipped so far.
	Warnings() []error
	// Notes returns the notes on the capture as a whole read so far.
	Notes() []tape.Note
}

// openExchanges opens a capture or a raw recording for reading exchange by
// exchange, counting its bytes into p when p is not nil, and reads its
// header. done releases the file.
func openExchanges(ctx context.Context, e *env, path string, p *progress) (src exchangeSource, h *tape.Header, done func(), err error) {
	br, capture, done, err := openStream(ctx, e, path, p)
	if err != nil {
		return nil, nil, nil, err
	}
	if capture {
		src = tape.NewExchangeReader(br, path)
	} else {
		c, err := inspect.Import(br, path)
		done()
		if err != nil {
			return nil, nil, nil, err
		}
		src, done = &capturedExchanges{c: c}, func() {}
	}
	if h, err = src.Header(); err != nil {
		done()
		return nil, nil, nil, err
	}
	return src, h, done, nil
}

// capturedExchanges is an exchangeSource over a capture held in memory.
type capturedExchanges struct {
	c    *tape.Capture
	i    int
	keep func(int) bool
}

func (s *capturedExchanges) Header() (*tape.Header, error) { return &s.c.Header, nil }
func (s *capturedExchanges) Only(keep func(int) bool)      { s.keep = keep }
func (s *capturedExchanges) Warnings() []error             { return s.c.Warnings }
func (s *capturedExchanges) Notes() []tape.Note            { return s.c.Notes }

func (s *capturedExchanges) Next() (*tape.Exchange, error) {
	for s.i < len(s.c.Exchanges) {
		x := s.c.Exchanges[s.i]
		s.c.Exchanges[s.i] = nil
		s.i++
		if s.keep == nil || s.keep(x.Ex) {
			return x, nil
		}
	}
	return nil, io.EOF
}

// oneExchange reads exchange n of the input at path, gathering only its
// lines, and returns it with the capture's header and notes.
func oneExchange(ctx context.Context, e *env, path string, n int) (*tape.Header, *tape.Exchange, []tape.Note, error) {
	src, h, done, err := openExchanges(ctx, e, path, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	defer done()
	seen := map[int]bool{}
	src.Only(func(ex int) bool {
		seen[ex] = true
		return ex == n
	})
	var found *tape.Exchange
	for {
		x, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if found == nil {
			found = x
			continue
		}
		// Lines of the exchange that came after it was complete.
		found = mergeExchange(found, x)
	}
	printWarnings(e, src.Warnings())
	if found == nil {
		return nil, nil, nil, noExchange(path, n, len(seen))
	}
	return h, found, src.Notes(), nil
}

// mergeExchange joins a continuation (lines read after x was complete) to
// x, as tape.Read would have gathered them.
func mergeExchange(x, more *tape.Exchange) *tape.Exchange {
	if x.Request == nil {
		x.Request = more.Request
	}
	if x.UpstreamRequest == nil {
		x.UpstreamRequest = more.UpstreamRequest
	}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		a, b := x.Side(s), more.Side(s)
		if a.Response == nil {
			a.Response = b.Response
		}
		a.Chunks = append(a.Chunks, b.Chunks...)
		if a.End == nil {
			a.End = b.End
		}
	}
	x.Notes = append(x.Notes, more.Notes...)
	x.Anomalies = append(x.Anomalies, more.Anomalies...)
	return x
}

// printWarnings prints a capture's skipped problems on stderr.
func printWarnings(e *env, ws []error) {
	for _, w := range ws {
		fmt.Fprintf(e.stderr, "warning: %s\n", visible.String(w.Error()))
	}
}
