package shellquote

import (
	"os/exec"
	"testing"
)

// A quoted word comes back from a POSIX shell exactly, and runs nothing,
// whichever of Quote and Word quoted it.
func TestQuoteRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	dir := t.TempDir()
	for _, s := range []string{
		"plain", "/tmp/seam-demo-1/demo.ndjson", "", "two words", "it's", `"quoted"`, "'", "''",
		"$(touch pwned)", "`touch pwned`", "a;touch pwned", "x\ny", "*", "~", "-n", "\\", "é€", "a=b", "%1",
	} {
		for name, quote := range map[string]func(string) string{"Quote": Quote, "Word": Word} {
			cmd := exec.Command(sh, "-c", "printf %s "+quote(s))
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s(%q): %v", name, s, err)
			}
			if string(out) != s {
				t.Errorf("%s(%q) came back as %q", name, s, out)
			}
		}
	}
	if m, _ := exec.Command("ls", dir).Output(); len(m) > 0 {
		t.Fatalf("a quoted word ran a command: %s", m)
	}
}

// Word leaves a path or a flag bare, as a hint reads best; Quote quotes
// every word, as the curl export promises.
func TestWordBare(t *testing.T) {
	for s, want := range map[string]string{
		"fixtures/incident.ndjson": "fixtures/incident.ndjson",
		"--ex":                     "--ex",
		"a b":                      "'a b'",
		"":                         "''",
		"~/x":                      "'~/x'",
	} {
		if got := Word(s); got != want {
			t.Errorf("Word(%q) = %s, want %s", s, got, want)
		}
	}
	if got := Quote("POST"); got != "'POST'" {
		t.Errorf("Quote(POST) = %s", got)
	}
}
