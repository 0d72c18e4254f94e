package pager

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"testing"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestCommand: SEAM_PAGER wins over PAGER; cat pages nothing.
func TestCommand(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"SEAM_PAGER": " most ", "PAGER": "more"}, "most"},
		{map[string]string{"PAGER": "more"}, "more"},
		{map[string]string{"PAGER": "cat"}, ""},
	} {
		if got := Command(env(tc.env)); got != tc.want {
			t.Errorf("Command(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
	_, lessErr := exec.LookPath("less")
	if got := Command(env(nil)); (lessErr == nil) != (got == "less -FRX") {
		t.Errorf("Command with nothing set = %q (less on PATH: %v)", got, lessErr == nil)
	}
}

// TestStartPagesAndLeft: what is written reaches the pager's output with
// LESS set for it; a pager that quit early is a reader who left.
func TestStartPagesAndLeft(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	var out bytes.Buffer
	p, err := Start(`echo "LESS=$LESS"; cat`, &out, io.Discard, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(p, "paged\n")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "LESS=FRX\npaged\n" {
		t.Errorf("pager wrote %q", out.String())
	}
	if !Left(fmt.Errorf("write: %w", syscall.EPIPE)) || Left(io.EOF) {
		t.Error("Left misjudges")
	}
}
