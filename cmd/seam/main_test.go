package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the seam command: scripts and the
// subprocess tests run "seam" from PATH, which is this binary running main.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"seam": main})
}

// fixturesDir is the repository's fixtures directory, for scripts to read.
var fixturesDir, _ = filepath.Abs(filepath.Join("..", "..", "fixtures"))

// TestScripts runs the CLI scripts in testdata/script: help text, usage
// errors and exit codes, and the demo end to end.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			e.Setenv("FIXTURES", fixturesDir)
			if home := os.Getenv("HOME"); home != "" {
				e.Setenv("HOME", home)
			}
			return nil
		},
	})
}
