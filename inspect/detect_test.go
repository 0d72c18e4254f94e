package inspect

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gobwas/ws"

	"github.com/seam-dev/seam/internal/streamtest"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// exInput describes one exchange built in a test: the request, and the raw
// SSE bodies of the sides that were recorded.
type exInput struct {
	url     string // default /v1/chat/completions
	req     string // request body
	upReq   string // the request as a proxy under test sent it upstream; "" means not recorded
	up      string // upstream body; "" means not recorded
	client  string // client body; "" means not recorded
	status  int    // default 200
	ct      string // Content-Type of both sides, default text/event-stream
	ce      string // Content-Encoding of both sides, the bodies given encoded
	outcome tape.Outcome
	// engine is the capture's engine (its header's), passthrough unless
	// set.
	engine tape.Engine
	prev   *exInput // an exchange recorded just before this one
	// ws, when set, makes a WebSocket exchange: the server's and the
	// client's messages (text frames; the client's masked).
	ws *wsInput
	// tamper, when set, changes the exchange, which is then written as a
	// capture file and read back, so tape checks its lines.
	tamper func(x *tape.Exchange)
}

// wsInput is the text messages of a WebSocket exchange, each way.
type wsInput struct {
	server, client []string
	// raw, when set, replaces the client's frames; serverRaw follows the
	// server's.
	raw, serverRaw []byte
	// ext is the Sec-WebSocket-Extensions the server accepted.
	ext string
}

// capture builds a capture holding the chain of in.prev (when set), then
// in.
func (in exInput) capture() *tape.Capture {
	c := &tape.Capture{Name: "test", Header: tape.Header{V: tape.Version, Engine: in.engine}}
	if c.Header.Engine.Profile == "" {
		c.Header.Engine.Profile = "passthrough"
	}
	var chain []*exInput
	for p := in.prev; p != nil; p = p.prev {
		chain = append([]*exInput{p}, chain...)
	}
	for _, p := range chain {
		c.Exchanges = append(c.Exchanges, p.exchange(len(c.Exchanges)+1))
	}
	c.Exchanges = append(c.Exchanges, in.exchange(len(c.Exchanges)+1))
	if in.tamper == nil {
		return c
	}
	x := c.Exchanges[len(c.Exchanges)-1]
	in.tamper(x)
	b := tape.AppendHeader(nil, c.Header)
	for _, x := range c.Exchanges {
		b = tape.AppendExchange(b, x)
	}
	read, err := tape.Read(bytes.NewReader(b), "test.ndjson")
	if err != nil {
		panic(err)
	}
	return read
}

func (in exInput) exchange(ex int) *tape.Exchange {
	url := in.url
	if url == "" {
		url = "/v1/chat/completions"
	}
	req := in.req
	if req == "" {
		req = `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	}
	x := &tape.Exchange{Ex: ex, Request: &tape.Request{Ex: ex, Method: "POST", URL: url, Body: []byte(req)}}
	if in.upReq != "" {
		x.UpstreamRequest = &tape.Request{Ex: ex, Side: tape.Upstream, Method: "POST", URL: url, Body: []byte(in.upReq)}
	}
	status := in.status
	if status == 0 {
		status = 200
	}
	outcome := in.outcome
	if outcome == "" {
		outcome = tape.Complete
	}
	if in.ws != nil {
		x.Request.Method, x.Request.URL, x.Request.Body = "GET", "/v1/realtime?model=m", nil
		frames := func(side tape.Side, msgs []string, mask bool) []byte {
			var b []byte
			for _, m := range msgs {
				f := ws.NewTextFrame([]byte(m))
				if mask {
					f = ws.MaskFrame(f)
				}
				b = append(b, ws.MustCompileFrame(f)...)
			}
			return b
		}
		client := frames(tape.Client, in.ws.client, true)
		if in.ws.raw != nil {
			client = in.ws.raw
		}
		server := append(frames(tape.Upstream, in.ws.server, false), in.ws.serverRaw...)
		for side, body := range map[tape.Side][]byte{tape.Upstream: server, tape.Client: client} {
			sd := x.Side(side)
			sd.Response = &tape.Response{Ex: ex, Side: side, Status: 101, Headers: tape.Headers{"upgrade": {"websocket"}}}
			if in.ws.ext != "" {
				sd.Response.Headers["sec-websocket-extensions"] = []string{in.ws.ext}
			}
			sd.Chunks = chunksOf(side, body, 0)
			sd.End = &tape.End{Ex: ex, Side: side, T: 1e9, Outcome: tape.Complete, Bytes: int64(len(body))}
		}
		return x
	}
	for _, s := range []struct {
		side tape.Side
		body string
	}{{tape.Upstream, in.up}, {tape.Client, in.client}} {
		if s.body == "" {
			continue
		}
		sd := x.Side(s.side)
		ct := in.ct
		if ct == "" {
			ct = "text/event-stream"
		}
		sd.Response = &tape.Response{Ex: ex, Side: s.side, Status: status, Headers: tape.Headers{"content-type": {ct}}}
		if in.ce != "" {
			sd.Response.Headers["content-encoding"] = []string{in.ce}
		}
		sd.Chunks = chunksOf(s.side, []byte(s.body), 0)
		for i := range sd.Chunks {
			sd.Chunks[i].Ex = ex
		}
		sd.End = &tape.End{Ex: ex, Side: s.side, T: 1e9, Outcome: outcome, Bytes: int64(len(s.body))}
	}
	return x
}

// findings inspects in and returns the findings of its last exchange.
func (in exInput) findings(t *testing.T) []Finding {
	t.Helper()
	r := Inspect(in.capture(), Options{})
	return r.Exchanges[len(r.Exchanges)-1].Findings
}

// The Chat Completions and Anthropic stream builders, shared with the
// tests of other packages.
var (
	cc         = streamtest.Chunk
	ccf        = streamtest.ChunkFinish
	chatText   = streamtest.ChatText
	tool       = streamtest.Tool
	chatCalls  = streamtest.ChatCalls
	jsonString = streamtest.JSONString
	antStream  = streamtest.Anthropic
)

const (
	chatRole     = streamtest.ChatRole
	done         = streamtest.Done
	antStart     = streamtest.AntStart
	antTextStart = streamtest.AntTextStart
	antTextDelta = streamtest.AntTextDelta
	antStop0     = streamtest.AntStop0
	antMsgDelta  = streamtest.AntMsgDelta
	antMsgStop   = streamtest.AntMsgStop
)

// Responses stream builder: each event is {type, fields}; the SSE event
// name is the type unless name is set, and sequence numbers count from 0.
type respEv struct{ typ, fields, name string }

func respStream(evs ...respEv) string {
	var b strings.Builder
	for i, e := range evs {
		if e.typ == "raw" {
			b.WriteString(e.fields)
			continue
		}
		name := e.name
		if name == "" {
			name = e.typ
		}
		data := `{"type":"` + e.typ + `","sequence_number":` + strconv.Itoa(i)
		if e.fields != "" {
			data += "," + e.fields
		}
		b.WriteString("event: " + name + "\ndata: " + data + "}\n\n")
	}
	return b.String()
}

func respOK(delta, doneText string, mods ...func([]respEv) []respEv) string {
	evs := []respEv{
		{typ: "response.created", fields: `"response":{"id":"r1","model":"m","status":"in_progress","output":[]}`},
		{typ: "response.output_item.added", fields: `"output_index":0,"item":{"type":"message","id":"m1","role":"assistant","content":[]}`},
		{typ: "response.content_part.added", fields: `"output_index":0,"content_index":0,"item_id":"m1","part":{"type":"output_text","text":""}`},
		{typ: "response.output_text.delta", fields: `"output_index":0,"content_index":0,"item_id":"m1","delta":` + jsonString(delta)},
		{typ: "response.output_text.done", fields: `"output_index":0,"content_index":0,"item_id":"m1","text":` + jsonString(doneText)},
		{typ: "response.output_item.done", fields: `"output_index":0,"item":{"type":"message","id":"m1","role":"assistant","content":[{"type":"output_text","text":` + jsonString(delta) + `}]}`},
		{typ: "response.completed", fields: `"response":{"id":"r1","model":"m","status":"completed","output":[{"type":"message","id":"m1","content":[{"type":"output_text","text":` + jsonString(delta) + `}]}]}`},
	}
	for _, m := range mods {
		evs = m(evs)
	}
	return respStream(evs...)
}

// setEv replaces event i.
func setEv(i int, e respEv) func([]respEv) []respEv {
	return func(evs []respEv) []respEv { evs[i] = e; return evs }
}

// toolsReq declares read(path, required) and getFileTree() in its tools.
const toolsReq = `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[` +
	`{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},` +
	`{"type":"function","function":{"name":"getFileTree","parameters":{"type":"object","properties":{}}}}]}`

func reqMessages(msgs string) string {
	return `{"model":"m","stream":true,"messages":[` + msgs + `]}`
}

const (
	userMsg      = `{"role":"user","content":"list my files"}`
	assistantTC  = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"getFileTree","arguments":"{}"}}]}`
	toolResult1  = `{"role":"tool","tool_call_id":"call_1","content":"a.md"}`
	toolResult2  = `{"role":"tool","tool_call_id":"call_2","content":"a.md"}`
	systemMsg    = `{"role":"system","content":"be brief"}`
	assistantTC2 = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_2","type":"function","function":{"name":"getFileTree","arguments":"{}"}}]}`
	blockA       = "<use_tool><name>read</name><path>a</path></use_tool>"
	blockB       = "<use_tool><name>read</name><path>b</path></use_tool>"
	protocolJSON = `{"type":"response.output_text.delta","delta":"x"}`
	usageChunk   = `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}` + "\n\n"
	errorChunk   = `data: {"error":{"message":"overloaded","type":"server_error"}}` + "\n\n"
)

// Tool calls ({id, name, args}) for the two-sided cases.
var (
	callA = [3]string{"call_a", "read", `{"path":"a"}`}
	callB = [3]string{"call_b", "read", `{"path":"b"}`}
)

// loopTurn2 is the second turn of a tool loop (whose first turn called
// getFileTree as call_1), answered with call_2, for the session detectors.
var loopTurn2 = &exInput{
	req:    reqMessages(userMsg + "," + assistantTC + "," + toolResult1),
	client: chatCalls([3]string{"call_2", "getFileTree", "{}"}),
	prev:   &exInput{req: reqMessages(userMsg), client: chatCalls([3]string{"call_1", "getFileTree", "{}"})},
}

// detectorCases gives, for each detector id, an exchange that fires it and
// a near-identical one that does not.
func detectorCases() []struct {
	id         string
	fire, calm exInput
} {
	clean := chatText("Hello", " world")
	type C = struct {
		id         string
		fire, calm exInput
	}
	return append([]C{
		{"http.status", exInput{client: clean, status: 500}, exInput{client: clean}},
		{"stream.outcome", exInput{client: clean, outcome: tape.Truncated}, exInput{client: clean}},
		{"stream.recorder-shutdown", exInput{client: cc(chatRole), outcome: tape.RecorderShutdown}, exInput{client: cc(chatRole), outcome: tape.ClientAborted}},
		{"sse.unterminated-event", exInput{client: strings.TrimSuffix(clean, "\n\n")}, exInput{client: clean}},
		{"sse.quirk", exInput{client: strings.Replace(clean, "data: ", "data:", 1)}, exInput{client: clean}},
		{"sse.comment", exInput{client: ": keepalive\n\n" + clean}, exInput{client: clean}},
		{"sse.unknown-field", exInput{client: "retry-after: 3\n" + clean}, exInput{client: "retry: 3\n" + clean}},
		{"stream.no-terminal", exInput{client: cc(chatRole) + cc(`{"content":"Hello"}`)}, exInput{client: clean}},
		{"chat.no-done", exInput{client: strings.TrimSuffix(clean, done)}, exInput{client: clean}},
		{"stream.trailing-done", exInput{client: clean + done}, exInput{client: clean}},
		{"chat.index-out-of-range",
			exInput{client: cc(chatRole) + cc(tool(2000000, "call_a", "read", "{}")) + ccf(`{}`, "tool_calls") + done},
			exInput{client: cc(chatRole) + cc(tool(0, "call_a", "read", "{}")) + ccf(`{}`, "tool_calls") + done}},
		{"stream.after-terminal", exInput{client: clean + cc(`{"content":"late"}`)}, exInput{client: clean}},
		{"stream.error-event", exInput{client: cc(chatRole) + `data: {"error":{"message":"overloaded"}}` + "\n\n" + done},
			exInput{client: cc(chatRole) + `data: {"note":{"message":"overloaded"},"choices":[]}` + "\n\n" + done}},
		{"stream.event-name-mismatch",
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi", setEv(0, respEv{typ: "response.created", name: "created", fields: `"response":{"id":"r1","model":"m","status":"in_progress","output":[]}`}))},
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi")}},
		{"payload.invalid-json", exInput{client: cc(chatRole) + "data: {\"choices\":[\n\n" + ccf(`{}`, "stop") + done}, exInput{client: clean}},
		{"chat.bad-done", exInput{client: strings.Replace(clean, "[DONE]", `"[DONE]"`, 1)}, exInput{client: clean}},
		{"chat.index-id-conflict",
			exInput{client: cc(chatRole) + cc(tool(0, "call_a", "read", `{"path":`)) + cc(tool(0, "call_b", "", `"a"}`)) + ccf(`{}`, "tool_calls") + done},
			exInput{client: cc(chatRole) + cc(tool(0, "call_a", "read", `{"path":`)) + cc(tool(0, "", "", `"a"}`)) + ccf(`{}`, "tool_calls") + done}},
		{"chat.index-not-zero",
			exInput{client: cc(chatRole) + cc(tool(1, "call_a", "read", `{"path":"a"}`)) + ccf(`{}`, "tool_calls") + done},
			exInput{client: cc(chatRole) + cc(tool(0, "call_a", "read", `{"path":"a"}`)) + ccf(`{}`, "tool_calls") + done}},
		// Fragments without index need one to be joined; a call sent whole
		// in one delta, as Mistral sends it, does not.
		{"chat.tool-index-missing",
			exInput{client: cc(chatRole) + cc(`{"tool_calls":[{"id":"call_a","function":{"name":"read","arguments":""}}]}`) + cc(`{"tool_calls":[{"function":{"arguments":"{}"}}]}`) + ccf(`{}`, "tool_calls") + done},
			exInput{client: cc(chatRole) + cc(`{"tool_calls":[{"id":"call_a","function":{"name":"read","arguments":"{}"}}]}`) + ccf(`{}`, "tool_calls") + done}},
		{"chat.repeated-fields",
			exInput{client: cc(chatRole) + cc(`{"role":"assistant","content":"Hi"}`) + ccf(`{}`, "stop") + done},
			exInput{client: cc(chatRole) + cc(`{"content":"Hi"}`) + ccf(`{}`, "stop") + done}},
		{"chat.content-with-tool-calls",
			exInput{client: cc(chatRole) + cc(`{"content":"Let me look.","tool_calls":[{"index":0,"id":"call_a","function":{"name":"read","arguments":"{}"}}]}`) + ccf(`{}`, "tool_calls") + done},
			exInput{client: cc(chatRole) + cc(`{"content":"Let me look."}`) + cc(`{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"read","arguments":"{}"}}]}`) + ccf(`{}`, "tool_calls") + done}},
		{"chat.trailing-cr", exInput{client: chatText("Hello\r", " world")}, exInput{client: chatText("Hello", " world")}},
		{"chat.finish-missing", exInput{client: cc(chatRole) + cc(`{"content":"Hi"}`) + done}, exInput{client: cc(chatRole) + ccf(`{"content":"Hi"}`, "stop") + done}},
		{"chat.finish-length-tools",
			exInput{client: cc(chatRole) + cc(tool(0, "call_a", "read", `{"path":"a"}`)) + ccf(`{}`, "length") + done},
			exInput{client: cc(chatRole) + cc(tool(0, "call_a", "read", `{"path":"a"}`)) + ccf(`{}`, "tool_calls") + done}},
		{"chat.after-finish",
			exInput{client: cc(chatRole) + ccf(`{"content":"Hi"}`, "stop") + cc(`{"content":"again"}`) + done},
			exInput{client: cc(chatRole) + cc(`{"content":"again"}`) + ccf(`{"content":"Hi"}`, "stop") + done}},
		{"chat.usage-before-finish",
			exInput{client: cc(chatRole) + `data: {"id":"c1","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}` + "\n\n" + ccf(`{"content":"Hi"}`, "stop") + done},
			exInput{client: cc(chatRole) + ccf(`{"content":"Hi"}`, "stop") + `data: {"id":"c1","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}` + "\n\n" + done}},
		{"chat.cumulative-args",
			exInput{client: cc(chatRole) + cc(tool(0, "call_a", "read", `{"path"`)) + cc(tool(0, "", "", `{"path":"a"`)) + cc(tool(0, "", "", `{"path":"a"}`)) + ccf(`{}`, "tool_calls") + done},
			exInput{client: cc(chatRole) + cc(tool(0, "call_a", "read", `{"path"`)) + cc(tool(0, "", "", `:"a"`)) + cc(tool(0, "", "", `}`)) + ccf(`{}`, "tool_calls") + done}},
		{"tool.args-invalid-json", exInput{client: chatCalls([3]string{"call_a", "read", `{"path":`})}, exInput{client: chatCalls([3]string{"call_a", "read", `{"path":"a"}`})}},
		{"final.mismatch", exInput{url: "/v1/responses", client: respOK("Hi", "Hi!")}, exInput{url: "/v1/responses", client: respOK("Hi", "Hi")}},
		{"responses.item-id-rotation",
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi", setEv(3, respEv{typ: "response.output_text.delta", fields: `"output_index":0,"content_index":0,"item_id":"m2","delta":"Hi"`}))},
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi")}},
		{"responses.sequence",
			exInput{url: "/v1/responses", client: strings.Replace(respOK("Hi", "Hi"), `"sequence_number":3`, `"sequence_number":7`, 1)},
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi")}},
		{"responses.failed",
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi", setEv(6, respEv{typ: "response.failed", fields: `"response":{"id":"r1","model":"m","status":"failed","error":{"code":"server_error","message":"boom"},"output":[]}`}))},
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi")}},
		{"responses.untyped-data",
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi", func(evs []respEv) []respEv {
				s := respStream(evs...)
				i := strings.Index(s, "event: response.completed")
				return []respEv{{typ: "raw", fields: s[:i] + `data: {"error":{"message":"x"}}` + "\n\n" + s[i:]}}
			})},
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi")}},
		{"responses.nonstandard-shape",
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi", setEv(3, respEv{typ: "response.output_text.delta", fields: `"output_index":0,"item_id":"m1","delta":"Hi"`}))},
			exInput{url: "/v1/responses", client: respOK("Hi", "Hi")}},
		{"anthropic.event-name",
			exInput{url: "/v1/messages", client: antStream(false, antStart, antTextStart, antTextDelta, antStop0, antMsgDelta, antMsgStop)},
			exInput{url: "/v1/messages", client: antStream(true, antStart, antTextStart, antTextDelta, antStop0, antMsgDelta, antMsgStop)}},
		{"anthropic.order",
			exInput{url: "/v1/messages", client: antStream(true, antTextStart, antStart, antTextDelta, antStop0, antMsgDelta, antMsgStop)},
			exInput{url: "/v1/messages", client: antStream(true, antStart, antTextStart, antTextDelta, antStop0, antMsgDelta, antMsgStop)}},
		{"anthropic.block-unclosed",
			exInput{url: "/v1/messages", client: antStream(true, antStart, antTextStart, antTextDelta, antMsgDelta, antMsgStop)},
			exInput{url: "/v1/messages", client: antStream(true, antStart, antTextStart, antTextDelta, antStop0, antMsgDelta, antMsgStop)}},
		{"xml.unclosed-closer",
			exInput{client: chatText("<use_tool><name>read</name><path>a</path></use_tool", blockB)},
			exInput{client: chatText("<use_tool><name>read</name><path>a</path></use_tool>", blockB)}},
		{"xml.partial-opener", exInput{client: chatText("ok <use_tool <name>read</name></use_tool>")}, exInput{client: chatText("ok <use_tool><name>read</name></use_tool>")}},
		{"xml.nested-opener",
			exInput{client: chatText("<use_tool><name>read</name><path>a</path>", blockB)},
			exInput{client: chatText("<use_tool><name>read</name><path>a</path></use_tool>", blockB)}},
		{"xml.duplicate-block", exInput{client: chatText(blockA, blockA)}, exInput{client: chatText(blockA, blockB)}},
		{"xml.args-param",
			exInput{client: chatText("<use_tool><name>getFileTree</name><args>{}</args></use_tool>")},
			exInput{client: chatText("<use_tool><name>getFileTree</name></use_tool>")}},
		{"xml.unclosed-block", exInput{client: chatText("Reading. <use_tool><name>read</name><path>a</path>")}, exInput{client: chatText("Reading. " + blockA)}},
		{"xml.unclosed-param",
			exInput{client: chatText("<use_tool><name>read</name><path>a</use_tool>")},
			exInput{client: chatText("<use_tool><name>read</name><path>a</path></use_tool>")}},
		{"xml.text-after-tools", exInput{client: chatText(blockA, " Calling read now.")}, exInput{client: chatText("Calling read now. ", blockA)}},
		{"text.protocol-dump", exInput{client: chatText("Hi ", protocolJSON)}, exInput{client: chatText("Hi ", `{"kind":"output"}`)}},
		{"tool.duplicate-call",
			exInput{client: chatCalls([3]string{"call_a", "read", `{"path":"a"}`}, [3]string{"call_b", "read", `{"path": "a"}`})},
			exInput{client: chatCalls([3]string{"call_a", "read", `{"path":"a"}`}, [3]string{"call_b", "read", `{"path":"b"}`})}},
		{"diff.upstream-client", exInput{up: chatText("Hello", " world"), client: chatText("Hello", " there")}, exInput{up: chatText("Hello", " world"), client: chatText("Hello", " world")}},
		{"diff.text-shaped",
			exInput{engine: tape.Engine{Profile: "obsidian-xml"}, up: chatText("<use_tool><name>a</name></use_tool>", " Calling a now…"), client: chatText("<use_tool><name>a</name></use_tool>")},
			exInput{up: chatText("<use_tool><name>a</name></use_tool>", " Calling a now…"), client: chatText("<use_tool><name>a</name></use_tool>")}},
		{"diff.boundary-dedupe",
			exInput{up: chatText("timeand", "date"), client: chatText("timeand", "ate")},
			exInput{up: chatText("timeand", "date"), client: chatText("timeand", "dte")}},
		{"diff.tool-call-dropped",
			exInput{up: chatCalls(callA, callB), client: chatCalls(callA)},
			exInput{up: chatCalls(callA, callB), client: chatCalls(callA, callB)}},
		{"diff.tool-call-added",
			exInput{up: chatCalls(callA), client: chatCalls(callA, callB)},
			exInput{up: chatCalls(callA), client: chatCalls(callA)}},
		{"diff.tool-name-changed",
			exInput{up: chatCalls(callA), client: chatCalls([3]string{"call_a", "open", `{"path":"a"}`})},
			exInput{up: chatCalls(callA), client: chatCalls(callA)}},
		{"diff.tool-args-changed",
			exInput{up: chatCalls(callA), client: chatCalls([3]string{"call_a", "read", `{"path":"b"}`})},
			exInput{up: chatCalls(callA), client: chatCalls([3]string{"call_a", "read", `{ "path" : "a" }`})}},
		{"diff.tool-id-changed",
			exInput{up: chatCalls(callA), client: chatCalls([3]string{"call_z", "read", `{"path":"a"}`})},
			exInput{up: chatCalls(callA), client: chatCalls(callA)}},
		{"diff.tool-call-converted",
			exInput{up: chatCalls(callA), client: chatText(blockA)},
			exInput{up: chatCalls(callA), client: chatCalls(callA)}},
		{"diff.finish-changed",
			exInput{up: chatText("Hi"), client: cc(chatRole) + ccf(`{"content":"Hi"}`, "length") + done},
			exInput{up: chatText("Hi"), client: cc(chatRole) + ccf(`{"content":"Hi"}`, "stop") + done}},
		{"diff.usage-changed",
			exInput{up: strings.TrimSuffix(chatText("Hi"), done) + usageChunk + done, client: chatText("Hi")},
			exInput{up: strings.TrimSuffix(chatText("Hi"), done) + usageChunk + done, client: strings.TrimSuffix(chatText("H", "i"), done) + usageChunk + done}},
		{"diff.error-changed",
			exInput{up: cc(chatRole) + errorChunk + done, client: cc(chatRole) + ccf(`{}`, "stop") + done},
			exInput{up: cc(chatRole) + errorChunk + done, client: cc(chatRole) + errorChunk + done}},
		{"diff.reasoning-changed",
			exInput{up: cc(chatRole) + cc(`{"reasoning_content":"think"}`) + ccf(`{"content":"Hi"}`, "stop") + done, client: chatText("Hi")},
			exInput{up: cc(chatRole) + cc(`{"reasoning_content":"think"}`) + ccf(`{"content":"Hi"}`, "stop") + done,
				client: cc(chatRole) + cc(`{"reasoning_content":"thi"}`) + cc(`{"reasoning_content":"nk"}`) + ccf(`{"content":"Hi"}`, "stop") + done}},
		{"diff.refusal-changed",
			exInput{up: cc(chatRole) + ccf(`{"refusal":"I can't"}`, "stop") + done, client: cc(chatRole) + ccf(`{}`, "stop") + done},
			exInput{up: cc(chatRole) + ccf(`{"refusal":"I can't"}`, "stop") + done, client: cc(chatRole) + ccf(`{"refusal":"I can't"}`, "stop") + done}},
		{"diff.model-changed",
			exInput{up: chatText("Hi"), client: strings.ReplaceAll(chatText("Hi"), `"model":"m"`, `"model":"m-mini"`)},
			exInput{up: chatText("Hi"), client: chatText("Hi")}},
		{"client.disagree",
			exInput{client: cc(chatRole) + cc(`{"content":"Let me look.","tool_calls":[{"index":0,"id":"call_a","function":{"name":"read","arguments":"{}"}}]}`) + ccf(`{}`, "tool_calls") + done},
			exInput{client: clean}},
		{"req.orphan-tool-result",
			exInput{req: reqMessages(userMsg + "," + toolResult1), client: clean},
			exInput{req: reqMessages(userMsg + "," + assistantTC + "," + toolResult1), client: clean}},
		{"req.resent-user-prompt",
			exInput{req: reqMessages(userMsg + "," + userMsg + "," + toolResult1), client: clean},
			exInput{req: reqMessages(userMsg + "," + systemMsg + "," + toolResult1), client: clean}},
		{"req.unknown-tool-call-id",
			exInput{req: reqMessages(userMsg + "," + assistantTC + "," + toolResult2), client: clean},
			exInput{req: reqMessages(userMsg + "," + assistantTC + "," + toolResult1), client: clean}},
		{"req.history-rewritten",
			exInput{req: reqMessages(systemMsg + "," + userMsg + "," + assistantTC + "," + toolResult1), upReq: reqMessages(userMsg + "," + toolResult1), client: clean},
			exInput{req: reqMessages(userMsg + "," + assistantTC + "," + toolResult1), upReq: reqMessages(systemMsg + "," + userMsg + "," + assistantTC + "," + toolResult1), client: clean}},
		{"req.tools-changed",
			exInput{req: toolsReq, upReq: strings.Replace(toolsReq, `"required":["path"]`, `"required":[]`, 1), client: clean},
			exInput{req: toolsReq, upReq: strings.Replace(toolsReq, `"model":"m"`, `"model":"m","temperature":0`, 1), client: clean}},
		{"req.model-changed",
			exInput{req: toolsReq, upReq: strings.Replace(toolsReq, `"model":"m"`, `"model":"m-mini"`, 1), client: clean},
			exInput{req: toolsReq, upReq: strings.Replace(toolsReq, `"messages"`, `"temperature":0,"messages"`, 1), client: clean}},
		{"req.params-changed",
			exInput{req: toolsReq, upReq: strings.Replace(toolsReq, `"stream":true`, `"stream":true,"stream_options":{"include_usage":true}`, 1), client: clean},
			exInput{req: toolsReq, upReq: strings.Replace(toolsReq, `"model":"m","stream":true`, `"stream":true, "model":"m"`, 1), client: clean}},
		{"schema.void-args",
			exInput{req: toolsReq, client: chatCalls([3]string{"call_a", "getFileTree", `{"args":{}}`})},
			exInput{req: toolsReq, client: chatCalls([3]string{"call_a", "getFileTree", `{}`})}},
		{"schema.missing-param",
			exInput{req: toolsReq, client: chatCalls([3]string{"call_a", "read", `{}`})},
			exInput{req: toolsReq, client: chatCalls([3]string{"call_a", "read", `{"path":"a"}`})}},
		{"schema.unknown-param",
			exInput{req: toolsReq, client: chatCalls([3]string{"call_a", "read", `{"path":"a","mode":"r"}`})},
			exInput{req: toolsReq, client: chatCalls([3]string{"call_a", "read", `{"path":"a"}`})}},
		{"schema.unknown-tool",
			exInput{req: toolsReq, client: chatCalls([3]string{"call_a", "write", `{"path":"a"}`})},
			exInput{req: toolsReq, client: chatCalls([3]string{"call_a", "read", `{"path":"a"}`})}},
		{"websocket.protocol",
			exInput{ws: &wsInput{server: []string{"hi"}, raw: ws.MustCompileFrame(ws.NewTextFrame([]byte("unmasked")))}},
			exInput{ws: &wsInput{server: []string{"hi"}, client: []string{"masked"}}}},
		{"websocket.cap",
			exInput{ws: &wsInput{server: []string{"hi"}, ext: "permessage-deflate", serverRaw: wsframe.AppendFrame(nil, wsframe.Header{Fin: true, Rsv1: true, Opcode: wsframe.Text}, wsframe.Deflate(nil, make([]byte, wsframe.DefaultMaxMessage+1)))}},
			exInput{ws: &wsInput{server: []string{"hi"}, ext: "permessage-deflate", serverRaw: wsframe.AppendFrame(nil, wsframe.Header{Fin: true, Rsv1: true, Opcode: wsframe.Text}, wsframe.Deflate(nil, make([]byte, 1<<20)))}}},
		{"websocket.close-error",
			exInput{ws: &wsInput{server: []string{rtSession, rtCreated}, serverRaw: rtClose(1011)}},
			exInput{ws: &wsInput{server: []string{rtSession, rtCreated, rtDone("completed")}, serverRaw: rtClose(1011)}}},
		{"websocket.close",
			exInput{ws: &wsInput{server: []string{rtSession, rtCreated, rtDone("completed")}, serverRaw: rtClose(1011)}},
			exInput{ws: &wsInput{server: []string{rtSession, rtCreated, rtDone("completed")}, serverRaw: rtClose(1000)}}},
		{"realtime.error",
			exInput{ws: &wsInput{server: []string{rtSession, `{"type":"error","error":{"type":"invalid_request_error","code":"bad","message":"nope"}}`}}},
			exInput{ws: &wsInput{server: []string{rtSession}}}},
		{"realtime.response-failed",
			exInput{ws: &wsInput{server: []string{rtSession, rtCreated, rtDone("failed")}}},
			exInput{ws: &wsInput{server: []string{rtSession, rtCreated, rtDone("completed")}}}},
		{"realtime.response-unfinished",
			exInput{ws: &wsInput{server: []string{rtSession, rtCreated}}},
			exInput{ws: &wsInput{server: []string{rtSession, rtCreated, rtDone("completed")}}}},
		{"realtime.invalid-json",
			exInput{ws: &wsInput{server: []string{rtSession, "not json"}}},
			exInput{ws: &wsInput{server: []string{rtSession, `{"type":"rate_limits.updated"}`}}}},
		{tape.AnomalyOffsetGap, exInput{client: clean, tamper: func(x *tape.Exchange) { x.Client.Chunks[0].Off = 7 }}, exInput{client: clean, tamper: func(*tape.Exchange) {}}},
		{tape.AnomalyTimeBackwards, exInput{client: clean, tamper: func(x *tape.Exchange) { x.Client.End.T = -1 }}, exInput{client: clean, tamper: func(*tape.Exchange) {}}},
		{tape.AnomalyBytesMismatch, exInput{client: clean, tamper: func(x *tape.Exchange) { x.Client.End.Bytes++ }}, exInput{client: clean, tamper: func(*tape.Exchange) {}}},
		{tape.AnomalyInterrupted, exInput{client: clean, tamper: func(x *tape.Exchange) { x.Client.End = nil }}, exInput{client: clean, tamper: func(*tape.Exchange) {}}},
		{tape.AnomalyUnrecorded, exInput{client: clean, tamper: func(x *tape.Exchange) {
			x.Client.End.Bytes += 100
			x.Client.End.Unrecorded = 100
		}}, exInput{client: clean, tamper: func(*tape.Exchange) {}}},
		{"session.turn-dropped",
			exInput{req: reqMessages(userMsg + "," + assistantTC + "," + assistantTC2 + "," + toolResult2), client: clean, prev: loopTurn2},
			exInput{req: reqMessages(userMsg + "," + assistantTC + "," + toolResult1 + "," + assistantTC2 + "," + toolResult2), client: clean, prev: loopTurn2}},
		{"session.turn-edited",
			exInput{req: reqMessages(userMsg + "," + assistantTC + "," + strings.Replace(toolResult1, "a.md", "b.md", 1) + "," + assistantTC2 + "," + toolResult2), client: clean, prev: loopTurn2},
			exInput{req: reqMessages(userMsg + "," + assistantTC + "," + toolResult1 + "," + assistantTC2 + "," + toolResult2), client: clean, prev: loopTurn2}},
		{"exchange.retry-seam",
			exInput{client: clean, prev: &exInput{client: clean, status: 500}},
			exInput{client: clean, prev: &exInput{client: clean}}},
		// The same body to another model in the path (Bedrock's 400 then
		// its 403 in the SDK harness) is another request, not a retry.
		{"exchange.retry-seam",
			exInput{url: "/model/a/converse-stream", client: clean, prev: &exInput{url: "/model/a/converse-stream", client: clean, status: 400}},
			exInput{url: "/model/b/converse-stream", client: clean, prev: &exInput{url: "/model/a/converse-stream", client: clean, status: 400}}},
	}, providerDetectorCases()...)
}

// Realtime server events for the detector cases.
const (
	rtSession = `{"type":"session.created","event_id":"e1","session":{"id":"sess_1","model":"gpt-realtime"}}`
	rtCreated = `{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}`
)

// rtClose is a server's close frame with code.
func rtClose(code int) []byte {
	return ws.MustCompileFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusCode(code), "")))
}

func rtDone(status string) string {
	return `{"type":"response.done","response":{"id":"resp_1","status":"` + status + `","usage":{"input_tokens":3,"output_tokens":5,"total_tokens":8}}}`
}

// TestDetectorsFireAndStayQuiet checks every registered detector on an
// input that must fire it and on a near-identical one that must not.
func TestDetectorsFireAndStayQuiet(t *testing.T) {
	t.Parallel()
	cases := detectorCases()
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.id] = true
	}
	for _, d := range Detectors() {
		if !covered[d.ID] {
			t.Errorf("detector %s has no fire/no-fire case", d.ID)
		}
	}
	sev := map[string]Severity{}
	for _, d := range Detectors() {
		sev[d.ID] = d.Severity
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			if _, ok := sev[tc.id]; !ok {
				t.Fatalf("%s is not registered", tc.id)
			}
			var hit *Finding
			fs := tc.fire.findings(t)
			for i, f := range fs {
				if f.ID == tc.id {
					hit = &fs[i]
					break
				}
			}
			if hit == nil {
				t.Fatalf("did not fire; findings: %s", findingIDs(fs))
			}
			if hit.Severity != sev[tc.id] || hit.Message == "" {
				t.Errorf("finding %+v: want severity %s and a message", hit, sev[tc.id])
			}
			for _, f := range tc.calm.findings(t) {
				if f.ID == tc.id {
					t.Errorf("fired on the calm input: %+v", f)
				}
			}
		})
	}
}

func findingIDs(fs []Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return strings.Join(ids, ", ")
}

// TestEmittedIDsAreRegistered reads the source of this package and of the
// protocol package, whose assemblers raise anomalies: every call that
// raises a finding (Assembly.flag, Assembly.flagOnce, exCtx.emit) must name
// its detector with a string literal that is registered, and every
// registered detector must be raised somewhere.
func TestEmittedIDsAreRegistered(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../protocol/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	fset := token.NewFileSet()
	emitted := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "flag" && sel.Sel.Name != "flagOnce" && sel.Sel.Name != "emit" && sel.Sel.Name != "emitPair") || len(call.Args) == 0 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				// flagOnce passes its id on; runDetectors relays the
				// assemblers' anomalies, whose ids are literals at flag.
				// runTape relays tape's anomalies, whose ids are tape's
				// Anomaly* constants.
				fd := enclosingFunc(f, call.Pos())
				if fd == "runTape" {
					for _, id := range []string{tape.AnomalyOffsetGap, tape.AnomalyTimeBackwards, tape.AnomalyBytesMismatch, tape.AnomalyInterrupted, tape.AnomalyUnrecorded} {
						emitted[id] = true
					}
				}
				if fd != "flagOnce" && fd != "runDetectors" && fd != "runTape" && fd != "emitPair" {
					t.Errorf("%s: %s called with a non-literal detector id", fset.Position(call.Pos()), sel.Sel.Name)
				}
				return true
			}
			id, _ := strconv.Unquote(lit.Value)
			emitted[id] = true
			return true
		})
	}
	registered := map[string]bool{}
	for _, d := range Detectors() {
		if registered[d.ID] {
			t.Errorf("detector %s registered twice", d.ID)
		}
		registered[d.ID] = true
	}
	for id := range emitted {
		if !registered[id] {
			t.Errorf("detector id %q is emitted but not registered", id)
		}
	}
	for id := range registered {
		if !emitted[id] {
			t.Errorf("detector %q is registered but never emitted", id)
		}
	}
}

// enclosingFunc names the function declaration containing pos.
func enclosingFunc(f *ast.File, pos token.Pos) string {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= pos && pos < fd.End() {
			return fd.Name.Name
		}
	}
	return ""
}

// TestDetectorCatchesNameDetectors checks that every plain-words entry of
// --list-detectors belongs to a registered detector (a renamed detector
// would otherwise lose its explanation silently).
func TestDetectorCatchesNameDetectors(t *testing.T) {
	t.Parallel()
	ids := map[string]bool{}
	for _, d := range Detectors() {
		ids[d.ID] = true
	}
	for id := range detectorCatches {
		if !ids[id] {
			t.Errorf("detectorCatches has %q, which is no detector", id)
		}
	}
}

// TestDuplicateCallsOncePerRepeat: each repeated tool call is reported
// once, against the first call it repeats, whatever its spacing: a stream
// of many equal calls gets one finding per repeat, not one per pair.
func TestDuplicateCallsOncePerRepeat(t *testing.T) {
	calls := [][3]string{
		{"call_a", "read", `{"path":"a","n":1}`},
		{"call_b", "read", `{"n":1.0, "path":"a"}`},
		{"call_c", "read", `{"path":"b"}`},
		{"call_d", "read", `{"path": "a", "n": 1}`},
		{"call_e", "open", `{"path":"a","n":1}`},
	}
	var got []string
	for _, f := range (exInput{client: chatCalls(calls...)}).findings(t) {
		if f.ID == "tool.duplicate-call" {
			got = append(got, f.Evidence[strings.Index(f.Evidence, "#"):])
		}
	}
	want := []string{"#call_a and #call_b", "#call_a and #call_d"}
	if !slices.Equal(got, want) {
		t.Errorf("duplicate calls %q, want %q", got, want)
	}
	many := make([][3]string, 300)
	for i := range many {
		many[i] = [3]string{fmt.Sprintf("call_%d", i), "read", `{"path":"a"}`}
	}
	n := 0
	for _, f := range (exInput{client: chatCalls(many...)}).findings(t) {
		if f.ID == "tool.duplicate-call" {
			n++
		}
	}
	if n != len(many)-1 {
		t.Errorf("%d equal calls: %d duplicate-call findings, want %d", len(many), n, len(many)-1)
	}
}
