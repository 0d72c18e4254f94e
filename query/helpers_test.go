package query

import (
	"strconv"
	"time"

	"github.com/seam-dev/seam/tape"
)

// chatExchange returns exchange ex: a Chat Completions request with body
// req sent at 1 s, and an upstream stream of events (SSE data lines, then
// [DONE]) starting at 1.2 s, one chunk per event, each gap after the
// first taking gaps[i] (1 ms when gaps runs out).
func chatExchange(ex int, req string, gaps []time.Duration, events ...string) *tape.Exchange {
	x := &tape.Exchange{Ex: ex}
	t := int64(time.Second)
	x.Request = &tape.Request{Ex: ex, T: t, Method: "POST", URL: "/v1/chat/completions", Body: []byte(req)}
	t += int64(200 * time.Millisecond)
	x.Upstream.Response = &tape.Response{Ex: ex, Side: tape.Upstream, T: t, Status: 200,
		Headers: tape.Headers{"content-type": {"text/event-stream"}}}
	var off int64
	for i, e := range append(events, "[DONE]") {
		if i > 0 {
			gap := time.Millisecond
			if i-1 < len(gaps) {
				gap = gaps[i-1]
			}
			t += int64(gap)
		}
		data := "data: " + e + "\n\n"
		x.Upstream.Chunks = append(x.Upstream.Chunks, tape.Chunk{Ex: ex, Side: tape.Upstream, T: t, Off: off, Data: []byte(data)})
		off += int64(len(data))
	}
	x.Upstream.End = &tape.End{Ex: ex, Side: tape.Upstream, T: t, Outcome: tape.Complete, Bytes: off}
	return x
}

// toolCallEvents are the events of a streamed read_file call whose
// arguments are args, then usage of in and out tokens.
func toolCallEvents(model, args string, in, out int) []string {
	head := `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"` + model + `","choices":[{"index":0,"delta":`
	return []string{
		head + `{"role":"assistant","tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":0,"function":{"arguments":` + strconv.Quote(args) + `}}]},"finish_reason":null}]}`,
		head + `{},"finish_reason":"tool_calls"}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"` + model + `","choices":[],"usage":{"prompt_tokens":` +
			strconv.Itoa(in) + `,"completion_tokens":` + strconv.Itoa(out) + `,"total_tokens":` + strconv.Itoa(in+out) + `}}`,
	}
}

// capture wraps exchanges in a capture named name, started at 09:00 UTC on
// 2026-11-22.
func capture(name string, xs ...*tape.Exchange) *tape.Capture {
	return &tape.Capture{Name: name, Header: tape.Header{V: 1, Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}, Exchanges: xs}
}
