package main

import (
	"os/exec"
	"testing"
)

// A quoted word comes back from a POSIX shell exactly, and runs nothing.
func TestShellQuote(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	dir := t.TempDir()
	for _, s := range []string{
		"plain", "/tmp/seam-demo-1/demo.ndjson", "", "two words", "it's", `"quoted"`,
		"$(touch pwned)", "`touch pwned`", "a;touch pwned", "x\ny", "*", "~", "-n", "\\", "é€",
	} {
		cmd := exec.Command(sh, "-c", "printf %s "+shellQuote(s))
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if string(out) != s {
			t.Errorf("shellQuote(%q) came back as %q", s, out)
		}
	}
	if m, _ := exec.Command("ls", dir).Output(); len(m) > 0 {
		t.Fatalf("a quoted word ran a command: %s", m)
	}
}
