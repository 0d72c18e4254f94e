package streamtest

import "github.com/seam-dev/seam/tape"

// Capture is a capture of one exchange, recorded through a pass-through
// proxy: a POST of a Chat Completions request to /v1/chat/completions
// answered 200 with up on the upstream side and client on the client
// side (an empty body: that side not recorded), each a text/event-stream
// body in one chunk, complete.
func Capture(up, client string) *tape.Capture {
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions",
		Body: []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)}}
	for side, body := range map[tape.Side]string{tape.Upstream: up, tape.Client: client} {
		if body == "" {
			continue
		}
		sd := x.Side(side)
		sd.Response = &tape.Response{Ex: 1, Side: side, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}}
		sd.Chunks = []tape.Chunk{{Ex: 1, Side: side, T: 1e6, Data: []byte(body)}}
		sd.End = &tape.End{Ex: 1, Side: side, T: 1e9, Outcome: tape.Complete, Bytes: int64(len(body))}
	}
	return &tape.Capture{Name: "test", Header: tape.Header{V: tape.Version, Engine: tape.Engine{Profile: "passthrough"}}, Exchanges: []*tape.Exchange{x}}
}
