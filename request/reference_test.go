package request

import (
	"reflect"
	"slices"
	"testing"

	"github.com/tidwall/gjson"
)

// parseGJSON is Parse as it was before it read with jsontext's Scanner, all
// with gjson: the reference FuzzParse compares Parse with. It reads a Chat Completions, Responses or Anthropic Messages request
// body. A body that is not JSON, or of another shape, gives an empty
// Request.
func parseGJSON(body []byte) *Request {
	r := &Request{Tools: map[string]*Tool{}}
	if len(body) == 0 || !gjson.ValidBytes(body) {
		return r
	}
	f := fields(gjson.ParseBytes(body), "model", "stream", "previous_response_id", "system", "instructions", "messages", "input", "tools")
	r.Model = f[0].String()
	r.Stream = f[1].Bool()
	r.PrevResponse = f[2].String()
	if s := f[3]; s.Exists() {
		r.Messages = append(r.Messages, Message{Role: "system", Text: contentText(s)})
	}
	instructions := f[4].String()
	if instructions != "" {
		r.Messages = append(r.Messages, Message{Role: "system", Text: instructions})
	}
	f[5].ForEach(func(_, m gjson.Result) bool {
		r.Messages = appendMessage(r.Messages, m)
		return true
	})
	readInputGJSON(r, f[6], instructions)
	f[7].ForEach(func(_, t gjson.Result) bool {
		if tool := readTool(t); tool != nil {
			r.Tools[tool.Name] = tool
		}
		return true
	})
	if len(r.Tools) == 0 {
		r.readCatalogue()
	}
	return r
}

// readInputGJSON reads a Responses request's input: a string (one user
// message) or a list of items, kept item by item in Items and joined into
// Messages.
func readInputGJSON(r *Request, in gjson.Result, instructions string) {
	if in.Type == gjson.String {
		r.Messages = append(r.Messages, Message{Role: "user", Text: in.String()})
	}
	if !in.IsArray() {
		return
	}
	r.Items = []Message{}
	if instructions != "" {
		r.Items = append(r.Items, Message{Role: "system", Text: instructions})
	}
	in.ForEach(func(_, it gjson.Result) bool {
		m, ok := inputItem(it)
		if !ok {
			return true
		}
		r.Items = append(r.Items, m)
		if n := len(r.Messages); len(m.ToolCalls) > 0 && n > 0 && r.Messages[n-1].Role == "assistant" {
			// A function call joins the assistant message before it,
			// as Chat Completions and Messages carry calls.
			last := &r.Messages[n-1]
			last.ToolCalls = append(slices.Clip(last.ToolCalls), m.ToolCalls...)
		} else {
			r.Messages = append(r.Messages, m)
		}
		return true
	})
}

// FuzzParse: Parse reads every body as the gjson reader it replaced
// (parseGJSON) does, and a Reader as Parse does, whatever it read before:
// fuzzReader remembers every message of every body the fuzzer tries.
func FuzzParse(f *testing.F) {
	for _, b := range parseSeeds {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, want := Parse(body), parseGJSON(body)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\nParse      %+v\nparseGJSON %+v", body, got, want)
		}
		for range 2 { // the second time, every message is recalled
			if read := fuzzReader.Parse(body); !reflect.DeepEqual(read, want) {
				t.Fatalf("%s\nReader.Parse %+v\nParse        %+v", body, read, want)
			}
		}
	})
}

var fuzzReader = &Reader{least: 1}

// parseSeeds are request bodies of the three protocols, in the shapes
// clients send and in shapes they do not.
var parseSeeds = []string{
	`{"model":"gpt","stream":true,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"list files"},{"role":"assistant","content":"Let me look.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"ls","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"a.md"}],"tools":[{"type":"function","function":{"name":"ls","parameters":{"type":"object","properties":{"p":{}},"required":["p"]}}}]}`,
	`{"model":"claude","stream":true,"system":[{"type":"text","text":"be brief"}],"messages":[{"role":"user","content":[{"type":"text","text":"list files"}]},{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"call_1","name":"ls","input":{ "a" : 1 }}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"a.md"},{"type":"text","text":"b.md"}]}]}]}`,
	`{"model":"gpt","stream":"true","instructions":"be brief","input":[{"role":"user","content":"list files"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me look."}]},{"type":"function_call","call_id":"call_1","name":"ls","arguments":"{}"},{"type":"reasoning","summary":[]},{"type":"function_call_output","call_id":"call_1","output":"a.md"}],"previous_response_id":"resp_1"}`,
	`{"model":1.5e3,"stream":1,"input":"hi","messages":{"a":{"role":"user","content":"x"}},"tools":{}}`,
	`{"messages":["x",1,null,{"role":"user","content":{"text":"t"}},{"role":"user","content":[1,{"text":2}]},{"role":"assistant","tool_calls":{"id":"x"}},{"role":"assistant","tool_calls":[null,{"function":"f"}]}]}`,
	`{"messages":[{"role":"user","role":"system","content":"a","content":"b","tool_calls":null,"tool_call_id":7}],"messages":[]}`,
	`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"n","input":null,"type":"x"}],"tool_calls":[{"id":"b","function":{"name":"m","arguments":{"k":[1]}}}]}]}`,
	`{"input":[1,"s",{"type":"function_call_output","output":[{"text":"o"},{"text":"p"}]},{"role":"user","content":7},{"type":"function_call","arguments":{"x":1}}]}`,
	`{"\u006dodel":"esc\u00e9","system":null,"messages":[{"role":"user","content":"\ud83d\ude42 \n"}]}`,
	`{"messages":[{"role":"user","content":"a"}]} x`, `[1,2]`, `"s"`, `{`, ``, `{"messages":[{"role":"user","content":"a"},]}`,
	`{"system":"<tools><tool><name>read</name><parameters><path/></parameters></tool></tools>","messages":[]}`,
}
