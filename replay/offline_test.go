package replay_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
)

// TestReplayReproducesFixtures: replaying every embedded fixture through the
// engine recorded in its header (passthrough, obsidian-xml with and without
// holdback, responses, ...) reproduces its recorded client side chunk for
// chunk: the same bytes and the same boundaries.
func TestReplayReproducesFixtures(t *testing.T) {
	for _, name := range fixtures.Captures() {
		c, err := fixtures.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range c.Exchanges {
			res, err := replay.Exchange(context.Background(), x, c.Header.Engine, replay.Options{})
			if err != nil {
				t.Fatalf("%s exchange %d: %v", name, x.Ex, err)
			}
			if !res.Identical() {
				t.Errorf("%s exchange %d: %s", name, x.Ex, res.Describe())
			}
		}
	}
}

// TestPassthroughReplayOfRealStreams: every real SSE stream, cut into reads
// of several sizes, comes out of a passthrough replay byte for byte with the
// same boundaries.
func TestPassthroughReplayOfRealStreams(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/realworld/*.sse")
	if len(files) == 0 {
		t.Fatal("no realworld streams in ../fixtures/realworld")
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 7, 512, 1 << 20} {
			x := &tape.Exchange{Ex: 1,
				Request:  &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions"},
				Upstream: tape.SideData{Response: &tape.Response{Ex: 1, Side: tape.Upstream, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}}},
			}
			for off := 0; off < len(body); off += size {
				chunk := tape.Chunk{Ex: 1, Off: int64(off), Data: body[off:min(off+size, len(body))]}
				chunk.Side = tape.Upstream
				x.Upstream.Chunks = append(x.Upstream.Chunks, chunk)
				chunk.Side = tape.Client
				x.Client.Chunks = append(x.Client.Chunks, chunk)
			}
			res, err := replay.Exchange(context.Background(), x, tape.Engine{}, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Identical() || !bytes.Equal(res.Body(), body) {
				t.Errorf("%s in %d-byte reads: %s", filepath.Base(f), size, res.Describe())
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
	// It says where in the frame and the body, and shows the bytes around
	// the first difference on both sides, escaped.
	var before int
	for _, ch := range c.Exchanges[0].Client.Chunks[:3] {
		before += len(ch.Data)
	}
	got := res.Describe()
	want := "differs at frame 3, byte 7 of the frame (byte " + strconv.Itoa(before+7) + " of the body):\n" +
		"  replayed " + strconv.Quote(string(res.Frames[3].Data[:min(55, len(res.Frames[3].Data))])) + "…\n" +
		`  recorded "event: ping\ndata: {\"type\":\"ping\"}\n\n"`
	if got != want {
		t.Errorf("describe:\n%s\nwant\n%s", got, want)
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
