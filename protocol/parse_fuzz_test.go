package protocol

import (
	"testing"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/tape"
)

// cutBody cuts body into chunks of n bytes (one chunk when n <= 0).
func cutBody(body []byte, n int) []tape.Chunk {
	if n <= 0 || n > len(body) {
		n = max(len(body), 1)
	}
	var out []tape.Chunk
	for off := 0; off < len(body); off += n {
		out = append(out, tape.Chunk{Ex: 1, Side: tape.Upstream, T: int64(off), Off: int64(off), Data: body[off:min(off+n, len(body))]})
	}
	return out
}

// FuzzParseAssemble feeds any body, in each framing, to Parse and then to
// the assembly of every protocol, as inspect does with a capture's side:
// nothing may panic, the events must not depend on how the body was cut
// into chunks, and each event must point at bytes of the body. The twin
// path (a client side holding the upstream side's bytes) is taken too.
func FuzzParseAssemble(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\ndata: [DONE]\n\n"), uint8(0), uint8(5))
	f.Add([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n"), uint8(0), uint8(3))
	f.Add([]byte("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"function_call\"}}\n\n"), uint8(0), uint8(7))
	f.Add([]byte(`[{"candidates":[{"content":{"parts":[{"text":"a"},{"functionCall":{"name":"f","args":{}}}]},"finishReason":"STOP"}]}]`), uint8(2), uint8(4))
	f.Add([]byte("{\"model\":\"m\",\"message\":{\"content\":\"a\",\"tool_calls\":[{\"function\":{\"name\":\"f\"}}]},\"done\":false}\n{\"done\":true}\n"), uint8(1), uint8(9))
	f.Add([]byte("\x00\x00\x00\x10\x00\x00\x00\x00\x05\xc2\x48\xeb\x7d\x98\xc8\xff"), uint8(3), uint8(1))
	f.Add([]byte("event: message-end\ndata: {\"type\":\"message-end\",\"delta\":{\"finish_reason\":\"COMPLETE\"}}\n\n"), uint8(0), uint8(2))
	kinds := []framing.Kind{framing.SSE, framing.NDJSON, framing.JSONArray, framing.EventStream}
	f.Fuzz(func(t *testing.T, body []byte, kind, split uint8) {
		k := kinds[int(kind)%len(kinds)]
		whole := Parse(cutBody(body, 0), k, nil)
		cut := Parse(cutBody(body, int(split%32)+1), k, nil)
		if len(whole.Events) != len(cut.Events) {
			t.Fatalf("%s: %d events whole, %d in chunks of %d", k, len(whole.Events), len(cut.Events), split%32+1)
		}
		for i, e := range whole.Events {
			c := cut.Events[i]
			if e.Name != c.Name || e.Data != c.Data || e.Off != c.Off || e.End != c.End {
				t.Fatalf("%s event %d: whole %+v, in chunks %+v", k, i, e, c)
			}
			if e.Off < 0 || e.End < e.Off || e.End > int64(len(body)) {
				t.Fatalf("%s event %d spans %d..%d of a %d-byte body", k, i, e.Off, e.End, len(body))
			}
		}
		twin := Parse(cutBody(body, 0), k, whole)
		for _, p := range append(Protocols(), Unknown) {
			a := Assemble(p, whole)
			b := Assemble(p, twin)
			if a.Message.Text() != b.Message.Text() {
				t.Fatalf("%s as %s: the twin assembles %q, the side %q", k, p, b.Message.Text(), a.Message.Text())
			}
			AssembleBody(p, string(body))
		}
		Detect("/v1/x", whole.Events)
	})
}
