package inspect

import (
	"reflect"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestTwinSidesEmulateAlike checks that a client side inspected with the
// upstream side as its twin (sharing its decoded payloads, see the protocol
// package's TestTwinSidesShareDecoding, and, the same bytes cut at the same
// places, its assembly) gives the clients exactly what it gives them
// inspected on its own, its events and metrics timed by its own chunks.
func TestTwinSidesEmulateAlike(t *testing.T) {
	t.Parallel()
	streams := []struct{ file, url string }{
		{"openai-chat-parallel-tool-calls.sse", "/v1/chat/completions"},
		{"openai-chat-n3-choices.sse", "/v1/chat/completions"},
		{"pydantic-ai-openai-responses-stream.2.sse", "/v1/responses"},
		{"anthropic-sdk-tool-use-response.sse", "/v1/messages"},
	}
	h := tape.Headers{"content-type": {"text/event-stream"}}
	for _, s := range streams {
		t.Run(s.file, func(t *testing.T) {
			t.Parallel()
			body := readTestdata(t, s.file)
			side := func(sd tape.Side, b []byte) *tape.SideData {
				cs := chunksOf(sd, b, 700)
				for i := range cs {
					if sd == tape.Client {
						cs[i].T += int64(i+1) * 3e5 // the client's writes come later
					}
				}
				return &tape.SideData{Response: &tape.Response{Side: sd, Status: 200, Headers: h}, Chunks: cs}
			}
			up := inspectSide(tape.Upstream, side(tape.Upstream, body), s.url, Options{}, 0, nil, false, nil)
			shared := inspectSide(tape.Client, side(tape.Client, body), s.url, Options{}, 0, up, false, nil)
			alone := inspectSide(tape.Client, side(tape.Client, body), s.url, Options{}, 0, nil, false, nil)
			if shared.asm != up.asm {
				t.Error("the client side, the upstream's bytes cut at the same places, is assembled again")
			}
			if !reflect.DeepEqual(shared.asm, alone.asm) {
				t.Fatalf("shared decoding assembles differently:\n got %+v\nwant %+v", shared.asm, alone.asm)
			}
			if !reflect.DeepEqual(emulateClients(shared), emulateClients(alone)) {
				t.Fatal("shared decoding emulates clients differently")
			}
			if !reflect.DeepEqual(shared.ev.Events, alone.ev.Events) || !reflect.DeepEqual(shared.Metrics, alone.Metrics) {
				t.Fatal("the client side's events or metrics are not timed by its own chunks")
			}
			if reflect.DeepEqual(shared.ev.Events, up.ev.Events) {
				t.Fatal("the test's client side has the upstream's times")
			}
		})
	}
}
