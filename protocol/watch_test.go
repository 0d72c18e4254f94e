package protocol

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/framing"
)

// watchBody follows body through a Watch fed in pieces of n bytes.
func watchBody(ct, url string, body []byte, n int) *Watch {
	w := NewWatch(ct, url)
	if n <= 0 {
		n = len(body) + 1
	}
	for off := 0; off < len(body); off += n {
		w.Feed(body[off:min(off+n, len(body))])
	}
	w.Close()
	return w
}

// TestWatchTerminalEvents: one event ends the stream by its name, or, for
// an unnamed event, by the "type" of its JSON (not by a text that merely
// mentions it).
func TestWatchTerminalEvents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ, data string
		want      bool
	}{
		{"", "[DONE]", true},
		{"message", "[DONE]", true},
		{"", `{"choices":[{"delta":{"content":"[DONE]"}}]}`, false},
		{"message_stop", `{"type":"message_stop"}`, true},
		{"", `{"type":"message_stop"}`, true},
		{"", `{"type" : "response.completed","response":{}}`, true},
		{"", `{"type":"content_block_delta","delta":{"text":"say \"message_stop\""}}`, false},
		{"", `{"type":"response.output_text.delta","delta":"response.completed"}`, false},
		{"response.failed", `{}`, true},
		{"error", `{"error":{}}`, true},
		{"ping", `{"type":"message_stop"}`, false},
		{"message-end", `{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}`, true},
		{"content-delta", `{"type":"content-delta"}`, false},
	} {
		body := "data: " + tc.data + "\n\n"
		if tc.typ != "" {
			body = "event: " + tc.typ + "\n" + body
		}
		if got := watchBody("text/event-stream", "/v1/x", []byte(body), 0).Terminal(); got != tc.want {
			t.Errorf("event %q data %s: terminal %v, want %v", tc.typ, tc.data, got, tc.want)
		}
	}
}

// TestWatchProviders: every recorded provider stream is followed to its
// terminal signal, in any split, and cut before it is not terminal but
// known (so a recorder calls it truncated).
func TestWatchProviders(t *testing.T) {
	t.Parallel()
	for _, tc := range providerCases() {
		body, err := os.ReadFile(filepath.Join(providers, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		ct := tc.framing.ContentType()
		if tc.framing == framing.Unknown {
			ct = "text/event-stream"
		}
		for _, n := range []int{0, 1, 13} {
			w := watchBody(ct, "", body, n)
			if !w.Terminal() || !w.Known() || w.Events() == 0 {
				t.Errorf("%s in pieces of %d: terminal %v known %v events %d", tc.file, n, w.Terminal(), w.Known(), w.Events())
			}
		}
		// Cut early in the stream.
		cut := watchBody(ct, "", body[:len(body)/4], 0)
		if cut.Terminal() && tc.file != "gemini/gemini-fb-vertexai-error-mid-stream.sse" && tc.file != "bedrock/bedrock-invoke-stream-titan-guardrail-blocked.eventstream" {
			t.Errorf("%s cut in half: terminal", tc.file)
		}
	}
}

// TestWatchNoStream: a JSON document or plain text is no stream, so no
// terminal is expected of it; an SSE stream of a protocol nobody knows is
// not known either.
func TestWatchNoStream(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ct, body string
	}{
		{"application/json", `{"error":{"message":"bad key"}}`},
		{"", `{"id":"x"}`},
		{"text/plain", "Internal Server Error"},
		{"text/event-stream", "event: tick\ndata: 1\n\n"},
	} {
		if w := watchBody(c.ct, "/v1/stream", []byte(c.body), 0); w.Known() {
			t.Errorf("%s %q: known (%s, %s)", c.ct, c.body, w.Framing(), w.proto)
		}
	}
	// A Chat Completions endpoint cut before any event is known to be cut.
	if w := watchBody("text/event-stream", "/v1/chat/completions", nil, 0); !w.Known() || w.Terminal() {
		t.Errorf("empty chat stream: known %v terminal %v", w.Known(), w.Terminal())
	}
}

// TestWatchPrefix: what Prefix says of the first n bytes of a body (n
// within the last piece fed) is what a Watch fed only those bytes says,
// wherever an event ends, for SSE and NDJSON bodies.
func TestWatchPrefix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ ct, url, end, body string }{
		{"text/event-stream", "/v1/chat/completions", "\n\n", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"},
		{"application/x-ndjson", "/api/chat", "\n", "{\"model\":\"m\",\"message\":{\"content\":\"a\"},\"done\":false}\n" +
			"{\"model\":\"m\",\"message\":{\"content\":\"b\"},\"done\":false}\n{\"model\":\"m\",\"done\":true}\n"},
	} {
		body := []byte(tc.body)
		for cut := 1; cut < len(body); cut++ {
			// The body in two pieces: Prefix answers for n from cut on.
			w := NewWatch(tc.ct, tc.url)
			w.Feed(body[:cut])
			w.Feed(body[cut:])
			w.Close()
			for n := cut; n <= len(body); n++ {
				if !strings.HasSuffix(string(body[:n]), tc.end) {
					continue // not where an event ends
				}
				ref := watchBody(tc.ct, tc.url, body[:n], 0)
				if ev, term := w.Prefix(int64(n)); ev != ref.Events() || term != ref.Terminal() {
					t.Errorf("%s cut %d: Prefix(%d) = %d, %v; a watch of those bytes says %d, %v", tc.ct, cut, n, ev, term, ref.Events(), ref.Terminal())
				}
			}
		}
	}
}
