package check

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
)

// Faults are the faults seam check takes: those that re-cut the
// upstream's chunks or move them in time, which must change nothing of
// what a client assembles. The others change the stream's content by
// design; seam replay --fault shows what they do.
var Faults = []replay.FaultKind{
	replay.FaultSplitEvent, replay.FaultSplitRune, replay.FaultCoalesce,
	replay.FaultLatency, replay.FaultStall, replay.FaultJitter,
}

// Faultable refuses the faults seam check does not take (see Faults).
func Faultable(faults []replay.Fault) error {
	for _, f := range faults {
		if !slices.Contains(Faults, f.Kind) {
			return fmt.Errorf("--fault %s changes the stream's content, so every replay would differ; check takes the faults that re-cut or move chunks (split-event, split-rune, coalesce, latency, stall, jitter); seam replay --fault %s shows what it does", f, f)
		}
	}
	return nil
}

// faultCheck replays the exchanges of one fixture under faults, to
// compare each with its replay without them.
type faultCheck struct {
	eng    tape.Engine
	faults []replay.Fault
	seed   uint64
	names  string // the faults as --fault spells them
	// in inspects the faulted replays, as Fixture's inspector does the
	// plain ones: the same exchanges in the same order.
	in *inspect.Inspector
}

func newFaultCheck(path string, h tape.Header, eng tape.Engine, faults []replay.Fault, seed uint64) *faultCheck {
	names := make([]string, len(faults))
	for i, f := range faults {
		names[i] = f.String()
	}
	return &faultCheck{eng: eng, faults: faults, seed: seed, names: strings.Join(names, ","),
		in: inspect.NewInspector(path, h, inspect.Options{NoDiffs: true})}
}

// check replays x under the faults and says how it differs from plain,
// the report on its replay without them. An exchange with no upstream
// response has nothing to replay: it is inspected as it is, as the plain
// replay's inspector does.
func (c *faultCheck) check(ctx context.Context, x *tape.Exchange, plain *inspect.ExchangeReport) ([]string, error) {
	if x.Upstream.Response == nil {
		c.in.Exchange(x)
		return nil, nil
	}
	res, err := replay.Exchange(ctx, x, c.eng, replay.Options{Faults: c.faults, Seed: c.seed})
	if err != nil {
		return nil, err
	}
	return faultChanges(plain, c.in.Exchange(res.ToExchange(x)), c.names)
}

// faultChanges says how b, an exchange replayed under the faults names
// lists, differs from a, the same exchange replayed without them: in what
// the client assembles, and in its findings by id, severity and side.
func faultChanges(a, b *inspect.ExchangeReport, names string) ([]string, error) {
	var problems []string
	if d := inspect.DiffExchangeReports(a, b); !d.Equal {
		d.A, d.B = "without faults", "with "+names
		var buf bytes.Buffer
		if err := textreport.WriteDiff(&buf, d, false); err != nil {
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
