package protocol

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/tape"
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
		body, err := os.ReadFile(providerPath(tc.file))
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
			t.Errorf("%s cut to a quarter: terminal", tc.file)
		}
		if !cut.Known() && cut.Events() > 1 { // the first event whole
			t.Errorf("%s cut to a quarter: %d events, protocol not known", tc.file, cut.Events())
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

// TestWatchLineTerminals: an Ollama line ends the stream by its own "done"
// (not one inside a tool call's arguments) or an error, and a Bedrock
// Invoke chunk by the stop reason or message_stop of the event its bytes
// carry, base64 escaped or not.
func TestWatchLineTerminals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		want bool
	}{
		{`{"model":"m","message":{"content":"a"},"done":false}`, false},
		{`{"model":"m","message":{"content":"say \"done\": true"},"done":false}`, false},
		{`{"model":"m","message":{"tool_calls":[{"function":{"name":"f","arguments":{"done": true}}}]},"done":false}`, false},
		{`{"model":"m","done" : true,"done_reason":"stop"}`, true},
		{`{"error":"model not found"}`, true},
	} {
		body := `{"model":"m","message":{"content":"a"},"done":false}` + "\n" + tc.line + "\n"
		if got := watchBody("application/x-ndjson", "/api/chat", []byte(body), 0).Terminal(); got != tc.want {
			t.Errorf("ollama line %s: terminal %v, want %v", tc.line, got, tc.want)
		}
	}
	for _, tc := range []struct {
		event string
		want  bool
	}{
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"message_stop"}}`, false},
		{`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`, false},
		{`{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":1}}`, true},
		{`{"outputText":"hi","completionReason":"FINISH"}`, true},
		{`{"outputText":"hi","completionReason":null}`, false},
		{`{"generation":"x","stop_reason":"stop"}`, true},
	} {
		b64 := base64.StdEncoding.EncodeToString([]byte(tc.event))
		for _, chunk := range []string{`{"bytes":"` + b64 + `"}`, `{"p":"abc", "bytes" : "` + fmt.Sprintf(`\u%04x`, b64[0]) + strings.ReplaceAll(b64[1:], "/", `\/`) + `"}`} {
			var b bytes.Buffer
			m := eventstream.Message{Payload: []byte(chunk)}
			m.Headers.Set(":message-type", eventstream.StringValue("event"))
			m.Headers.Set(":event-type", eventstream.StringValue("chunk"))
			if err := eventstream.NewEncoder().Encode(&b, m); err != nil {
				t.Fatal(err)
			}
			w := watchBody("application/vnd.amazon.eventstream", "/model/m/invoke-with-response-stream", b.Bytes(), 0)
			if w.Terminal() != tc.want || !w.Known() {
				t.Errorf("invoke chunk %s carrying %s: terminal %v known %v, want terminal %v", chunk, tc.event, w.Terminal(), w.Known(), tc.want)
			}
		}
	}
}

// TestWatchDetectsAsDetect: the protocol a Watch tells on the proxy's path
// is the one Detect tells inspect, from the same first events, the URL
// deciding when they say nothing.
func TestWatchDetectsAsDetect(t *testing.T) {
	t.Parallel()
	ticks := strings.Repeat("event: tick\ndata: {\"n\":1}\n\n", detectWithin+4)
	start := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
	for _, tc := range []struct{ url, body string }{
		{"/v1/x", start},
		{"/v1/x", ticks[:len(ticks)/(detectWithin+4)*(detectWithin-1)] + start},
		{"/v1/x", ticks + start},
		{"/v1/messages", ticks + start},
		{"/v1/x", "data: {\"choices\":[]}\n\n"},
		{"/v1/x", "data:  {\"object\":\"chat.completion.chunk\"}\n\n"},
		{"/v1/responses", "data: 5\n\n"},
		{"/v1/x", "event: error\ndata: {\"type\":\"error\"}\n\n"},
	} {
		w := watchBody("text/event-stream", tc.url, []byte(tc.body), 7)
		want := Detect(tc.url, ParseSide(chunksOf(tape.Upstream, []byte(tc.body), 0), nil).Events)
		if w.proto != want {
			t.Errorf("%s %.60q…: the watch tells %s, Detect %s", tc.url, tc.body, w.proto, want)
		}
	}
}

// TestWatchChatWithoutDone: a Chat stream whose choices finished and whose
// body then ended without data: [DONE] (Perplexity, some gateways) ended
// as the SDKs read it; one cut before a choice finished, or while another
// choice still streamed, did not.
func TestWatchChatWithoutDone(t *testing.T) {
	t.Parallel()
	const (
		a      = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
		b1     = "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"b\"}}]}\n\n"
		fin0   = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
		fin1   = "data: {\"choices\":[{\"index\":1,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
		usage  = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3}}\n\n"
		nullFR = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"c\"},\"finish_reason\":null}]}\n\n"
	)
	for body, ended := range map[string]bool{
		a + fin0:                  true,
		a + fin0 + usage:          true,
		a + nullFR:                false,
		a:                         false,
		a + b1 + fin0 + b1:        false,
		a + b1 + fin0 + b1 + fin1: true,
	} {
		w := watchBody("text/event-stream", "/v1/chat/completions", []byte(body), 7)
		if w.Terminal() != ended {
			t.Errorf("%q: ended %v, want %v", body, w.Terminal(), ended)
		}
	}
}
