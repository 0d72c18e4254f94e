package check

import (
	"strings"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/junit"
)

// TestInspectCases: one case per exchange, failed by its findings at the
// threshold, each with its place and evidence.
func TestInspectCases(t *testing.T) {
	c, err := fixtures.Load(fixtures.Incident)
	if err != nil {
		t.Fatal(err)
	}
	rep := inspect.Inspect(c, inspect.Options{})
	cs := InspectCases(rep, inspect.Error)
	if len(cs) != len(c.Exchanges) || cs[0].Failure == nil || !strings.Contains(cs[0].Failure.Text, "error xml.unclosed-closer at ") ||
		!strings.Contains(cs[0].Failure.Text, "  evidence ") || !strings.HasPrefix(cs[0].Classname, "seam.inspect.") {
		t.Fatalf("cases %+v", cs)
	}
}

// TestGate: --fail-on is reached only when a finding is at or above it
// and was asked for; the JUnit cases are gathered only when wanted, and
// renamed as asked.
func TestGate(t *testing.T) {
	c, err := fixtures.Load(fixtures.Incident)
	if err != nil {
		t.Fatal(err)
	}
	rep := inspect.Inspect(c, inspect.Options{})
	sev := inspect.Error
	for _, tc := range []struct {
		failOn      *inspect.Severity
		junit, want bool
	}{{nil, false, false}, {&sev, false, true}, {nil, true, false}} {
		g := NewGate(tc.failOn, tc.junit)
		g.Add(rep, func(c junit.Case) junit.Case { c.Name = "renamed"; return c })
		if g.Reached() != tc.want {
			t.Errorf("fail-on %v: reached %v, want %v", tc.failOn, g.Reached(), tc.want)
		}
		if n := len(g.Cases()); (n > 0) != tc.junit || tc.junit && g.Cases()[0].Name != "renamed" {
			t.Errorf("junit %v: cases %+v", tc.junit, g.Cases())
		}
	}
}
