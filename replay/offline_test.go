package replay_test

import (
	"context"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
)

// TestPassthroughReplayIdentical: replaying every embedded fixture through
// the passthrough engine reproduces its recorded client side chunk for chunk.
func TestPassthroughReplayIdentical(t *testing.T) {
	for _, name := range fixtures.Captures() {
		c, err := fixtures.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range c.Exchanges {
			res, err := replay.Exchange(context.Background(), x, tape.Engine{Profile: "passthrough"}, replay.Options{})
			if err != nil {
				t.Fatalf("%s exchange %d: %v", name, x.Ex, err)
			}
			if !res.Identical() {
				t.Errorf("%s exchange %d: %s", name, x.Ex, res.Describe())
			}
		}
	}
}

// TestReplayReportsFirstDifference: a recorded client side that differs from
// what the engine produces is reported at the first differing frame.
func TestReplayReportsFirstDifference(t *testing.T) {
	c, err := fixtures.Load("anthropic-tool-use.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	x := *c.Exchanges[0]
	chunks := append([]tape.Chunk(nil), x.Client.Chunks...)
	chunks[3].Data = []byte("event: ping\ndata: {\"type\":\"ping\"}\n\n")
	x.Client.Chunks = chunks
	res, err := replay.Exchange(context.Background(), &x, tape.Engine{}, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Identical() || res.Mismatch != 3 {
		t.Fatalf("mismatch at %d, want 3: %s", res.Mismatch, res.Describe())
	}
	// Same bytes with other boundaries is a difference too.
	x = *c.Exchanges[0]
	merged := append([]tape.Chunk(nil), x.Client.Chunks[:2]...)
	merged[1].Data = append(append([]byte(nil), merged[1].Data...), x.Client.Chunks[2].Data...)
	x.Client.Chunks = append(merged, x.Client.Chunks[3:]...)
	res, _ = replay.Exchange(context.Background(), &x, tape.Engine{}, replay.Options{})
	if res.Identical() || res.Mismatch != 1 {
		t.Fatalf("boundary change not reported at frame 1: %s", res.Describe())
	}
}
