package shape

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/seam-dev/seam/internal/jsstring"

	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// sseExchange is a 200 text/event-stream exchange.
var sseExchange = Exchange{Method: "POST", Path: "/v1/chat/completions", Status: 200, ContentType: "text/event-stream; charset=utf-8"}

// mustEngine builds the engine for profile with set applied.
func mustEngine(t testing.TB, profile string, set map[string]string) Engine {
	t.Helper()
	cfg, err := Resolve(profile, set)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(cfg, sseExchange)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// run pushes the chunks through e and returns the client frames (copied).
func run(e Engine, chunks [][]byte) [][]byte {
	var out [][]byte
	var dst [][]byte
	for _, c := range chunks {
		dst = e.Push(dst[:0], c)
		for _, f := range dst {
			out = append(out, append([]byte(nil), f...))
		}
	}
	dst = e.Close(dst[:0])
	for _, f := range dst {
		out = append(out, append([]byte(nil), f...))
	}
	return out
}

func join(frames [][]byte) []byte {
	var b []byte
	for _, f := range frames {
		b = append(b, f...)
	}
	return b
}

// splitEvery cuts b into chunks of n bytes.
func splitEvery(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	if len(b) > 0 {
		out = append(out, b)
	}
	return out
}

// events parses an SSE body.
func events(body []byte) []sse.Event {
	var p sse.Parser
	var out []sse.Event
	p.Feed(body, func(e sse.Event) { out = append(out, e) })
	p.Close(func(e sse.Event) { out = append(out, e) })
	return out
}

// assembled is what a client assembles from a stream (its terminated
// events with JSON payloads, up to the terminal event: [DONE],
// message_stop, response.completed/failed/incomplete; what follows it is
// another finding, and the engine ends the message there): the text of each
// choice (Chat Completions delta.content; Responses output_text.delta;
// Anthropic text_delta) and the tool calls as "name(args)".
type assembled struct {
	text  map[int]string
	tools []string
}

func assemble(t testing.TB, body []byte) assembled {
	t.Helper()
	a := assembled{text: map[int]string{}}
	text := map[int]*strings.Builder{}
	add := func(ci int, s string) {
		if s == "" {
			return
		}
		b := text[ci]
		if b == nil {
			b = &strings.Builder{}
			text[ci] = b
		}
		b.WriteString(s)
	}
	type tc struct{ name, args string }
	calls := map[string]*tc{}
	var order []string
	get := func(k string) *tc {
		if c, ok := calls[k]; ok {
			return c
		}
		c := &tc{}
		calls[k] = c
		order = append(order, k)
		return c
	}
	// A client decodes the stream's bytes (TextDecoder) before it
	// parses them.
	for _, ev := range events([]byte(jsstring.Decode(string(body)))) {
		d := ev.Data
		if ev.Terminated && terminal(d, ev.Type) {
			break
		}
		// A client discards an event no blank line ended, and cannot read
		// a payload that is not JSON.
		if !ev.Terminated || d == "[DONE]" || !gjson.Valid(d) {
			continue
		}
		r := gjson.Parse(lastWins(d))
		typ := r.Get("type").Str
		if typ == "" && r.IsObject() && !r.Get("choices").Exists() {
			// A typed protocol's event named only by its SSE event line,
			// as the engine reads it (and the Anthropic SDKs dispatch).
			typ = ev.Type
		}
		switch {
		case typ == "response.output_text.delta":
			add(0, r.Get("delta").Str)
		case typ == "response.output_item.added" && r.Get("item.type").Str == "function_call":
			get(fmt.Sprint(r.Get("output_index").Int())).name = r.Get("item.name").Str
		case typ == "response.function_call_arguments.delta":
			get(fmt.Sprint(r.Get("output_index").Int())).args += r.Get("delta").Str
		case typ == "content_block_start" && r.Get("content_block.type").Str == "text":
			add(0, r.Get("content_block.text").Str) // the SDKs start the block with it
		case typ == "content_block_start" && r.Get("content_block.type").Str == "tool_use":
			c := get(fmt.Sprint(r.Get("index").Int()))
			c.name = r.Get("content_block.name").Str
			if in := r.Get("content_block.input"); in.IsObject() && in.Raw != "{}" {
				c.args += in.Raw
			}
		case typ == "content_block_delta":
			switch r.Get("delta.type").Str {
			case "text_delta":
				add(0, r.Get("delta.text").Str)
			case "input_json_delta":
				get(fmt.Sprint(r.Get("index").Int())).args += r.Get("delta.partial_json").Str
			}
		case typ == "":
			r.Get("choices").ForEach(func(_, c gjson.Result) bool {
				ci := int(c.Get("index").Int())
				add(ci, c.Get("delta.content").Str)
				c.Get("delta.tool_calls").ForEach(func(_, x gjson.Result) bool {
					k := fmt.Sprint(c.Get("index").Int(), "/", x.Get("index").Int())
					cl := get(k)
					cl.name += x.Get("function.name").Str
					cl.args += x.Get("function.arguments").Str
					return true
				})
				return true
			})
		}
	}
	for ci, b := range text {
		a.text[ci] = b.String()
	}
	for _, k := range order {
		if c := calls[k]; c.name != "" || c.args != "" {
			a.tools = append(a.tools, c.name+"("+c.args+")")
		}
	}
	return a
}

// lastWins returns the JSON d with each object's repeated keys reduced to
// the last, which is the value JSON.parse (and Python's json) gives a
// client; gjson reads the first.
func lastWins(d string) string {
	dec := json.NewDecoder(strings.NewReader(d))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return d
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return d
	}
	return b.String()
}

// terminal reports whether an event (its data d and SSE event name
// name, read when the data names no type) ends the message.
func terminal(d, name string) bool {
	if d == "[DONE]" {
		return true
	}
	r := gjson.Parse(lastWins(d))
	typ := r.Get("type").Str
	if typ == "" && r.IsObject() && !r.Get("choices").Exists() {
		typ = name
	}
	switch typ {
	case "message_stop", "response.completed", "response.failed", "response.incomplete":
		return gjson.Valid(d)
	}
	return false
}

// realworld is where the repository keeps the recorded streams of
// ../shared/realworld (see fixtures/README.md for their provenance).
const realworld = "../fixtures/realworld"

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tapeEngine(profile string, set map[string]string) tape.Engine {
	return tape.Engine{Profile: profile, Switches: set}
}
