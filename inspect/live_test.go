package inspect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/tape"
)

// cutLive returns x as a recorder in the middle of it has written it so
// far: the first n[side] body bytes of each side (a chunk cut at the
// byte), no end lines, read back through tape as a live view reads the
// file.
func cutLive(t *testing.T, x *tape.Exchange, n map[tape.Side]int64, h tape.Header) *tape.Capture {
	t.Helper()
	y := *x
	y.Upstream, y.Client = x.Upstream, x.Client
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		sd := *x.Side(s)
		sd.End = nil
		var cs []tape.Chunk
		for _, c := range sd.Chunks {
			if c.Off >= n[s] {
				break
			}
			if end := c.Off + int64(len(c.Data)); end > n[s] {
				c.Data = c.Data[:n[s]-c.Off]
			}
			cs = append(cs, c)
		}
		sd.Chunks = cs
		*y.Side(s) = sd
	}
	y.Anomalies = nil
	b := tape.AppendHeader(nil, h)
	b = tape.AppendExchange(b, &y)
	c, err := tape.Read(bytes.NewReader(b), "live.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLiveOpenSides: a live view (record --tui, tui --follow) inspects
// exchanges whose sides have not ended. The detectors that judge how a
// stream ended wait for its end line, so a healthy stream in the middle
// of its answer (the real streams below, cut inside an event, a tool
// call, a compressed block) shows no finding at warn or above, where the
// same bytes read as a finished file are interrupted and cut; a defect
// already on the wire (the incident's </use_tool<use_tool>) shows at
// once.
func TestLiveOpenSides(t *testing.T) {
	t.Parallel()
	h := tape.Header{V: tape.Version, Engine: tape.Engine{Profile: "passthrough"}}
	stream := func(name, url string, ce string, body []byte) *tape.Exchange {
		x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: url, Body: []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)}}
		hd := tape.Headers{"content-type": {"text/event-stream"}}
		if ce != "" {
			hd["content-encoding"] = []string{ce}
		}
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			sd := x.Side(s)
			sd.Response = &tape.Response{Ex: 1, Side: s, Status: 200, Headers: hd}
			sd.Chunks = chunksOf(s, body, 97)
			sd.End = &tape.End{Ex: 1, Side: s, T: 1e9, Outcome: tape.Complete, Bytes: int64(len(body))}
		}
		return x
	}
	tools := readTestdata(t, "anthropic-sdk-tool-use-response.sse")
	long := readTestdata(t, "openai-chat-long-text.sse")
	cases := []struct {
		name string
		x    *tape.Exchange
		cut  int64
	}{
		{"chat, inside an event", stream("long", "/v1/chat/completions", "", long), int64(len(long) / 2)},
		{"anthropic, inside a tool call's arguments", stream("tools", "/v1/messages", "", tools), int64(bytes.Index(tools, []byte("input_json_delta")) + 300)},
		{"gzip, inside the compressed stream", stream("gz", "/v1/chat/completions", "gzip", []byte(gzipFlushed(string(long)))), 2000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := cutLive(t, tc.x, map[tape.Side]int64{tape.Upstream: tc.cut, tape.Client: tc.cut}, h)
			dead := Inspect(c, Options{}).Exchanges[0].Findings
			if !strings.Contains(findingIDs(dead), tape.AnomalyInterrupted) {
				t.Errorf("read as a finished file: findings %s, want the interruption", findingIDs(dead))
			}
			r := Inspect(c, Options{Live: true})
			for _, f := range r.Exchanges[0].Findings {
				if f.Severity > Info {
					t.Errorf("live: %s %s: %s", f.Severity, f.ID, f.Message)
				}
			}
			if r.Exchanges[0].Events == 0 {
				t.Error("live: no events read")
			}
			// Ended, the whole stream is judged as a finished file is.
			done := &tape.Capture{Name: "done", Header: h, Exchanges: []*tape.Exchange{tc.x}}
			if live, file := findingIDs(Inspect(done, Options{Live: true}).Exchanges[0].Findings), findingIDs(Inspect(done, Options{}).Exchanges[0].Findings); live != file {
				t.Errorf("ended: live findings %s, a finished file's %s", live, file)
			}
		})
	}

	t.Run("the incident, live", func(t *testing.T) {
		t.Parallel()
		inc, err := fixtures.Load(fixtures.Incident)
		if err != nil {
			t.Fatal(err)
		}
		x := inc.Exchanges[0]
		// The client past the seam at its event 282, inside its last
		// chunk; the upstream ahead.
		up := x.Upstream.Chunks[len(x.Upstream.Chunks)-3]
		cut := map[tape.Side]int64{tape.Upstream: up.Off + 5, tape.Client: x.Client.Chunks[284].Off + 3}
		fs := Inspect(cutLive(t, x, cut, inc.Header), Options{Live: true}).Exchanges[0].Findings
		ids := findingIDs(fs)
		if !strings.Contains(ids, "xml.unclosed-closer") {
			t.Errorf("live incident: findings %s, want xml.unclosed-closer", ids)
		}
		for _, id := range []string{tape.AnomalyInterrupted, "stream.no-terminal", "xml.unclosed-block", "diff.upstream-client", "sse.unterminated-event"} {
			if strings.Contains(ids, id) {
				t.Errorf("live incident: %s on open sides (%s)", id, ids)
			}
		}
	})
}
