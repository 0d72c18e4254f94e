package main

import (
	"io"

	"github.com/seam-dev/seam/check"
	"github.com/seam-dev/seam/internal/junit"
)

// findingGate follows --fail-on and --junit over the exchanges seam
// inspect reports (check.Gate), and writes what they decided.
type findingGate struct {
	*check.Gate
	junit  string    // --junit
	stdout io.Writer // where --junit - writes
}

// finish writes the JUnit report of suite, with --junit, and says whether
// --fail-on was reached.
func (g *findingGate) finish(suite string) error {
	if g.junit != "" {
		if err := junit.WriteTo(g.stdout, g.junit, suite, g.Cases(), 0); err != nil {
			return err
		}
	}
	if g.Reached() {
		return errFindings
	}
	return nil
}
