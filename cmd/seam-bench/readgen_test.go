package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/bench"
	"github.com/seam-dev/seam/tape"
)

// TestGenCapture: the reading benchmark's capture is the same for the same
// seed (figures from two runs compare), is a capture seam reads whole
// (every exchange complete on both sides, every hash verified), and mixes
// every protocol family it names (the default seed's first 8 MiB do).
func TestGenCapture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files [3][]byte
	for i, seed := range []uint64{1, 1, 2} {
		path := filepath.Join(dir, "c"+string(rune('a'+i))+".ndjson")
		n, ex, err := genCapture(path, "../../fixtures", 8<<20, seed)
		if err != nil {
			t.Fatal(err)
		}
		if n < 8<<20 || ex == 0 {
			t.Fatalf("seed %d: %d bytes, %d exchanges: want at least 8 MiB", seed, n, ex)
		}
		if files[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		check, err := bench.CheckCapture(path)
		if err != nil {
			t.Fatal(err)
		}
		if check.Exchanges != ex || check.Incomplete > 0 {
			t.Fatalf("seed %d: %d exchanges written, %+v read", seed, ex, check)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("the same seed made two different captures")
	}
	if bytes.Equal(files[0], files[2]) {
		t.Error("two seeds made the same capture")
	}
	c, err := tape.Read(bytes.NewReader(files[0]), "ca.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.V != tape.Version {
		t.Errorf("format v%d, want v%d", c.Header.V, tape.Version)
	}
	seen := map[string]bool{}
	for _, x := range c.Exchanges {
		for _, f := range families {
			for _, m := range f.models {
				if x.Request != nil && x.Request.URL == f.url(m) {
					seen[f.name] = true
				}
			}
		}
	}
	for _, f := range families {
		if !seen[f.name] {
			t.Errorf("no %s exchange in %d", f.name, len(c.Exchanges))
		}
	}
}
