package captures

import (
	"context"
	"io"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/request"
	"github.com/seam-dev/seam/tape"
)

// Inspected is one exchange of an input, read and inspected.
type Inspected struct {
	Path   string       // the input it was read from
	Header *tape.Header // that input's header
	X      *tape.Exchange
	Report *inspect.ExchangeReport
}

// Inspection is an input opened to be inspected exchange by exchange: its
// Source and the inspect.Inspector reading it, holding the exchanges in
// progress and those being inspected, never the capture.
type Inspection struct {
	*Source
	// Inspector inspects the source's exchanges; its Sessions are the
	// input's when the inspect.Options opened with link none.
	Inspector *inspect.Inspector
	read      int
	done      bool
}

// OpenInspection opens the input at path (as Open does) for inspection with
// opts. Close releases it.
func OpenInspection(ctx context.Context, path string, o Options, opts inspect.Options) (*Inspection, error) {
	src, err := Open(ctx, path, o)
	if err != nil {
		return nil, err
	}
	return &Inspection{Source: src, Inspector: inspect.NewInspector(path, *src.Header(), opts)}, nil
}

// Next reads and inspects the next exchange, one at a time, and returns
// its report, or nil after the last.
func (s *Inspection) Next() (*inspect.ExchangeReport, error) {
	if s.done {
		return nil, nil
	}
	x, err := s.Source.Next()
	if err == io.EOF {
		s.done = true
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.read++
	return s.Inspector.Exchange(x), nil
}

// Read returns how many exchanges Next has read.
func (s *Inspection) Read() int { return s.read }

// Run reads the input to its end and inspects its exchanges on every CPU
// (inspect.Inspector.Run), calling fn in the input's order with each
// exchange pick reports (pick nil: every one). Options.Warn hears the
// problems the reader skipped once the input is read. It stops at the
// first error fn returns, or when ctx ends.
func (s *Inspection) Run(ctx context.Context, pick func(*tape.Exchange) inspect.Pick, fn func(Inspected) error) error {
	if pick == nil {
		pick = func(*tape.Exchange) inspect.Pick { return inspect.PickReport }
	}
	err := s.Inspector.Run(ctx, s.Source.Next, pick, func(x *tape.Exchange, rep *inspect.ExchangeReport) error {
		return fn(Inspected{Path: s.Path(), Header: s.Header(), X: x, Report: rep})
	})
	if err != nil {
		return err
	}
	warn(s.o, s.Warnings())
	return nil
}

// InspectAll reads every input in paths in turn, as Run does, holding
// only the exchanges in progress, and calls fn with the exchanges want
// selects (want nil: every one) and their reports, in input order. The
// others are skimmed (inspect.PickSkim), so the sessions and detectors of
// those reported see them; opts.Sessions, when set, links sessions across
// the inputs, and one request.Reader (opts.Requests, or one of its own)
// reads all their requests. Options.Progress hears each input start.
func InspectAll(ctx context.Context, paths []string, o Options, opts inspect.Options, want func(path string, ex int) bool, fn func(Inspected) error) error {
	if opts.Requests == nil {
		// A rotated recording's files carry on each other's
		// conversations.
		opts.Requests = new(request.Reader)
	}
	for i, path := range paths {
		if o.Progress != nil {
			o.Progress.File(i)
		}
		s, err := OpenInspection(ctx, path, o, opts)
		if err != nil {
			return err
		}
		err = s.Run(ctx, func(x *tape.Exchange) inspect.Pick {
			if want != nil && !want(path, x.Ex) {
				return inspect.PickSkim
			}
			return inspect.PickReport
		}, fn)
		s.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
