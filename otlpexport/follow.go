package otlpexport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// followEvery is how often Follow looks for more lines at the end of the
// capture.
const followEvery = 100 * time.Millisecond

// Follower exports the exchanges of a capture as it is being recorded.
type Follower struct {
	stop context.CancelFunc
	done chan struct{}
	err  error
}

// FollowOptions tune Follow.
type FollowOptions struct {
	// URI is the capture URI spans carry (FileURI(path) when nil); it is
	// called per exchange, so it can change (a capture uploaded).
	URI func() string
	// Stall is inspect's stall threshold (0: its default).
	Stall time.Duration
	// Duty is the share of one core the export may take while the
	// recording runs (DefaultDuty when 0): after each exchange it waits in
	// proportion to the time the exchange took, so on a busy machine the
	// streams get the CPU and the export falls behind in the file, to
	// catch up at full speed once the recording stops. Its memory does not
	// grow with the lag: the capture holds what is still to read.
	Duty float64
}

// DefaultDuty is FollowOptions.Duty's default.
const DefaultDuty = 0.5

// Follow starts reading the capture at path (plain or zstd) from its
// header on, as the recorder writes it, and exports each exchange once
// its end lines are in the file, inspected as seam inspect would (one
// exchange at a time, its sessions linked across the capture). It reads
// on a goroutine of its own: the recording never waits for it. Stop ends
// it.
func Follow(path string, x *Exporter, o FollowOptions) (*Follower, error) {
	f, err := tape.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("otlp: follow the capture: %w", err)
	}
	if o.URI == nil {
		uri := FileURI(path)
		o.URI = func() string { return uri }
	}
	ctx, stop := context.WithCancel(context.Background())
	fl := &Follower{stop: stop, done: make(chan struct{})}
	go func() {
		defer close(fl.done)
		defer f.Close()
		fl.err = follow(ctx, path, captures.Uncompressed(&tail{ctx: ctx, f: f}), x, o)
	}()
	return fl, nil
}

func follow(ctx context.Context, path string, src io.Reader, x *Exporter, o FollowOptions) error {
	r := tape.NewExchangeReader(src, path)
	r.Eager()
	h, err := r.Header()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil // stopped before the header was written
		}
		return fmt.Errorf("otlp: follow %s: %w", path, err)
	}
	in := inspect.NewInspector(path, *h, inspectOptions(o.Stall))
	in.Workers = 1 // beside a recording: one core at most
	duty := o.Duty
	if duty <= 0 || duty > 1 {
		duty = DefaultDuty
	}
	var busy time.Time // when the exchange being exported was read
	next := func() (*tape.Exchange, error) {
		if !busy.IsZero() && ctx.Err() == nil {
			pause(ctx, time.Duration(float64(time.Since(busy))*(1/duty-1)))
		}
		for {
			ex, err := r.Next()
			busy = time.Now()
			if err != nil || !ex.Continued {
				return ex, err
			}
			// A late line (a note after the exchange ended): its span is out.
		}
	}
	pick := func(*tape.Exchange) inspect.Pick { return inspect.PickReport }
	return in.Run(context.Background(), next, pick, func(ex *tape.Exchange, rep *inspect.ExchangeReport) error {
		x.Export(Exchange{Header: h, CaptureURI: o.URI(), X: ex, Report: rep})
		return nil
	})
}

// Stop reads the capture to its end (call it once the recorder closed
// it), exports what is left and returns the first error reading it met.
// The spans are then queued in the Exporter: Close it to send them.
func (fl *Follower) Stop() error {
	fl.stop()
	<-fl.done
	return fl.err
}

// maxPause bounds one wait of Follow's duty cycle.
const maxPause = time.Second

// pause waits d (at most maxPause), or until ctx is done.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(min(d, maxPause))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// inspectOptions are the options Follow inspects with.
func inspectOptions(stall time.Duration) inspect.Options {
	return inspect.Options{Stall: stall, NoDiffs: true}
}

// tail reads a file still being written: at its end it looks again every
// followEvery until ctx is done, and then reads what is left before it
// reads io.EOF (the recorder wrote its last lines before Stop).
type tail struct {
	ctx context.Context
	f   *os.File
}

func (t *tail) Read(p []byte) (int, error) {
	for {
		n, err := t.f.Read(p)
		if n > 0 || err != io.EOF {
			return n, err
		}
		if t.ctx.Err() != nil {
			return 0, io.EOF // read to the end after the stop
		}
		select {
		case <-t.ctx.Done():
		case <-time.After(followEvery):
		}
	}
}

// Exists reports whether path names a file Follow can read: a recording
// written to stdout has none.
func Exists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
