package check

import (
	"strings"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
)

// TestFaultChanges: what check --fault compares catches a client that
// assembles other text and findings that change, and nothing when the
// replays agree.
func TestFaultChanges(t *testing.T) {
	c, err := fixtures.Load(fixtures.Incident)
	if err != nil {
		t.Fatal(err)
	}
	on, err := fixtures.Load("incident-holdback-on.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	a := inspect.Inspect(c, inspect.Options{NoDiffs: true}).Exchanges[0]
	b := inspect.Inspect(on, inspect.Options{NoDiffs: true}).Exchanges[0]
	same, err := faultChanges(a, a, "split-rune")
	if err != nil || len(same) != 0 {
		t.Fatalf("the same replay differs: %v %v", same, err)
	}
	got, err := faultChanges(a, b, "split-rune")
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"exchange 1: under split-rune the client assembles something else:",
		"--- without faults", "+++ with split-rune", "</use_tool<use_tool>",
		"exchange 1: under split-rune the findings change (- without the faults, + with them):",
		"- error xml.unclosed-closer client",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
}
