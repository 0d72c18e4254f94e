package protocol

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/tidwall/gjson"
)

type antBlock struct {
	index   int
	typ     string
	id      string
	name    string
	input   string          // input from content_block_start
	json    strings.Builder // joined partial_json
	text    spanText
	think   strings.Builder
	stopped bool
	born    Born
	// useID and result are a server tool result block's tool_use_id and
	// what it holds (see serverResult).
	useID, result string
}

// serverResult says what a server tool result block holds: its type and
// how many results it carries, or the error it reports.
func serverResult(typ string, content gjson.Result) string {
	switch {
	case content.IsArray():
		n := len(content.Array())
		return typ + " (" + strconv.Itoa(n) + " " + plural(n, "result") + ")"
	case content.IsObject():
		if code := content.Get("error_code").String(); code != "" {
			return typ + " (error: " + code + ")"
		}
	}
	return typ
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// AssembleAnthropic follows protocols.md §3.4: blocks by index; text,
// thinking and input_json_delta fragments joined; tool input parsed at
// content_block_stop (an empty join keeps the start block's input, {});
// stop_reason and cumulative usage from message_delta; message_stop is
// terminal; ping is ignored; error events are reported. A server_tool_use
// or mcp_tool_use block is a tool Anthropic ran (its *_tool_result block
// follows in the same message): a ServerTool, not a tool call.
func AssembleAnthropic(events []Event, objs []ObjEvent) *Assembly {
	a := newAssembly(Anthropic)
	m := &a.Message
	blocks := map[int]*antBlock{}
	started := false
	for i := range events {
		e, r := &events[i], &objs[i]
		if a.Terminal >= 0 {
			if IsDone(e.Data) {
				// Unnamed, so the SDKs drop it; VS Code skips [DONE].
				a.flag("stream.trailing-done", i, e.Data, "data: [DONE] after message_stop (a Chat Completions terminator the Anthropic clients skip)")
				continue
			}
			a.flag("stream.after-terminal", i, excerpt.Clip(e.Data, 120), "event after message_stop")
			continue
		}
		if IsDone(e.Data) {
			a.flag("stream.after-terminal", i, e.Data, "data: [DONE] in an Anthropic stream")
			continue
		}
		if !r.Valid {
			a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "event data is not valid JSON")
			continue
		}
		typ := r.Type
		switch {
		case e.Name == "" || e.Name == "message":
			a.flagOnce("anthropic.event-name", i, excerpt.Clip(e.Data, 80), "events have no SSE event: name; the Anthropic SDKs route by name and produce nothing")
		case e.Name != typ:
			a.flagOnce("anthropic.event-name", i, "event: "+e.Name+" / type: "+typ, "SSE event name differs from the JSON type: SDKs follow the name, VS Code the type")
		}
		if typ != "message_start" && typ != "ping" && typ != "error" && !started {
			a.flagOnce("anthropic.order", i, typ, "%s before message_start: the SDKs throw", typ)
		}
		idx := r.Index
		switch typ {
		case "message_start":
			if started {
				a.flag("anthropic.order", i, "", "a second message_start in one stream")
			}
			started = true
			m.ID = r.Message.Get("id").String()
			m.Model = r.Message.Get("model").String()
			if u := anthropicUsage(r.Message.Get("usage")); u != nil {
				m.Usage = u
				m.UsageBorn.Add(i)
			}
		case "content_block_start":
			if _, dup := blocks[idx]; dup {
				a.flag("anthropic.order", i, excerpt.Clip(e.Data, 100), "block %d started twice", idx)
			}
			cb := r.ContentBlock
			b := &antBlock{index: idx, typ: cb.Get("type").String(), id: cb.Get("id").String(), name: cb.Get("name").String(),
				input: cb.Get("input").Raw}
			if strings.HasSuffix(b.typ, "_tool_result") && b.typ != "tool_result" {
				b.useID, b.result = cb.Get("tool_use_id").String(), serverResult(b.typ, cb.Get("content"))
			}
			b.text.add(cb.Get("text").String(), i)
			b.think.WriteString(cb.Get("thinking").String())
			b.born.Add(i)
			blocks[idx] = b
		case "content_block_delta":
			b := blocks[idx]
			if b == nil {
				a.flag("anthropic.order", i, excerpt.Clip(e.Data, 100), "delta for block %d, which never started", idx)
				b = &antBlock{index: idx}
				blocks[idx] = b
			}
			if b.stopped {
				a.flag("anthropic.order", i, excerpt.Clip(e.Data, 100), "delta for block %d after its content_block_stop", idx)
			}
			b.born.Add(i)
			switch r.DeltaType {
			case "text_delta":
				b.text.add(r.DeltaText, i)
			case "thinking_delta":
				b.think.WriteString(r.DeltaThinking)
			case "input_json_delta":
				b.json.WriteString(r.DeltaPartial)
			}
		case "content_block_stop":
			b := blocks[idx]
			if b == nil {
				a.flag("anthropic.order", i, excerpt.Clip(e.Data, 100), "stop for block %d, which never started", idx)
				continue
			}
			b.stopped = true
			b.born.Add(i)
			if js := b.json.String(); b.typ == "tool_use" && js != "" && !gjson.Valid(js) {
				a.flag("tool.args-invalid-json", i, excerpt.Clip(js, 120), "tool_use %s input is not valid JSON at content_block_stop", b.name)
			}
		case "message_delta":
			if sr := r.Delta.Get("stop_reason").String(); sr != "" {
				ch := m.choice(0)
				ch.FinishReason = sr
				ch.FinishBorn.Add(i)
			}
			if u := r.Usage; u.IsObject() {
				m.UsageBorn.Add(i)
				if m.Usage == nil {
					m.Usage = &Usage{}
				}
				m.Usage.Output = int(u.Get("output_tokens").Int())
				if v := u.Get("input_tokens"); v.Exists() && v.Type != gjson.Null {
					m.Usage.Input = int(v.Int())
				}
			}
		case "message_stop":
			a.Terminal = i
			m.Status = "done"
		case "ping":
		case "error":
			a.inBandError(i, e.Data, ErrorText(r.Err.Result()), "the stream carries an error event")
		}
	}
	a.noTerminal(len(events), "no message_stop at the end of the stream")
	ch := m.choice(0)
	ch.Role = "assistant"
	var text spanText
	var reasoning strings.Builder
	results := map[string]string{} // server tool results by tool_use_id
	for _, b := range blocks {
		if b.useID != "" {
			results[b.useID] = b.result
		}
	}
	for _, k := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[k]
		switch b.typ {
		case "server_tool_use", "mcp_tool_use":
			// Run by Anthropic (web search, web fetch, code execution, an
			// MCP server): its result follows as a *_tool_result block in
			// this same message, and the client answers nothing.
			input := b.json.String()
			if input == "" {
				input = b.input
			}
			ch.ServerTools = append(ch.ServerTools, ServerTool{Index: k, ID: b.id, Name: b.name, Input: input, Result: results[b.id], Born: b.born})
			if !b.stopped {
				a.flag("anthropic.block-unclosed", len(events)-1, excerpt.Clip(input, 80), "%s block %d (%s) never got content_block_stop", b.typ, k, b.name)
			}
		case "tool_use":
			args := b.json.String()
			if args == "" {
				args = b.input
				if args == "" {
					args = "{}"
				}
			}
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: k, ID: b.id, Name: b.name, Arguments: args, Born: b.born})
			if !b.stopped {
				a.flag("anthropic.block-unclosed", len(events)-1, excerpt.Clip(args, 80), "tool_use block %d (%s) never got content_block_stop (stop_reason %q): its input is partial", k, b.name, ch.FinishReason)
			}
		case "thinking":
			reasoning.WriteString(b.think.String())
			ch.ReasoningBorn.join(b.born)
		default:
			text.join(&b.text)
			if !b.stopped {
				a.flag("anthropic.block-unclosed", len(events)-1, "", "block %d never got content_block_stop", k)
			}
		}
	}
	ch.Text, ch.Spans, ch.Reasoning = text.String(), text.spans, reasoning.String()
	return a
}
