package textreport

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgress: a long run on a terminal says how far it got, in one line
// rewritten in place and cleared at the end; a run that is not long, or
// not on a terminal, says nothing.
func TestProgress(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, false, "stats", 2, 4_000_000)
	p.Read(3_000_000)
	p.Done()
	if out.Len() != 0 {
		t.Fatalf("said %q off a terminal", out.String())
	}
	p.on = true // as on a terminal
	p.File(0)
	if out.Len() != 0 {
		t.Fatalf("said %q in the first second", out.String())
	}
	p.start = time.Now().Add(-2 * time.Second)
	p.File(1)
	p.Done()
	got := out.String()
	if !strings.Contains(got, "\r\x1b[Kstats: 2.9 MiB of 3.8 MiB (75%) · capture 2 of 2") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("progress %q", got)
	}
}
