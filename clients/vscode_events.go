package clients

import (
	"strings"

	"github.com/seam-dev/seam/protocol"
)

// vscodeResponses emulates VS Code's OpenAIResponsesProcessor (docs/PROTOCOLS.md#responses): the JSON type wins over the event name; every output_text.delta is
// appended whatever its indexes; tool calls are taken from
// output_item.done items; response.completed re-reads the text from
// response.output; failed or incomplete responses produce no completion; a
// JSON parse error rejects the whole response.
func vscodeResponses(events []protocol.Event, objs []protocol.ObjEvent) Result {
	r := Result{Client: VSCode, Rule: "VS Code Copilot Chat Responses processor: text from every output_text delta, then response.output; calls from output_item.done"}
	completed := false
	var text strings.Builder
	for i := range events {
		if !events[i].Terminated {
			break
		}
		if events[i].Bare {
			continue // not an SSE event: the client never sees it
		}
		p := &objs[i]
		if !p.Valid {
			return Result{Client: r.Client, Rule: r.Rule, Error: "response rejected: invalid JSON in event data"}
		}
		switch p.Type {
		case "response.output_text.delta":
			text.WriteString(p.Delta.String())
		case "response.output_item.done":
			if it := p.Item; it.Get("type").String() == "function_call" {
				r.ToolCalls = append(r.ToolCalls, protocol.ToolCall{Index: p.OutputIndex, ID: it.Get("call_id").String(), Name: it.Get("name").String(), Arguments: it.Get("arguments").String()})
			}
		case "response.completed":
			completed = true
			r.FinishReason = "stop"
			fin := protocol.ResponsesFinal(p.Response.Result())
			text.Reset()
			text.WriteString(fin.Text() + fin.Choices[0].Refusal)
		case "error":
			r.Error = joinErr(r.Error, protocol.ErrorText(p.Err.Result()))
		}
	}
	r.Text = text.String()
	if !completed {
		r.Error = joinErr(r.Error, "no completion (no response.completed)")
		r.Text, r.ToolCalls = "", nil
	}
	return r
}

// vscodeAnthropic emulates VS Code's AnthropicMessagesProcessor (docs/PROTOCOLS.md#anthropic): type from JSON, else the event name; text appended; " " added when a
// tool_use block starts after text; empty partial_json skipped; each tool call
// emitted at content_block_stop with the raw joined arguments ("" when none);
// the completion is returned at message_stop only.
func vscodeAnthropic(events []protocol.Event, objs []protocol.ObjEvent) Result {
	r := Result{Client: VSCode, Rule: "VS Code Copilot Chat Messages processor: raw joined arguments, the reply given only at message_stop"}
	type blk struct {
		tc   protocol.ToolCall
		args strings.Builder
		tool bool
	}
	blocks := map[int]*blk{}
	stopped := false
	var stop string
	var text, reasoning strings.Builder
	for i := range events {
		e := &events[i]
		if !e.Terminated || e.Bare || protocol.IsDone(e.Data) || e.Data == "" {
			continue
		}
		p := &objs[i]
		if !p.Valid {
			return Result{Client: r.Client, Rule: r.Rule, Error: "response rejected: invalid JSON in event data"}
		}
		typ := p.Type
		if typ == "" {
			typ = e.Name
		}
		idx := p.Index
		switch typ {
		case "content_block_start":
			cb := p.ContentBlock
			if cb.Get("type").String() == "tool_use" {
				if text.Len() > 0 {
					text.WriteByte(' ')
				}
				blocks[idx] = &blk{tc: protocol.ToolCall{Index: idx, ID: cb.Get("id").String(), Name: cb.Get("name").String()}, tool: true}
			}
		case "content_block_delta":
			switch p.DeltaType {
			case "text_delta":
				text.WriteString(p.DeltaText)
			case "thinking_delta":
				reasoning.WriteString(p.DeltaThinking)
			case "input_json_delta":
				if b := blocks[idx]; b != nil {
					b.args.WriteString(p.DeltaPartial)
				}
			}
		case "content_block_stop":
			if b := blocks[idx]; b != nil && b.tool {
				b.tc.Arguments = b.args.String()
				r.ToolCalls = append(r.ToolCalls, b.tc)
				b.tool = false
			}
		case "message_delta":
			if s := p.Delta.Get("stop_reason").String(); s != "" {
				stop = s
			}
		case "message_stop":
			stopped = true
		case "error":
			r.Error = joinErr(r.Error, protocol.ErrorText(p.Err.Result()))
		}
	}
	r.Text, r.Reasoning = text.String(), reasoning.String()
	switch {
	case !stopped:
		r.Error = joinErr(r.Error, "no completion (no message_stop)")
		r.Text, r.ToolCalls = "", nil
	case stop == "refusal":
		r.FinishReason = "DONE"
	case stop == "max_tokens" || stop == "model_context_window_exceeded":
		r.FinishReason = "length"
	default:
		r.FinishReason = "stop"
	}
	return r
}
