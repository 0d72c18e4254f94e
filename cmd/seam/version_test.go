package main

import (
	"strings"
	"testing"
)

// TestVersionSaysWhyNoCommit: seam version run from a test binary (which,
// as go run, records no commit) says why instead of leaving it out.
func TestVersionSaysWhyNoCommit(t *testing.T) {
	out, err := seamOutput("version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "commit unknown: go run and go test record none") {
		t.Errorf("seam version under go test:\n%s", out)
	}
}
