package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/captures"
)

// FuzzIndex scans any bytes as a capture file, as the TUI does before it
// decodes anything, in steps of a few bytes and whole, and loads every
// exchange it indexed: nothing may panic, and the steps must not change
// what is indexed.
func FuzzIndex(f *testing.F) {
	files, _ := filepath.Glob("../fixtures/*.ndjson")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 16<<10 {
			f.Add(b, uint8(64))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		scanAll := func(max int64) *indexer {
			ix := newIndexer("fuzz.ndjson", 0)
			for range len(in) + 2 {
				_, more, err := ix.scan(bytes.NewReader(in), int64(len(in)), max)
				if err != nil || !more {
					return ix
				}
			}
			t.Fatal("the scan does not end")
			return nil
		}
		whole := scanAll(int64(len(in)) + 1)
		stepped := scanAll(int64(step%64) + 1)
		if len(whole.order) != len(stepped.order) || (whole.refused == nil) != (stepped.refused == nil) {
			t.Fatalf("%d exchanges whole, %d in steps (refused %v, %v)", len(whole.order), len(stepped.order), whole.refused, stepped.refused)
		}
		for _, s := range whole.order {
			loadExchange(bytes.NewReader(in), "fuzz.ndjson", whole.hdr, s.lines)
		}
		captures.CheckHeader(bytes.NewReader(in), "fuzz.ndjson")
	})
}
