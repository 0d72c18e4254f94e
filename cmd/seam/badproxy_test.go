package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// The bad proxy of TestBadProxySandwich: a small reverse proxy that breaks
// what it forwards, in the way a request header (X-Bad) asks, so that one
// sandwich recording holds one exchange per way of breaking.

// upstreamStreams maps an API path to the real recorded stream the mock
// upstream answers it with.
var upstreamStreams = map[string]string{
	"/v1/chat/completions": "openai-chat-parallel-tool-calls.sse", // GetWeatherArgs (index 0), get_stock_price (index 1), usage
	"/v1/responses":        "pydantic-ai-openai-responses-stream.1.sse",
	"/v1/messages":         "anthropic-sdk-tool-use-response.sse", // text, then get_weather (block 1)
}

// sseEvents splits an SSE body into its events, each with its blank line;
// a last event without one is kept as it came.
func sseEvents(body []byte) []string {
	var out []string
	var cur strings.Builder
	r := bufio.NewReader(bytes.NewReader(body))
	for {
		line, err := r.ReadString('\n')
		cur.WriteString(line)
		if line == "\n" {
			out = append(out, cur.String())
			cur.Reset()
		}
		if err != nil {
			break
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// injected events the bad proxy adds: a call the upstream never made.
const (
	chatInjected = `data: {"id":"chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63","object":"chat.completion.chunk","created":1727346178,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"call_bad","type":"function","function":{"name":"delete_all","arguments":"{}"}}]},"finish_reason":null}]}` + "\n\n"
	respInjected = "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"type\":\"function_call\",\"id\":\"fc_bad\",\"call_id\":\"call_bad\",\"name\":\"delete_all\",\"arguments\":\"\"}}\n\n" +
		"event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_bad\",\"output_index\":1,\"delta\":\"{}\"}\n\n" +
		"event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"type\":\"function_call\",\"id\":\"fc_bad\",\"call_id\":\"call_bad\",\"name\":\"delete_all\",\"arguments\":\"{}\"}}\n\n"
	antInjected = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_bad\",\"name\":\"delete_all\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
)

// breakEvent returns what the bad proxy sends for one upstream event of
// the stream at path in mode (nothing to drop it, more to add).
func breakEvent(path, mode, ev string) []string {
	switch path + " " + mode {
	case "/v1/chat/completions drop":
		if strings.Contains(ev, `"tool_calls":[{"index":1`) {
			return nil
		}
	case "/v1/chat/completions add":
		if strings.Contains(ev, `"finish_reason":"tool_calls"`) {
			return []string{chatInjected, ev}
		}
	case "/v1/chat/completions rename":
		return []string{strings.ReplaceAll(ev, `"get_stock_price"`, `"get_stock_quote"`)}
	case "/v1/chat/completions args":
		return []string{strings.ReplaceAll(ev, `\"Edinb`, `\"Glasg`)}
	case "/v1/chat/completions finish":
		if strings.Contains(ev, `"usage"`) {
			return nil
		}
		return []string{strings.ReplaceAll(ev, `"finish_reason":"tool_calls"`, `"finish_reason":"stop"`)}
	case "/v1/responses drop":
		if strings.Contains(ev, `"output_index":0`) {
			return nil
		}
		if strings.Contains(ev, `"type":"response.completed"`) {
			data := strings.TrimPrefix(ev[strings.Index(ev, "data: "):], "data: ")
			out := gjson.Get(data, "response.output").Raw
			return []string{strings.Replace(ev, out, "[]", 1)}
		}
	case "/v1/responses add":
		if strings.Contains(ev, `"type":"response.completed"`) {
			return []string{respInjected, ev}
		}
	case "/v1/responses rename":
		return []string{strings.ReplaceAll(ev, `get_capital`, `get_capitol`)}
	case "/v1/responses args":
		return []string{strings.ReplaceAll(ev, `France`, `Spain`)}
	case "/v1/messages drop":
		if strings.Contains(ev, `"index":1`) {
			return nil
		}
	case "/v1/messages add":
		if strings.Contains(ev, `"type":"message_delta"`) {
			return []string{antInjected, ev}
		}
	case "/v1/messages rename":
		return []string{strings.ReplaceAll(ev, `"get_weather"`, `"get_forecast"`)}
	case "/v1/messages args":
		return []string{strings.ReplaceAll(ev, `"partial_json":"ar"`, `"partial_json":"ri"`)}
	}
	return []string{ev}
}

// breakRequest returns the body the bad proxy sends upstream for the
// client's body in mode, and the path it sends it to.
func breakRequest(path, mode string, body []byte) (string, []byte) {
	switch mode {
	case "request":
		// Another model, a tool and the system prompt dropped, a parameter
		// added.
		s := strings.Replace(string(body), `"model":"gpt-4o"`, `"model":"gpt-4o-mini","temperature":0`, 1)
		s = strings.Replace(s, `{"role":"system","content":"Answer briefly."},`, "", 1)
		s = strings.Replace(s, `,{"type":"function","function":{"name":"get_stock_price","parameters":{"type":"object","properties":{"ticker":{"type":"string"},"exchange":{"type":"string"}}}}}`, "", 1)
		return path, []byte(s)
	case "to-responses":
		// A converting proxy: the client's Responses request carried as
		// Chat Completions, nothing lost.
		r := gjson.ParseBytes(body)
		chat := `{"model":` + r.Get("model").Raw + `,"stream":true,"messages":[{"role":"system","content":` + r.Get("instructions").Raw +
			`},{"role":"user","content":` + r.Get("input.0.content").Raw + `}],"tools":[`
		r.Get("tools").ForEach(func(k, t gjson.Result) bool {
			if k.Int() > 0 {
				chat += ","
			}
			chat += `{"type":"function","function":{"name":` + t.Get("name").Raw + `,"parameters":` + t.Get("parameters").Raw + `}}`
			return true
		})
		return "/v1/chat/completions", []byte(chat + "]}")
	}
	return path, body
}

// badProxy is the proxy under test: it forwards to back(), breaking the
// request and the stream as the X-Bad header says. Modes to-xml and
// to-responses convert the stream with seam's own engine (obsidian-xml,
// responses), then break it further as their suffix says.
func badProxy(t *testing.T, back func() string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode := r.Header.Get("X-Bad")
		body, _ := io.ReadAll(r.Body)
		path, body := breakRequest(r.URL.Path, strings.Split(mode, "+")[0], body)
		out, _ := http.NewRequestWithContext(r.Context(), "POST", back()+path, bytes.NewReader(body))
		out.Header.Set("Content-Type", "application/json")
		out.Header.Set(record.ExchangeHeader, r.Header.Get(record.ExchangeHeader))
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		up, _ := io.ReadAll(resp.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		var evs []string
		if conv, rest, _ := strings.Cut(mode, "+"); conv == "to-xml" || conv == "to-responses" {
			profile := shape.ProfileObsidianXML
			if conv == "to-responses" {
				profile = shape.ProfileResponses
			}
			cfg, err := shape.Resolve(profile, nil)
			if err != nil {
				t.Error(err)
				return
			}
			eng, err := shape.New(cfg, shape.Exchange{Method: "POST", Path: path, Status: 200, ContentType: "text/event-stream"})
			if err != nil {
				t.Error(err)
				return
			}
			// Frames are valid until the next call: copy them as they come.
			var frames []string
			var dst [][]byte
			for _, ev := range sseEvents(up) {
				for _, f := range eng.Push(dst[:0], []byte(ev)) {
					frames = append(frames, string(f))
				}
			}
			for _, f := range eng.Close(dst[:0]) {
				frames = append(frames, string(f))
			}
			for _, ev := range frames {
				switch {
				case rest == "drop" && strings.Contains(ev, `<name>get_stock_price`):
					continue
				case rest == "rename":
					ev = strings.ReplaceAll(ev, `"get_stock_price"`, `"get_stock_quote"`)
				}
				evs = append(evs, ev)
			}
		} else {
			for _, ev := range sseEvents(up) {
				evs = append(evs, breakEvent(path, mode, ev)...)
			}
		}
		for _, ev := range evs {
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	})
}

// Client requests, one per protocol, with two tools and a system prompt.
const (
	chatRequest = `{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"Answer briefly."},{"role":"user","content":"Weather in Edinburgh and the AAPL price?"}],` +
		`"tools":[{"type":"function","function":{"name":"GetWeatherArgs","parameters":{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"},"units":{"type":"string"}}}}},{"type":"function","function":{"name":"get_stock_price","parameters":{"type":"object","properties":{"ticker":{"type":"string"},"exchange":{"type":"string"}}}}}]}`
	responsesRequest = `{"model":"gpt-4o","stream":true,"instructions":"Answer briefly.","input":[{"role":"user","content":"What is the capital of France?"}],` +
		`"tools":[{"type":"function","name":"get_capital","parameters":{"type":"object","properties":{"country":{"type":"string"}}}}]}`
	anthropicRequest = `{"model":"claude-sonnet-4-20250514","max_tokens":1024,"stream":true,"system":"Answer briefly.","messages":[{"role":"user","content":"Weather in Paris?"}],` +
		`"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}}]}`
	// convertRequest is what a Responses client sends a converting proxy.
	convertRequest = `{"model":"gpt-4o","stream":true,"instructions":"Answer briefly.","input":[{"role":"user","content":"Weather in Edinburgh and the AAPL price?"}],` +
		`"tools":[{"type":"function","name":"GetWeatherArgs","parameters":{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"},"units":{"type":"string"}}}},{"type":"function","name":"get_stock_price","parameters":{"type":"object","properties":{"ticker":{"type":"string"},"exchange":{"type":"string"}}}}]}`
)

// wantFinding is a finding a case must produce: its id, the side and the
// event it points at (the first event of that side holding marker, or the
// last with last), and where its peer points (no peer when peerMarker is
// "").
type wantFinding struct {
	id               string
	side             tape.Side
	marker           string
	last             bool
	peerMarker       string
	peerLast         bool
	evidenceContains string
}

// TestBadProxySandwich records a bad proxy through the real sandwich
// machinery of seam record --proxy --back (two legs, one capture): for
// Chat Completions, Responses and Anthropic upstreams, the proxy drops,
// adds, renames and rewrites tool calls, rewrites finish and usage and the
// request; and as a converting proxy it carries Chat calls as Obsidian XML
// (dropping one) or as Responses (renaming one). Each exchange must give
// exactly the expected diff.* and req.* findings, each pointing at the
// event where it was born on each side.
func TestBadProxySandwich(t *testing.T) {
	realDir := filepath.Join("..", "..", "fixtures", "realworld")
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		name, ok := upstreamStreams[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body, err := os.ReadFile(filepath.Join(realDir, name))
		if err != nil {
			t.Error(err)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range sseEvents(body) {
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}))
	defer api.Close()
	apiURL, _ := url.Parse(api.URL)

	var backAddr atomic.Value
	proxy := httptest.NewServer(badProxy(t, func() string { return "http://" + backAddr.Load().(string) }))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	out := filepath.Join(t.TempDir(), "sandwich.ndjson")
	var sums []record.Summary
	done := make(chan struct{}, 64)
	rec, err := record.StartRecording(record.RecordingOptions{
		Create: func() (io.WriteCloser, string, error) { return captures.Create(out, nil, time.Now()) },
		Header: recordHeader(apiURL, tape.Engine{Profile: shape.ProfileExternal}, false),
		Endpoints: []*record.Endpoint{
			{Listen: "127.0.0.1:0", Upstream: proxyURL, Leg: record.Front},
			{Listen: "127.0.0.1:0", Upstream: apiURL, Leg: record.Back},
		},
		OnDone: func(s record.Summary) { sums = append(sums, s); done <- struct{}{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	backAddr.Store(rec.Endpoints()[1].Addr().String())
	front := "http://" + rec.Endpoints()[0].Addr().String()

	chatDrop := `"tool_calls":[{"index":1,"id"`
	cases := []struct {
		name, path, mode, req string
		want                  []wantFinding
	}{
		{"chat drops a call", "/v1/chat/completions", "drop", chatRequest, []wantFinding{
			{id: "diff.tool-call-dropped", side: tape.Upstream, marker: chatDrop, evidenceContains: "get_stock_price"}}},
		{"chat adds a call", "/v1/chat/completions", "add", chatRequest, []wantFinding{
			{id: "diff.tool-call-added", side: tape.Client, marker: "delete_all"}}},
		{"chat renames a call", "/v1/chat/completions", "rename", chatRequest, []wantFinding{
			{id: "diff.tool-name-changed", side: tape.Client, marker: "get_stock_quote", peerMarker: "get_stock_price"}}},
		{"chat rewrites arguments", "/v1/chat/completions", "args", chatRequest, []wantFinding{
			{id: "diff.tool-args-changed", side: tape.Client, marker: `"tool_calls":[{"index":0`, last: true, peerMarker: `"tool_calls":[{"index":0`, peerLast: true,
				evidenceContains: `changes city; city: upstream "\"Edinburgh\"" / client "\"Glasgurgh\""`}}},
		{"chat rewrites finish and drops usage", "/v1/chat/completions", "finish", chatRequest, []wantFinding{
			{id: "diff.finish-changed", side: tape.Client, marker: `"finish_reason":"stop"`, peerMarker: `"finish_reason":"tool_calls"`},
			{id: "diff.usage-changed", side: tape.Client, marker: "[DONE]", peerMarker: `"usage"`}}},
		{"chat request rewritten", "/v1/chat/completions", "request", chatRequest, []wantFinding{
			{id: "req.history-rewritten", evidenceContains: "removed client message 0 (system)"},
			{id: "req.tools-changed", evidenceContains: "removed: get_stock_price"},
			{id: "req.model-changed", evidenceContains: "gpt-4o → gpt-4o-mini"},
			{id: "req.params-changed", evidenceContains: "temperature"}}},
		{"responses drops a call", "/v1/responses", "drop", responsesRequest, []wantFinding{
			{id: "diff.tool-call-dropped", side: tape.Upstream, marker: `"response.output_item.added"`}}},
		{"responses adds a call", "/v1/responses", "add", responsesRequest, []wantFinding{
			{id: "diff.tool-call-added", side: tape.Client, marker: "delete_all"}}},
		{"responses renames a call", "/v1/responses", "rename", responsesRequest, []wantFinding{
			{id: "diff.tool-name-changed", side: tape.Client, marker: `"type":"response.output_item.added"`, peerMarker: `"type":"response.output_item.added"`, evidenceContains: "get_capital → get_capitol"}}},
		{"responses rewrites arguments", "/v1/responses", "args", responsesRequest, []wantFinding{
			{id: "diff.tool-args-changed", side: tape.Client, marker: `"output_index":0`, last: true, peerMarker: `"output_index":0`, peerLast: true, evidenceContains: "changes country"}}},
		{"anthropic drops a call", "/v1/messages", "drop", anthropicRequest, []wantFinding{
			{id: "diff.tool-call-dropped", side: tape.Upstream, marker: `"index":1`}}},
		{"anthropic adds a call", "/v1/messages", "add", anthropicRequest, []wantFinding{
			{id: "diff.tool-call-added", side: tape.Client, marker: "delete_all"}}},
		{"anthropic renames a call", "/v1/messages", "rename", anthropicRequest, []wantFinding{
			{id: "diff.tool-name-changed", side: tape.Client, marker: "get_forecast", peerMarker: "get_weather"}}},
		{"anthropic rewrites arguments", "/v1/messages", "args", anthropicRequest, []wantFinding{
			{id: "diff.tool-args-changed", side: tape.Client, marker: `"index":1`, last: true, peerMarker: `"index":1`, peerLast: true,
				evidenceContains: `location: upstream "\"Paris\"" / client "\"Priis\""`}}},
		{"converting proxy: chat calls as XML", "/v1/chat/completions", "to-xml", chatRequest, []wantFinding{
			{id: "diff.tool-call-converted", side: tape.Client, marker: "<name>GetWeatherArgs"}}},
		{"converting proxy: chat calls as XML, one dropped", "/v1/chat/completions", "to-xml+drop", chatRequest, []wantFinding{
			{id: "diff.tool-call-converted", side: tape.Client, marker: "<name>GetWeatherArgs"},
			{id: "diff.tool-call-dropped", side: tape.Upstream, marker: chatDrop, evidenceContains: "get_stock_price"}}},
		{"converting proxy: chat to responses, one renamed", "/v1/responses", "to-responses+rename", convertRequest, []wantFinding{
			{id: "diff.tool-name-changed", side: tape.Client, marker: "get_stock_quote", peerMarker: "get_stock_price"}}},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest("POST", front+tc.path, strings.NewReader(tc.req))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Bad", tc.mode)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the exchange was never reported", tc.name)
		}
	}
	if err := rec.Stop(time.Second, io.Discard); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := tape.Read(f, "sandwich")
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("read capture: %v %v", err, c.Warnings)
	}
	r := inspect.Inspect(c, inspect.Options{})
	if len(r.Exchanges) != len(cases) {
		t.Fatalf("%d exchanges, want %d", len(r.Exchanges), len(cases))
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := r.Exchanges[i]
			events := map[tape.Side][]string{}
			for _, s := range x.Sides {
				for _, e := range s.EventList() {
					events[s.Side] = append(events[s.Side], e.Data)
				}
			}
			find := func(side tape.Side, marker string, last bool) int {
				at := -1
				for i, d := range events[side] {
					if strings.Contains(d, marker) {
						at = i
						if !last {
							break
						}
					}
				}
				if at < 0 {
					t.Fatalf("no %s event holds %q", side, marker)
				}
				return at
			}
			var got []string
			for _, f := range x.Findings {
				if strings.HasPrefix(f.ID, "diff.") || strings.HasPrefix(f.ID, "req.") {
					got = append(got, f.ID)
				}
			}
			var want []string
			for _, w := range tc.want {
				want = append(want, w.id)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				for _, f := range x.Findings {
					t.Logf("%s %s at %s: %s (%s)", f.Severity, f.ID, f.Pointer, f.Message, f.Evidence)
				}
				t.Fatalf("findings %q, want %q", got, want)
			}
			for _, w := range tc.want {
				var f *inspect.Finding
				for k := range x.Findings {
					if x.Findings[k].ID == w.id {
						f = &x.Findings[k]
					}
				}
				if w.evidenceContains != "" && !strings.Contains(f.Evidence, w.evidenceContains) {
					t.Errorf("%s evidence %q, want it to hold %q", w.id, f.Evidence, w.evidenceContains)
				}
				if w.side == "" {
					continue // a request-level finding
				}
				if at := find(w.side, w.marker, w.last); f.Pointer.Side != w.side || f.Pointer.Event != at {
					t.Errorf("%s at %s, want %s event %d (%s)", w.id, f.Pointer, w.side, at, events[w.side][at])
				}
				other := tape.Upstream
				if w.side == tape.Upstream {
					other = tape.Client
				}
				switch {
				case w.peerMarker == "" && f.Peer != nil:
					t.Errorf("%s has a peer %s, want none", w.id, *f.Peer)
				case w.peerMarker != "":
					at := find(other, w.peerMarker, w.peerLast)
					if f.Peer == nil || f.Peer.Side != other || f.Peer.Event != at {
						t.Errorf("%s peer %v, want %s event %d (%s)", w.id, f.Peer, other, at, events[other][at])
					}
				}
			}
		})
	}
	// The summary lines put the upstream's numbers under "up".
	byEx := map[int]*tape.Exchange{}
	for _, x := range c.Exchanges {
		byEx[x.Ex] = x
	}
	for _, s := range sums {
		x := byEx[s.Ex]
		if s.NoUpstream || s.UpstreamBytes != int64(len(x.Upstream.Body())) || s.ClientBytes != int64(len(x.Client.Body())) {
			t.Errorf("summary %s: want up %d bytes, client %d", s, len(x.Upstream.Body()), len(x.Client.Body()))
		}
	}
}
