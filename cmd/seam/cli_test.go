package main

import (
	"os/exec"
	"strings"
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

// Wrapped lines fit the width in columns, not bytes (a "×" is one column
// of two bytes), keep each item whole, and start with the head, then the
// indent.
func TestWrapWords(t *testing.T) {
	items := []string{"client.disagree ×9,", "diff.tool-args-changed ×3,", "sse.unterminated-event ×2,", "xml.unclosed-closer ×1"}
	got := wrapWords(items, 53, "  all: ", "    ")
	want := "  all: client.disagree ×9, diff.tool-args-changed ×3,\n" +
		"    sse.unterminated-event ×2, xml.unclosed-closer ×1\n"
	if got != want {
		t.Fatalf("wrapped\n%s\nwant\n%s", got, want)
	}
	if got := wrapWords(items, 0, "  ", "    "); strings.Count(got, "\n") != 1 {
		t.Fatalf("width 0 wrapped: %q", got)
	}
	if got := wrap("a bb ccc", 5, "  "); got != "  a\n  bb\n  ccc\n" {
		t.Fatalf("wrap: %q", got)
	}
}
