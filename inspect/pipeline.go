package inspect

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/seam-dev/seam/tape"
)

// Pick says what [Inspector.Run] does with an exchange.
type Pick int

const (
	// PickReport inspects the exchange and hands its report over, as
	// [Inspector.Exchange] does.
	PickReport Pick = iota
	// PickSkim reads the exchange for the exchanges after it, as
	// [Inspector.Skim] does, and hands nothing over.
	PickSkim
	// PickDrop leaves the exchange out altogether.
	PickDrop
)

// Run inspects the exchanges next returns until it returns io.EOF, with
// the reports and the sessions exactly those [Inspector.Exchange] and
// [Inspector.Skim] would give called one exchange at a time: pick (called
// in capture order, before the exchange is inspected) says what to do with
// each exchange, and out is called with every report picked, in capture
// order, on the goroutine that called Run.
//
// The work of an exchange that reads it alone (parsing, assembly, client
// emulation, diffs, most detectors) is done on Workers goroutines, several
// exchanges at once; what reads the exchanges before it (its session, the
// retry detector) is done in order. next is called on a goroutine of its
// own, one call at a time, reading ahead of the reports by a few exchanges
// per worker: that many exchanges are held at once, never the capture.
//
// Run returns the first error next returns that is not io.EOF (once the
// reports of the exchanges before it are out), the first error out
// returns, or ctx's error once ctx is done; then it waits for the call to
// next in progress, if any, before it returns.
func (in *Inspector) Run(ctx context.Context, next func() (*tape.Exchange, error), pick func(*tape.Exchange) Pick, out func(*tape.Exchange, *ExchangeReport) error) error {
	workers := in.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers == 1 {
		return in.runSerial(ctx, next, pick, out)
	}
	// order holds the exchanges read, in capture order, for the reports;
	// work the same exchanges, for the workers. Both are bounded: next is
	// not called while depth exchanges wait for their report.
	depth := 2 * workers
	order := make(chan *job, depth)
	work := make(chan *job, depth)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(order)
		defer close(work)
		for {
			x, err := next()
			if errors.Is(err, io.EOF) {
				return
			}
			j := &job{x: x, err: err, done: make(chan struct{})}
			if err == nil {
				j.pick = pick(x)
			}
			select {
			case order <- j:
			case <-quit:
				return
			}
			if err != nil {
				return
			}
			if j.pick == PickDrop {
				close(j.done)
				continue
			}
			select {
			case work <- j:
			case <-quit:
				return
			}
		}
	})
	for range workers {
		wg.Go(func() {
			for j := range work {
				j.ctx = in.prepare(j.x, j.pick)
				close(j.done)
			}
		})
	}
	defer wg.Wait()
	defer close(quit)
	for j := range order {
		if j.err != nil {
			return j.err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		<-j.done
		if j.pick == PickDrop {
			continue
		}
		if rep := in.settle(j.ctx); j.pick == PickReport {
			if err := out(j.x, rep); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// job is one exchange on its way through Run.
type job struct {
	x    *tape.Exchange
	err  error // from next, instead of x
	pick Pick
	// ctx is the prepared exchange, set before done is closed.
	ctx  *exCtx
	done chan struct{}
}

// runSerial is Run on the calling goroutine alone.
func (in *Inspector) runSerial(ctx context.Context, next func() (*tape.Exchange, error), pick func(*tape.Exchange) Pick, out func(*tape.Exchange, *ExchangeReport) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		x, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch pick(x) {
		case PickReport:
			if err := out(x, in.Exchange(x)); err != nil {
				return err
			}
		case PickSkim:
			in.Skim(x)
		}
	}
}

// ExPicker picks the exchanges a report on one of them (seam inspect
// --ex N) needs: that one reported, those before it skimmed (read and
// assembled, so its session and its retry detector see them) and those
// after it dropped; with n 0, every one reported.
type ExPicker struct {
	n      int
	seen   map[int]bool
	picked int
}

// NewExPicker returns the picker of exchange n, 0 for every exchange.
func NewExPicker(n int) *ExPicker { return &ExPicker{n: n, seen: map[int]bool{}} }

// Pick is the pick for x, for Inspector.Run.
func (p *ExPicker) Pick(x *tape.Exchange) Pick {
	p.seen[x.Ex] = true
	switch {
	case p.n == 0 || x.Ex == p.n:
		p.picked++
		return PickReport
	case p.picked == 0:
		return PickSkim
	}
	return PickDrop
}

// Picked returns how many exchanges were reported.
func (p *ExPicker) Picked() int { return p.picked }

// Seen returns how many different exchange numbers were offered.
func (p *ExPicker) Seen() int { return len(p.seen) }
