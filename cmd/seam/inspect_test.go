package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seam-dev/seam/inspect"
)

// TestListDetectorsSelfContained checks that --list-detectors fits an
// 80-column terminal, names every detector with its severity, and cites
// no document the user does not have (no "protocols.md §3", no bug
// "class C"): what each catches is said in plain words.
func TestListDetectorsSelfContained(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := listDetectors(&b); err != nil {
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

// Colour, the progress line and the table's width follow a terminal only:
// /dev/null is a character device, not a terminal.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	e := testEnv(nil, nil, f)
	if colorFlag("auto").enabled(e, f) || newProgress(e, "inspect", nil).on {
		t.Fatal("/dev/null taken for a terminal")
	}
}
