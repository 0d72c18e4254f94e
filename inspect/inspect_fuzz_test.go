package inspect_test

import (
	"io"
	"regexp"
	"testing"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
)

// fuzzExchange builds a capture of one exchange from fuzzed parts: the
// request (URL and body), and a response body served with ct and ce,
// recorded as the upstream side in reads of split bytes and, unless
// clientCut is 0, as the client side cut short at clientCut bytes (what a
// proxy that broke the stream passed on).
func fuzzExchange(url, reqBody, ct, ce string, body []byte, split, clientCut uint16) *tape.Capture {
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, T: 1, Method: "POST", URL: url, Body: []byte(reqBody), Headers: tape.Headers{"content-type": {"application/json"}}}}
	h := tape.Headers{}
	if ct != "" {
		h["content-type"] = []string{ct}
	}
	if ce != "" {
		h["content-encoding"] = []string{ce}
	}
	side := func(s tape.Side, b []byte) {
		sd := x.Side(s)
		sd.Response = &tape.Response{Ex: 1, Side: s, T: 2, Status: 200, Headers: h}
		n := max(int(split%512), 1)
		for off := 0; off < len(b); off += n {
			sd.Chunks = append(sd.Chunks, tape.Chunk{Ex: 1, Side: s, T: int64(3 + off), Off: int64(off), Data: b[off:min(off+n, len(b))]})
		}
		sd.End = &tape.End{Ex: 1, Side: s, T: int64(4 + len(b)), Outcome: tape.Complete, Bytes: int64(len(b))}
	}
	side(tape.Upstream, body)
	if clientCut > 0 {
		side(tape.Client, body[:min(int(clientCut), len(body))])
	}
	return &tape.Capture{Name: "fuzz.ndjson", Header: tape.Header{V: tape.Version, Upstream: "https://api.openai.com", Engine: tape.Engine{Profile: "passthrough"}}, Exchanges: []*tape.Exchange{x}}
}

// FuzzInspect runs inspect over an exchange whose every part comes from
// the fuzzer, as the reading commands do: the report (assembly of every
// protocol, the client emulations, the detectors), its text and JSON
// renderings, the diffs, stats and search. Captures come from strangers'
// bug reports: nothing may panic or hang. (The capture file's own parsing
// is tape's FuzzDecode and FuzzExchangeReader.)
func FuzzInspect(f *testing.F) {
	chat := "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\",\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\"}}]}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
	f.Add("/v1/chat/completions", `{"stream":true,"tools":[{"type":"function"}]}`, "text/event-stream", "", []byte(chat), uint16(40), uint16(90))
	f.Add("/v1/messages", `{"stream":true}`, "text/event-stream", "", []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"c\"}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"), uint16(17), uint16(0))
	f.Add("/v1/responses", `{"stream":true}`, "text/event-stream", "", []byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"a\"}\n\nevent: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"a\"}]}]}}\n\n"), uint16(64), uint16(50))
	f.Add("/v1beta/models/g:streamGenerateContent", `{}`, "application/json", "", []byte(`[{"candidates":[{"content":{"parts":[{"text":"<tool_call>{\"name\":\"f\"}</tool_call>"}]},"finishReason":"STOP"}]}]`), uint16(9), uint16(0))
	f.Add("/api/chat", `{"model":"m"}`, "application/x-ndjson", "", []byte("{\"model\":\"m\",\"message\":{\"content\":\"a\"},\"done\":false}\n{\"done\":true,\"done_reason\":\"stop\"}\n"), uint16(5), uint16(20))
	f.Add("/v1/chat/completions", `{}`, "application/json", "", []byte(`{"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":1}}`), uint16(100), uint16(0))
	f.Add("/v1/chat/completions", `{"stream":true}`, "text/event-stream", "gzip", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x4a\x49\x2c\x49\xb4\x52\x88\x76\xf1\xf7\x73\x8d\xe5\xe2\x02\x04\x00\x00\xff\xff"), uint16(3), uint16(0))
	re := regexp.MustCompile("a")
	f.Fuzz(func(t *testing.T, url, reqBody, ct, ce string, body []byte, split, clientCut uint16) {
		c := fuzzExchange(url, reqBody, ct, ce, body, split, clientCut)
		rep := inspect.Inspect(c, inspect.Options{})
		if err := textreport.Write(io.Discard, rep, true); err != nil {
			t.Fatal(err)
		}
		if err := inspect.WriteJSON(io.Discard, rep); err != nil {
			t.Fatal(err)
		}
		for i, er := range rep.Exchanges {
			if d := inspect.DiffExchangeReports(er, er); d != nil {
				textreport.WriteDiff(io.Discard, textreport.ShortenDiff(d, 3, 2), false)
			}
			query.Search(re, c.Exchanges[i], er, query.Scopes())
			stats, _ := query.NewStats(nil, 0)
			stats.Add(c.Name, &c.Header, c.Exchanges[i], er)
		}
	})
}
