package inspect

import (
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestPointerSaysItsClock: a pointer's time is labelled with its clock
// (the capture's), since every other time seam shows (ttfb, durations,
// the timeline, the chart) counts from the exchange's request.
func TestPointerSaysItsClock(t *testing.T) {
	for p, want := range map[Pointer]string{
		{Ex: 1, Side: tape.Client, Event: 282, Chunk: 282, Off: 54805, T: 4034e6}: "ex 1 client event 282 (chunk 282, byte 54805, 4.034s into the capture)",
		{Ex: 2, Side: tape.Upstream, Event: -1, Chunk: 1, Off: 500, T: -1}:        "ex 2 upstream chunk 1 (byte 500, time unknown)",
		{Ex: 3, Event: -1, Chunk: -1, Off: -1, T: -1}:                             "ex 3",
	} {
		if got := p.String(); got != want {
			t.Errorf("%+v: %q, want %q", p, got, want)
		}
	}
}
