package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/replay"
)

// checkFaults are the faults seam check takes: those that re-cut the
// upstream's chunks or move them in time, which must change nothing of
// what a client assembles. The others change the stream's content by
// design; seam replay --fault shows what they do.
var checkFaults = []replay.FaultKind{
	replay.FaultSplitEvent, replay.FaultSplitRune, replay.FaultCoalesce,
	replay.FaultLatency, replay.FaultStall, replay.FaultJitter,
}

// checkFaultsHelp is the paragraph of seam check's help on --fault.
const checkFaultsHelp = `
--fault replays every fixture a second time with its upstream chunks
faulted (repeat it to combine faults, applied in order; --seed picks the
positions), as seam serve --fault would send them, and checks that the
faults change nothing that matters: what the client assembles (its text
and tool calls) and the findings (by id, severity and side) must be those
of the replay without faults. Frame boundaries and event numbers may
differ: a proxy is free to re-cut a stream, not to change it. Only the
faults that re-cut or move the chunks apply (split-event, split-rune,
coalesce, latency, stall, jitter); those that change the content
(drop-delta, truncate, status, ...) make every stream differ by design:
see what they do with seam replay --fault.`

// checkFaultable refuses the faults seam check does not take.
func checkFaultable(faults []replay.Fault) error {
	for _, f := range faults {
		if !slices.Contains(checkFaults, f.Kind) {
			return fmt.Errorf("--fault %s changes the stream's content, so every replay would differ; check takes the faults that re-cut or move chunks (split-event, split-rune, coalesce, latency, stall, jitter); seam replay --fault %s shows what it does", f, f)
		}
	}
	return nil
}

// checkUnderFaults replays each exchange of the fixture at path with and
// without faults and returns how the faulted replay differs in what the
// client assembles and in its findings.
func checkUnderFaults(ctx context.Context, e *env, path string, faults []replay.Fault, seed uint64) ([]string, error) {
	src, h, done, err := openExchanges(e, path, nil)
	if err != nil {
		return nil, err
	}
	defer done()
	eng := recordedEngine(h)
	plain := inspect.NewInspector(path, *h, inspect.Options{NoDiffs: true})
	faulted := inspect.NewInspector(path, *h, inspect.Options{NoDiffs: true})
	ff := faultFlag(faults)
	names := ff.String()
	var problems []string
	for {
		x, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if x.Upstream.Response == nil {
			continue
		}
		r0, err := replay.Exchange(ctx, x, eng, replay.Options{})
		if err != nil {
			return nil, err
		}
		rf, err := replay.Exchange(ctx, x, eng, replay.Options{Faults: faults, Seed: seed})
		if err != nil {
			return nil, err
		}
		a, b := plain.Exchange(r0.ToExchange(x)), faulted.Exchange(rf.ToExchange(x))
		more, err := faultChanges(a, b, names)
		if err != nil {
			return nil, err
		}
		problems = append(problems, more...)
	}
	return problems, nil
}

// faultChanges says how b, an exchange replayed under the faults names
// lists, differs from a, the same exchange replayed without them: in what
// the client assembles, and in its findings by id, severity and side.
func faultChanges(a, b *inspect.ExchangeReport, names string) ([]string, error) {
	var problems []string
	if d := inspect.DiffExchangeReports(a, b); !d.Equal {
		d.A, d.B = "without faults", "with "+names
		var buf bytes.Buffer
		if err := inspect.WriteDiff(&buf, d, false); err != nil {
			return nil, err
		}
		lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
		problems = append(problems, fmt.Sprintf("exchange %d: under %s the client assembles something else:\n%s", a.Ex, names, strings.Join(lines[:min(len(lines), 12)], "\n")))
	}
	if lines := countDiff(findingKinds(a), findingKinds(b)); len(lines) > 0 {
		problems = append(problems, fmt.Sprintf("exchange %d: under %s the findings change (- without the faults, + with them):\n%s", a.Ex, names, strings.Join(lines, "\n")))
	}
	return problems, nil
}

// findingKinds lists the warn and error findings as "severity id side",
// without the event numbers re-cutting may change.
func findingKinds(x *inspect.ExchangeReport) []string {
	var out []string
	for _, f := range x.Findings {
		if f.Severity >= inspect.Warn {
			out = append(out, fmt.Sprintf("%s %s %s", f.Severity, f.ID, f.Pointer.Side))
		}
	}
	return out
}
