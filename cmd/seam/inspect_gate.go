package main

import (
	"fmt"
	"io"
	"time"

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
		if err := writeJUnitFile(g.stdout, g.junit, suite, g.Cases(), 0); err != nil {
			return err
		}
	}
	if g.Reached() {
		return errFindings
	}
	return nil
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
