package inspect

import (
	"bytes"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestTextLossIsError: a proxy that loses text between upstream and
// client is an error, so --fail-on error fails it; the same stream cut
// short because the client hung up, or while the client side is still
// open, is not the proxy's loss. The upstream is a real OpenAI stream
// (openai-python's long-text snapshot), the client side the same events
// but for one content delta in the middle, as a proxy that drops a chunk
// sends it.
func TestTextLossIsError(t *testing.T) {
	t.Parallel()
	events := sseEvents(readTestdata(t, "openai-chat-long-text.sse"))
	up := bytes.Join(events, nil)
	lossy := bytes.Join(append(append([][]byte{}, events[:90]...), events[91:]...), nil)
	half := bytes.Join(events[:90], nil)
	cases := []struct {
		name    string
		client  []byte
		outcome tape.Outcome // of the client side; "" leaves it open
		lost    bool
	}{
		{"a proxy drops a delta", lossy, tape.Complete, true},
		{"the proxy ends the stream early", append(bytes.Clone(half), bytes.Join(events[len(events)-2:], nil)...), tape.Complete, true},
		{"the client hangs up", half, tape.ClientAborted, false},
		{"the client side is still open", half, "", false},
		{"nothing lost", up, tape.Complete, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions", Body: []byte(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}`)}}
			for _, s := range []struct {
				side tape.Side
				body []byte
				o    tape.Outcome
			}{{tape.Upstream, up, tape.Complete}, {tape.Client, tc.client, tc.outcome}} {
				sd := x.Side(s.side)
				sd.Response = &tape.Response{Ex: 1, Side: s.side, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}}
				sd.Chunks = chunksOf(s.side, s.body, 4096)
				if s.o != "" {
					sd.End = &tape.End{Ex: 1, Side: s.side, T: 1e9, Outcome: s.o, Bytes: int64(len(s.body))}
				}
			}
			c := &tape.Capture{Name: "test", Header: tape.Header{V: tape.Version, Engine: tape.Engine{Profile: "passthrough"}}, Exchanges: []*tape.Exchange{x}}
			r := Inspect(c, Options{})
			var diff *Finding
			for i, f := range r.Exchanges[0].Findings {
				if f.ID == "diff.upstream-client" {
					diff = &r.Exchanges[0].Findings[i]
				}
			}
			switch {
			case tc.lost && (diff == nil || diff.Severity != Error):
				t.Errorf("lost text: diff.upstream-client %+v, want an error; findings %s", diff, findingIDs(r.Exchanges[0].Findings))
			case tc.lost:
				if worst, _ := r.Worst(); worst != Error {
					t.Errorf("worst %s: --fail-on error would pass it", worst)
				}
			case diff != nil:
				t.Errorf("nothing the proxy lost: %s %s", diff.Severity, diff.Message)
			}
		})
	}
}
