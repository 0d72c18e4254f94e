package inspect

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/seam-dev/seam/tape"
)

// agentLoop builds the exchanges of an agent's tool loop in one protocol,
// as a client sends them: each request carries the history so far (or, for
// "responses-prev", only what is new, with previous_response_id), each
// response streams one tool call (the last one text), and the next request
// adds the assistant's reply and the tool's result.
type agentLoop struct {
	proto string // chat, anthropic, responses, responses-prev
	// hist is the protocol's message list; the system prompt is apart.
	hist []any
	// fresh is what is new since the last response, for responses-prev.
	fresh []any
	prev  string
	turn  int
	t     int64
}

const loopSystem = "You are a coding agent. Use the tools."

func newLoop(proto, prompt string) *agentLoop {
	l := &agentLoop{proto: proto, t: 1e9}
	var user any = map[string]any{"role": "user", "content": prompt}
	l.hist = append(l.hist, user)
	l.fresh = append(l.fresh, user)
	return l
}

// request returns the body of the next request.
func (l *agentLoop) request() []byte {
	body := map[string]any{"model": "m-" + l.proto, "stream": true}
	switch l.proto {
	case "chat":
		body["messages"] = append([]any{map[string]any{"role": "system", "content": loopSystem}}, l.hist...)
	case "anthropic":
		body["system"] = loopSystem
		body["messages"] = l.hist
	case "responses":
		body["instructions"] = loopSystem
		body["input"] = l.hist
	case "responses-prev":
		body["instructions"] = loopSystem
		body["input"] = l.fresh
		if l.prev != "" {
			body["previous_response_id"] = l.prev
		}
	}
	b, _ := json.Marshal(body)
	return b
}

// step makes exchange ex: the request of the history so far and a response
// calling read_file (text when final), with usage in and out; the reply
// and the tool's result join the history.
func (l *agentLoop) step(ex int, final bool, in, out int) *tape.Exchange {
	l.turn++
	k := l.turn
	call := fmt.Sprintf("call_%d", k)
	args := fmt.Sprintf(`{"path":"f%d.go"}`, k)
	text := fmt.Sprintf("Done after %d turns.", k)
	var events []string
	switch l.proto {
	case "chat":
		head := fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion.chunk","model":"m-chat","choices":[{"index":0,"delta":`, k)
		if final {
			events = append(events, head+`{"role":"assistant","content":"Done after "},"finish_reason":null}]}`,
				head+fmt.Sprintf(`{"content":"%d turns."},"finish_reason":null}]}`, k),
				head+`{},"finish_reason":"stop"}]}`)
		} else {
			events = append(events, head+fmt.Sprintf(`{"role":"assistant","tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}`, call),
				head+fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%q}}]},"finish_reason":null}]}`, args[:8]),
				head+fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%q}}]},"finish_reason":null}]}`, args[8:]),
				head+`{},"finish_reason":"tool_calls"}]}`)
		}
		events = append(events, fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion.chunk","model":"m-chat","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, k, in, out, in+out), "[DONE]")
		for i, e := range events {
			events[i] = "data: " + e + "\n\n"
		}
	case "anthropic":
		ev := func(name, data string) { events = append(events, "event: "+name+"\ndata: "+data+"\n\n") }
		ev("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":"m-anthropic","content":[],"stop_reason":null,"usage":{"input_tokens":%d,"output_tokens":1}}}`, k, in))
		stop := "tool_use"
		if final {
			stop = "end_turn"
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, text))
		} else {
			ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":%q,"name":"read_file","input":{}}}`, call))
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":%q}}`, args))
		}
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
		ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q},"usage":{"output_tokens":%d}}`, stop, out))
		ev("message_stop", `{"type":"message_stop"}`)
	default:
		seq := 0
		ev := func(name, data string) {
			events = append(events, "event: "+name+"\ndata: "+strings.Replace(data, "{", fmt.Sprintf(`{"sequence_number":%d,`, seq), 1)+"\n\n")
			seq++
		}
		id := fmt.Sprintf("resp_%d", k)
		item := fmt.Sprintf(`{"type":"function_call","id":"fc_%d","call_id":%q,"name":"read_file","arguments":%q,"status":"completed"}`, k, call, args)
		if final {
			item = fmt.Sprintf(`{"type":"message","id":"msg_%d","role":"assistant","status":"completed","content":[{"type":"output_text","text":%q,"annotations":[]}]}`, k, text)
		}
		ev("response.created", fmt.Sprintf(`{"type":"response.created","response":{"id":%q,"object":"response","status":"in_progress","model":"m-responses","output":[]}}`, id))
		if final {
			ev("response.output_item.added", fmt.Sprintf(`{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_%d","role":"assistant","status":"in_progress","content":[]}}`, k))
			ev("response.content_part.added", fmt.Sprintf(`{"type":"response.content_part.added","item_id":"msg_%d","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`, k))
			ev("response.output_text.delta", fmt.Sprintf(`{"type":"response.output_text.delta","item_id":"msg_%d","output_index":0,"content_index":0,"delta":%q}`, k, text))
			ev("response.output_text.done", fmt.Sprintf(`{"type":"response.output_text.done","item_id":"msg_%d","output_index":0,"content_index":0,"text":%q}`, k, text))
			ev("response.content_part.done", fmt.Sprintf(`{"type":"response.content_part.done","item_id":"msg_%d","output_index":0,"content_index":0,"part":{"type":"output_text","text":%q,"annotations":[]}}`, k, text))
		} else {
			ev("response.output_item.added", fmt.Sprintf(`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_%d","call_id":%q,"name":"read_file","arguments":"","status":"in_progress"}}`, k, call))
			ev("response.function_call_arguments.delta", fmt.Sprintf(`{"type":"response.function_call_arguments.delta","item_id":"fc_%d","output_index":0,"delta":%q}`, k, args))
			ev("response.function_call_arguments.done", fmt.Sprintf(`{"type":"response.function_call_arguments.done","item_id":"fc_%d","output_index":0,"arguments":%q}`, k, args))
		}
		ev("response.output_item.done", fmt.Sprintf(`{"type":"response.output_item.done","output_index":0,"item":%s}`, item))
		ev("response.completed", fmt.Sprintf(`{"type":"response.completed","response":{"id":%q,"object":"response","status":"completed","model":"m-responses","output":[%s],"usage":{"input_tokens":%d,"output_tokens":%d,"total_tokens":%d}}}`, id, item, in, out, in+out))
	}

	x := &tape.Exchange{Ex: ex}
	x.Request = &tape.Request{Ex: ex, T: l.t, Method: "POST", URL: l.url(), Body: l.request()}
	l.prev = fmt.Sprintf("resp_%d", k)
	t := l.t + 200*int64(time.Millisecond)
	x.Upstream.Response = &tape.Response{Ex: ex, Side: tape.Upstream, T: t, Status: 200, Headers: map[string][]string{"content-type": {"text/event-stream"}}}
	var off int64
	for _, e := range events {
		t += int64(time.Millisecond)
		x.Upstream.Chunks = append(x.Upstream.Chunks, tape.Chunk{Ex: ex, Side: tape.Upstream, T: t, Off: off, Data: []byte(e)})
		off += int64(len(e))
	}
	x.Upstream.End = &tape.End{Ex: ex, Side: tape.Upstream, T: t, Outcome: tape.Complete, Bytes: off}
	l.t = t + int64(50*time.Millisecond)

	// The reply and the tool's result join the history.
	l.fresh = nil
	if final {
		return x
	}
	var reply, result any
	switch l.proto {
	case "chat":
		reply = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": call, "type": "function", "function": map[string]any{"name": "read_file", "arguments": args}}}}
		result = map[string]any{"role": "tool", "tool_call_id": call, "content": fmt.Sprintf("package f%d", k)}
	case "anthropic":
		reply = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": call, "name": "read_file", "input": map[string]any{"path": fmt.Sprintf("f%d.go", k)}}}}
		result = map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": fmt.Sprintf("package f%d", k)}}}
	default:
		reply = map[string]any{"type": "function_call", "call_id": call, "name": "read_file", "arguments": args}
		result = map[string]any{"type": "function_call_output", "call_id": call, "output": fmt.Sprintf("package f%d", k)}
	}
	l.hist = append(l.hist, reply, result)
	l.fresh = []any{result}
	return x
}

func (l *agentLoop) url() string {
	switch l.proto {
	case "chat":
		return "/v1/chat/completions"
	case "anthropic":
		return "/v1/messages"
	}
	return "/v1/responses"
}

// capture wraps exchanges in a capture named name, started at a fixed
// time.
func loopCapture(name string, xs ...*tape.Exchange) *tape.Capture {
	return &tape.Capture{Name: name, Header: tape.Header{V: 1, Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}, Exchanges: xs}
}
