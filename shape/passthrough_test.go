package shape

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realworldSSE lists the recorded SSE streams copied into testdata.
func realworldSSE(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(realworld + "/*.sse")
	if err != nil || len(m) == 0 {
		t.Fatalf("no testdata streams: %v", err)
	}
	return m
}

func randomChunks(r *rand.Rand, b []byte, maxLen int) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := min(1+r.IntN(maxLen), len(b))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

func TestPassthroughByteExact(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, path := range realworldSSE(t) {
		body := readFile(t, path)
		for _, x := range []Exchange{sseExchange, {Status: 500, ContentType: "text/event-stream"}, {Status: 200, ContentType: "application/json"}} {
			for _, chunks := range [][][]byte{{body}, splitEvery(body, 1), randomChunks(r, body, 100)} {
				// Every profile passes non-SSE exchanges through; passthrough passes everything.
				for _, profile := range []string{ProfilePassthrough, ProfileObsidianXML} {
					if profile != ProfilePassthrough && x == sseExchange {
						continue
					}
					cfg, err := Resolve(profile, nil)
					if err != nil {
						t.Fatal(err)
					}
					e, err := New(cfg, x)
					if err != nil {
						t.Fatal(err)
					}
					got := run(e, chunks)
					if len(got) != len(chunks) {
						t.Fatalf("%s %s: %d frames for %d chunks", path, profile, len(got), len(chunks))
					}
					for i := range got {
						if !bytes.Equal(got[i], chunks[i]) {
							t.Fatalf("%s %s: frame %d differs", path, profile, i)
						}
					}
				}
			}
		}
	}
}

// TestUnknownProtocolPassesThrough: a decoding engine given a stream it does
// not recognize returns the bytes unchanged, with their boundaries.
func TestUnknownProtocolPassesThrough(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"data: hello\n\ndata: world\n\n",
		`data: {"foo":1}` + "\n\n" + `data: {"choices":[]}` + "\n\n",
		"not sse at all, no blank line",
		": comment only\n\n",
	} {
		e := mustEngine(t, ProfileObsidianXML, nil)
		chunks := splitEvery([]byte(body), 3)
		got := run(e, chunks)
		if len(got) != len(chunks) || string(join(got)) != body {
			t.Errorf("%q: got %q in %d frames, want %d", body, join(got), len(got), len(chunks))
		}
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		profile string
		set     map[string]string
		want    string
	}{
		{"nope", nil, `unknown profile "nope"`},
		{"", map[string]string{"holdbak": "on"}, `unknown switch "holdbak" (known: xml-tools, tool-block, holdback`},
		{"", map[string]string{SwHoldback: "maybe"}, "switch holdback: bad value"},
		{"", map[string]string{SwStopAfterTools: "-1"}, "switch stop-after-tools: bad value"},
	} {
		_, err := New(tapeEngine(tc.profile, tc.set), sseExchange)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %v) error %v, want %q", tc.profile, tc.set, err, tc.want)
		}
	}
}

func BenchmarkPassthrough(b *testing.B) {
	body, err := os.ReadFile(realworld + "/openai-chat-long-text.sse")
	if err != nil {
		b.Fatal(err)
	}
	chunks := splitEvery(body, 512)
	e, err := New(tapeEngine("", nil), sseExchange)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([][]byte, 0, 4)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range chunks {
			dst = e.Push(dst[:0], c)
		}
		dst = e.Close(dst[:0])
	}
}

// TestNothingToChangeIsIdentity: an engine whose switches cannot change a
// stream (the responses profile on a Responses or Anthropic upstream) gives
// the upstream bytes back with their boundaries.
func TestNothingToChangeIsIdentity(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"pydantic-ai-openai-responses-stream.1.sse", "anthropic-sdk-tool-use-response.sse"} {
		body := readFile(t, filepath.Join(realworld, name))
		chunks := splitEvery(body, 33)
		got := run(mustEngine(t, ProfileResponses, nil), chunks)
		if len(got) != len(chunks) || !bytes.Equal(join(got), body) {
			t.Errorf("%s: %d frames for %d chunks, identical bytes %v", name, len(got), len(chunks), bytes.Equal(join(got), body))
		}
		for i := range got {
			if !bytes.Equal(got[i], chunks[i]) {
				t.Errorf("%s: frame %d differs", name, i)
				break
			}
		}
	}
}
