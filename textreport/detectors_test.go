package textreport

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seam-dev/seam/inspect"
)

// TestDetectorsSelfContained checks that the list of detectors (seam
// inspect --list-detectors) fits an 80-column terminal, names every
// detector with its severity, and cites no document the user does not
// have (no "protocols.md §3", no bug "class C"): what each catches is said
// in plain words.
func TestDetectorsSelfContained(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteDetectors(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	cites := regexp.MustCompile(`\.md\b|§|\bclass [A-Z]\b|seeds/`)
	if m := cites.FindString(out); m != "" {
		t.Errorf("the listing cites %q, a document outside the repository", m)
	}
	for _, d := range inspect.Detectors() {
		if !strings.Contains(out, "\n"+d.Severity.String()) || !strings.Contains(out, "  "+d.ID+"\n") {
			t.Errorf("%s (%s) is not listed", d.ID, d.Severity)
		}
	}
	if !strings.Contains(out, "Catches a shaping proxy that leaks half a tag") {
		t.Errorf("xml.unclosed-closer does not say what it catches:\n%s", out)
	}
}
