package inspect

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/internal/streamtest"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// randomChunks cuts body into chunks of 1 to 97 bytes at random.
func randomChunks(rng *rand.Rand, side tape.Side, body []byte) []tape.Chunk {
	var out []tape.Chunk
	for off := 0; off < len(body); {
		n := min(1+rng.IntN(97), len(body)-off)
		out = append(out, tape.Chunk{Ex: 1, Side: side, T: int64(len(out)) * 1e6, Off: int64(off), Data: body[off : off+n]})
		off += n
	}
	return out
}

// TestPassthroughHasNoStructuralFinding is a property test: every real
// recorded stream (the realworld streams, the incident streams and the
// upstream side of every fixture), cut into random reads, pushed through
// the passthrough engine and delivered to the client in other random
// writes (as a network may split them), gives no diff.* finding at all: the
// structural comparison and the text diff see the same message on both
// sides whatever the boundaries.
func TestPassthroughHasNoStructuralFinding(t *testing.T) {
	t.Parallel()
	bodies := map[string][]byte{}
	for _, pattern := range []string{filepath.Join(streamtest.Realworld, "*.sse"), filepath.Join("..", "fixtures", "incident", "*.sse")} {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("no streams for %s: %v", pattern, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			bodies[filepath.Base(f)] = b
		}
	}
	for _, name := range fixtures.Captures() {
		c, err := fixtures.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range c.Exchanges {
			bodies[fmt.Sprintf("%s#%d", name, x.Ex)] = x.Upstream.Body()
		}
	}
	cfg, err := shape.Resolve(shape.ProfilePassthrough, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for name, body := range bodies {
		url := "/v1/chat/completions"
		switch {
		case strings.Contains(name, "anthropic"):
			url = "/v1/messages"
		case strings.Contains(name, "responses"):
			url = "/v1/responses"
		}
		for seed := range uint64(12) {
			rng := rand.New(rand.NewPCG(seed, uint64(len(body))))
			eng, err := shape.New(cfg, shape.Exchange{Method: "POST", Path: url, Status: 200, ContentType: "text/event-stream"})
			if err != nil {
				t.Fatal(err)
			}
			up := randomChunks(rng, tape.Upstream, body)
			var out []byte
			var dst [][]byte
			for _, c := range up {
				for _, f := range eng.Push(dst[:0], c.Data) {
					out = append(out, f...)
				}
			}
			for _, f := range eng.Close(dst[:0]) {
				out = append(out, f...)
			}
			x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: url, Body: []byte(`{"stream":true}`)}}
			for _, s := range []struct {
				side   tape.Side
				chunks []tape.Chunk
			}{{tape.Upstream, up}, {tape.Client, randomChunks(rng, tape.Client, out)}} {
				sd := x.Side(s.side)
				sd.Response = &tape.Response{Ex: 1, Side: s.side, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}}
				sd.Chunks = s.chunks
				sd.End = &tape.End{Ex: 1, Side: s.side, T: 1e9, Outcome: tape.Complete, Bytes: int64(len(body))}
			}
			r := Inspect(&tape.Capture{Name: name, Exchanges: []*tape.Exchange{x}}, Options{})
			if len(r.Exchanges[0].Sides) != 2 {
				t.Fatalf("%s: %d sides assembled", name, len(r.Exchanges[0].Sides))
			}
			for _, ch := range r.Exchanges[0].Sides[1].Message.Choices {
				calls += len(ch.ToolCalls) + len(clients.ParseXMLToolCalls(ch.Text))
			}
			for _, f := range r.Exchanges[0].Findings {
				if strings.HasPrefix(f.ID, "diff.") {
					t.Errorf("%s, seed %d (%d upstream reads): %s at %s: %s (%s)", name, seed, len(up), f.ID, f.Pointer, f.Message, f.Evidence)
				}
			}
		}
	}
	if calls < 12*10 {
		t.Errorf("only %d tool calls compared: the streams are not the ones meant", calls)
	}
}
