package check

import (
	"fmt"
	"strconv"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/junit"
)

// Gate is seam inspect's verdict for CI over the exchanges it reports:
// whether a finding reached the --fail-on severity, and, when JUnit is
// wanted, a test case per exchange failed by its findings at that
// severity (error when none was given).
type Gate struct {
	failOn    inspect.Severity
	failOnSet bool
	threshold inspect.Severity
	junit     bool
	reached   bool
	cases     []junit.Case
}

// NewGate returns a gate failing at failOn (nil: never failing) and
// gathering JUnit cases when junit is set.
func NewGate(failOn *inspect.Severity, junit bool) *Gate {
	g := &Gate{threshold: inspect.Error, junit: junit}
	if failOn != nil {
		g.failOn, g.failOnSet, g.threshold = *failOn, true, *failOn
	}
	return g
}

// Add takes the report on one or more exchanges; rename, when set,
// renames each of their cases.
func (g *Gate) Add(rep *inspect.Report, rename func(junit.Case) junit.Case) {
	if worst, ok := rep.Worst(); ok && g.failOnSet && worst >= g.failOn {
		g.reached = true
	}
	if !g.junit {
		return
	}
	for _, c := range InspectCases(rep, g.threshold) {
		if rename != nil {
			c = rename(c)
		}
		g.cases = append(g.cases, c)
	}
}

// Reached reports whether a finding reached the fail-on severity.
func (g *Gate) Reached() bool { return g.reached }

// Cases are the JUnit cases gathered, in the order the exchanges came.
func (g *Gate) Cases() []junit.Case { return g.cases }

// InspectCases makes one JUnit test case per exchange of rep, failed by
// the findings at or above threshold (each one line: severity, id, place,
// message, and the evidence quoted under it).
func InspectCases(rep *inspect.Report, threshold inspect.Severity) []junit.Case {
	cases := make([]junit.Case, 0, len(rep.Exchanges))
	for _, x := range rep.Exchanges {
		c := junit.Case{
			Name:      fmt.Sprintf("exchange %d %s %s", x.Ex, x.Method, x.URL),
			Classname: "seam.inspect." + string(x.Protocol),
			Time:      junit.Seconds(time.Duration(x.Dur)),
		}
		var lines []string
		for _, f := range x.Findings {
			if f.Severity >= threshold {
				lines = append(lines, fmt.Sprintf("%s %s at %s: %s", f.Severity, f.ID, f.Pointer, f.Message))
				if f.Evidence != "" {
					lines = append(lines, "  evidence "+strconv.Quote(f.Evidence))
				}
			}
		}
		if len(lines) > 0 {
			c.Failure = junit.NewFailure("seam.finding", lines)
		}
		cases = append(cases, c)
	}
	return cases
}
