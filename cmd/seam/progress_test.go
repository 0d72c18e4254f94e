package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgress: a long run on a terminal says how far it got, in one line
// rewritten in place and cleared at the end; a run that is not long, or
// not on a terminal, says nothing.
func TestProgress(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"a.ndjson", "b.ndjson"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 2_000_000), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var out bytes.Buffer
	e := &env{stderr: &out}
	p := newProgress(e, "stats", paths)
	if p.on {
		t.Fatal("progress on a buffer, not a terminal")
	}
	p.Read(3_000_000)
	p.done()
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
	p.done()
	got := out.String()
	if !strings.Contains(got, "\r\x1b[Kstats: 2.9 MiB of 3.8 MiB (75%) · capture 2 of 2") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("progress %q", got)
	}
}
