package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/shape"
)

// Options says how fixtures are checked.
type Options struct {
	// Update writes each fixture's golden from what its replay finds,
	// instead of comparing with it.
	Update bool
	// Faults, when any, replay every fixture a second time under them
	// (see Faultable) and compare that with the replay without them.
	Faults []replay.Fault
	// Seed picks the positions the faults choose.
	Seed uint64
	// Open is how fixtures are opened (see package captures).
	Open captures.Options
}

// Result is what check found for one fixture.
type Result struct {
	Path     string   `json:"path"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems,omitempty"`
	// Ms is how long the fixture took, in milliseconds.
	Ms float64 `json:"ms"`
}

// Run checks every fixture in paths in turn (see Fixture), calling each,
// when set, with a fixture's result as soon as it is known, and returns
// them all. When ctx ends it stops and returns ctx's error: the fixture it
// was on did not fail.
func Run(ctx context.Context, paths []string, o Options, each func(Result)) ([]Result, error) {
	var results []Result
	for _, p := range paths {
		t0 := time.Now()
		problems := Fixture(ctx, p, o)
		if err := ctx.Err(); err != nil {
			return results, err
		}
		r := Result{Path: p, OK: len(problems) == 0, Problems: problems, Ms: float64(time.Since(t0).Microseconds()) / 1000}
		results = append(results, r)
		if each != nil {
			each(r)
		}
	}
	return results, nil
}

// Fixture replays one fixture and compares it with its recording and its
// golden (with o.Update, writes the golden); with o.Faults, it replays
// each exchange again under the faults and compares that with the plain
// replay. It returns what differs, and what went wrong reading the
// fixture or its golden; nothing when ctx ended.
func Fixture(ctx context.Context, path string, o Options) []string {
	src, err := captures.Open(ctx, path, o.Open)
	if err != nil {
		return []string{err.Error()}
	}
	defer src.Close()
	h := src.Header()
	var problems, faulted []string
	eng := replay.RecordedEngine(h)
	got := Golden{Engine: shape.Summary(eng)}
	in := inspect.NewInspector(path, *h, inspect.Options{NoDiffs: true})
	var fc *faultCheck
	if len(o.Faults) > 0 {
		fc = newFaultCheck(path, *h, eng, o.Faults, o.Seed)
	}
	for {
		if ctx.Err() != nil {
			return nil // interrupted: Run says so, not the fixture
		}
		x, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(problems, err.Error())
		}
		replayed := x
		if x.Upstream.Response != nil {
			res, err := replay.Exchange(ctx, x, eng, replay.Options{})
			if err != nil {
				return append(problems, err.Error())
			}
			if !res.Identical() && !res.NoClient {
				problems = append(problems, fmt.Sprintf("exchange %d: replay %s", x.Ex, res.Describe()))
			}
			replayed = res.ToExchange(x)
		}
		rep := in.Exchange(replayed)
		got.Exchanges = append(got.Exchanges, GoldenExchange{Ex: rep.Ex, Findings: FindingLines(rep.Findings)})
		if fc != nil {
			more, err := fc.check(ctx, x, rep)
			if err != nil {
				return append(problems, err.Error())
			}
			faulted = append(faulted, more...)
		}
	}
	var warned []string
	for _, w := range src.Warnings() {
		warned = append(warned, "capture: "+w.Error())
	}
	problems = append(warned, problems...)
	slices.SortStableFunc(got.Exchanges, func(a, b GoldenExchange) int { return a.Ex - b.Ex })
	more, err := checkGolden(GoldenPath(path), got, o.Update)
	if err != nil {
		more = append(more, err.Error())
	}
	return append(append(problems, more...), faulted...)
}
