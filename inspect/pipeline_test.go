package inspect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
)

// pipelineCaptures returns the captures the pipeline tests run: every
// fixture, and one capture holding the exchanges of every detector case
// (each firing and calm, with the exchanges recorded before it), so every
// detector fires and sessions and retries link across exchanges.
func pipelineCaptures(t *testing.T) []*tape.Capture {
	t.Helper()
	var cs []*tape.Capture
	for _, name := range fixtures.Captures() {
		c, err := fixtures.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	all := &tape.Capture{Name: "detectors"}
	for _, tc := range detectorCases() {
		for _, in := range []exInput{tc.fire, tc.calm} {
			for _, x := range in.capture().Exchanges {
				x.Ex = len(all.Exchanges) + 1
				all.Exchanges = append(all.Exchanges, x)
			}
		}
	}
	return append(cs, all)
}

// nextOf returns a next function over c's exchanges.
func nextOf(c *tape.Capture) func() (*tape.Exchange, error) {
	i := 0
	return func() (*tape.Exchange, error) {
		if i == len(c.Exchanges) {
			return nil, io.EOF
		}
		i++
		return c.Exchanges[i-1], nil
	}
}

// rendered writes reports and sessions as the text and the JSON reports.
func rendered(t *testing.T, name string, reps []*ExchangeReport, ss []*session.Session) string {
	t.Helper()
	r := &Report{Schema: SchemaVersion, Capture: name, Exchanges: reps, Sessions: ss}
	var b bytes.Buffer
	if err := WriteText(&b, r, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRunSameAsExchange: Run, on several workers, gives every capture the
// reports and sessions, byte for byte in text and JSON, that Exchange and
// Skim called one exchange at a time give, for each way of picking the
// exchanges (all, every other one skimmed, every third dropped).
func TestRunSameAsExchange(t *testing.T) {
	picks := map[string]func(x *tape.Exchange) Pick{
		"all":     func(*tape.Exchange) Pick { return PickReport },
		"skimmed": func(x *tape.Exchange) Pick { return Pick(x.Ex % 2) },
		"dropped": func(x *tape.Exchange) Pick {
			if x.Ex%3 == 0 {
				return PickDrop
			}
			return PickReport
		},
	}
	for _, c := range pipelineCaptures(t) {
		for pn, pick := range picks {
			t.Run(c.Name+"/"+pn, func(t *testing.T) {
				seq := NewInspector(c.Name, c.Header, Options{})
				var want []*ExchangeReport
				for _, x := range c.Exchanges {
					switch pick(x) {
					case PickReport:
						want = append(want, seq.Exchange(x))
					case PickSkim:
						seq.Skim(x)
					}
				}
				for _, workers := range []int{1, 2, 5} {
					in := NewInspector(c.Name, c.Header, Options{})
					in.Workers = workers
					var got []*ExchangeReport
					err := in.Run(context.Background(), nextOf(c), pick, func(_ *tape.Exchange, r *ExchangeReport) error {
						got = append(got, r)
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					w, g := rendered(t, c.Name, want, seq.Sessions()), rendered(t, c.Name, got, in.Sessions())
					if g != w {
						t.Fatalf("%d workers: the report differs from one made an exchange at a time:\n%s", workers, firstDiff(w, g))
					}
				}
			})
		}
	}
}

// firstDiff shows where b first departs from a.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-200, 0)
	return fmt.Sprintf("want …%q…\ngot  …%q…", a[lo:min(i+200, len(a))], b[lo:min(i+200, len(b))])
}

// TestRunBounded: Run reads ahead of the reports by a bounded number of
// exchanges, however many the capture holds.
func TestRunBounded(t *testing.T) {
	c := &tape.Capture{Name: "many"}
	for i := 1; i <= 200; i++ {
		c.Exchanges = append(c.Exchanges, exInput{client: chatText("Hello", " world")}.exchange(i))
	}
	for _, workers := range []int{2, 4} {
		in := NewInspector(c.Name, c.Header, Options{})
		in.Workers = workers
		next := nextOf(c)
		var read atomic.Int64
		ahead := 0
		err := in.Run(context.Background(), func() (*tape.Exchange, error) {
			read.Add(1)
			return next()
		}, func(*tape.Exchange) Pick { return PickReport }, func(x *tape.Exchange, r *ExchangeReport) error {
			if r.Ex != x.Ex {
				t.Fatalf("report of exchange %d handed over with exchange %d", r.Ex, x.Ex)
			}
			ahead = max(ahead, int(read.Load())-x.Ex)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// 2×workers waiting for their report, one more read and blocked.
		if limit := 2*workers + 2; ahead > limit {
			t.Errorf("%d workers: read %d exchanges ahead of the report, want at most %d", workers, ahead, limit)
		}
	}
}

// TestRunErrors: an error from next comes after the reports of the
// exchanges before it; an error from out stops Run and is returned; so is
// the context's, once it is done. Nothing is left running.
func TestRunErrors(t *testing.T) {
	c := &tape.Capture{Name: "errors"}
	for i := 1; i <= 50; i++ {
		c.Exchanges = append(c.Exchanges, exInput{client: chatText("Hello")}.exchange(i))
	}
	all := func(*tape.Exchange) Pick { return PickReport }
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			bad := errors.New("line 99: torn")
			next := nextOf(c)
			n := 0
			in := NewInspector(c.Name, c.Header, Options{})
			in.Workers = workers
			err := in.Run(context.Background(), func() (*tape.Exchange, error) {
				x, err := next()
				if err == nil && x.Ex == 20 {
					return nil, bad
				}
				return x, err
			}, all, func(x *tape.Exchange, _ *ExchangeReport) error {
				n++
				return nil
			})
			if !errors.Is(err, bad) || n != 19 {
				t.Errorf("next failing at exchange 20: %d reports, error %v; want 19, %v", n, err, bad)
			}

			stop := errors.New("write: broken pipe")
			in = NewInspector(c.Name, c.Header, Options{})
			in.Workers = workers
			n = 0
			err = in.Run(context.Background(), nextOf(c), all, func(x *tape.Exchange, _ *ExchangeReport) error {
				n++
				if x.Ex == 7 {
					return stop
				}
				return nil
			})
			if !errors.Is(err, stop) || n != 7 {
				t.Errorf("out failing at exchange 7: %d reports, error %v; want 7, %v", n, err, stop)
			}

			ctx, cancel := context.WithCancel(context.Background())
			in = NewInspector(c.Name, c.Header, Options{})
			in.Workers = workers
			n = 0
			err = in.Run(ctx, nextOf(c), all, func(x *tape.Exchange, _ *ExchangeReport) error {
				n++
				if x.Ex == 5 {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) || n != 5 {
				t.Errorf("cancelled at exchange 5: %d reports, error %v; want 5, %v", n, err, context.Canceled)
			}
		})
	}
}

// TestExPicker: with --ex N the exchanges before N are skimmed, N is
// reported and those after it dropped; with 0 every one is reported.
func TestExPicker(t *testing.T) {
	p := NewExPicker(3)
	var got []Pick
	for _, ex := range []int{1, 2, 3, 4} {
		got = append(got, p.Pick(&tape.Exchange{Ex: ex}))
	}
	if want := []Pick{PickSkim, PickSkim, PickReport, PickDrop}; !slices.Equal(got, want) || p.Picked() != 1 || p.Seen() != 4 {
		t.Errorf("--ex 3: %v (%d picked of %d), want %v", got, p.Picked(), p.Seen(), want)
	}
	all := NewExPicker(0)
	for _, ex := range []int{1, 2} {
		if all.Pick(&tape.Exchange{Ex: ex}) != PickReport {
			t.Errorf("every exchange: %d not reported", ex)
		}
	}
	if none := NewExPicker(9); none.Pick(&tape.Exchange{Ex: 1}) != PickSkim || none.Picked() != 0 {
		t.Error("--ex 9 of a capture without it")
	}
}
