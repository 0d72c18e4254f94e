package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/junit"
)

// findingGate follows --fail-on and --junit over the exchanges seam
// inspect reports: whether a finding reached --fail-on, and a JUnit case
// per exchange, failed by its findings at --fail-on (error without it).
type findingGate struct {
	o         *inspectOptions
	stdout    io.Writer // where --junit - writes
	failOn    inspect.Severity
	threshold inspect.Severity
	reached   bool
	cases     []junit.Case
}

// add takes the report on one exchange; name, when set, renames its case.
func (g *findingGate) add(one *inspect.Report, name func(junit.Case) junit.Case) {
	if worst, ok := one.Worst(); ok && g.o.failOn != "" && worst >= g.failOn {
		g.reached = true
	}
	if g.o.junit == "" {
		return
	}
	for _, c := range inspectCases(one, g.threshold) {
		if name != nil {
			c = name(c)
		}
		g.cases = append(g.cases, c)
	}
}

// finish writes the JUnit report of suite, with --junit, and says whether
// --fail-on was reached.
func (g *findingGate) finish(suite string) error {
	if g.o.junit != "" {
		if err := writeJUnitFile(g.stdout, g.o.junit, suite, g.cases, 0); err != nil {
			return err
		}
	}
	if g.reached {
		return errFindings
	}
	return nil
}

// inspectCases makes one JUnit test case per exchange, failed by the
// findings at or above threshold (each one line: severity, id, place,
// message).
func inspectCases(rep *inspect.Report, threshold inspect.Severity) []junit.Case {
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

// writeJUnitFile writes a JUnit report to path, or to stdout for "-".
func writeJUnitFile(stdout io.Writer, path, suite string, cases []junit.Case, took time.Duration) error {
	if path == "-" {
		return junit.Write(stdout, suite, cases, took)
	}
	if err := junit.WriteFile(path, suite, cases, took); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}
