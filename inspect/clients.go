package inspect

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/jsstring"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// Client names accepted by ClientByName and used in ClientResult.Client.
const (
	ClientSpec         = "spec"
	ClientVSCode       = "vscode"
	ClientObsidian     = "obsidian"
	ClientOpenAINode   = "openai-node"
	ClientOpenAIPython = "openai-python"
	// ClientAnthropicTS and ClientAnthropicPython are the Anthropic SDKs
	// (@anthropic-ai/sdk for TypeScript, anthropic for Python).
	ClientAnthropicTS     = "anthropic-ts"
	ClientAnthropicPython = "anthropic-python"
)

// Clients lists every emulated client, in report order. "spec" is the
// protocol's own assembly rules, the baseline. An exchange is read only by
// the clients that speak its protocol (ClientsFor).
func Clients() []string {
	return []string{ClientSpec, ClientVSCode, ClientObsidian, ClientOpenAINode, ClientOpenAIPython, ClientAnthropicTS, ClientAnthropicPython}
}

// ClientsFor lists the clients that read a stream of protocol p, in report
// order: the OpenAI SDKs read Chat Completions and Responses, the Anthropic
// SDKs read Messages, VS Code Copilot Chat and Obsidian Copilot read all
// three (Obsidian through the vendor SDK). A protocol seam does not
// assemble has only the spec reading.
func ClientsFor(p protocol.Protocol) []string {
	switch p {
	case protocol.Chat, protocol.Responses:
		return []string{ClientSpec, ClientVSCode, ClientObsidian, ClientOpenAINode, ClientOpenAIPython}
	case protocol.Anthropic:
		return []string{ClientSpec, ClientVSCode, ClientObsidian, ClientAnthropicTS, ClientAnthropicPython}
	}
	return []string{ClientSpec}
}

// ClientResult is what one client ends up with after reading a stream.
type ClientResult struct {
	Client string `json:"client"`
	// Rule summarises the assembly rule the emulator follows.
	Rule         string              `json:"rule"`
	Text         string              `json:"text"`
	Reasoning    string              `json:"reasoning,omitempty"`
	Refusal      string              `json:"refusal,omitempty"`
	ToolCalls    []protocol.ToolCall `json:"tool_calls,omitempty"`
	FinishReason string              `json:"finish_reason,omitempty"`
	// Error is what the client reports instead of (or besides) a result.
	Error string `json:"error,omitempty"`
	// XMLCalls and Display are set for Obsidian: the calls parseXMLToolCalls
	// reads from the text, and the text the chat view shows.
	XMLCalls []XMLToolCall `json:"xml_calls,omitempty"`
	Display  *string       `json:"display,omitempty"`
}

// Disagreement is one field on which clients end up with different values.
type Disagreement struct {
	Field  string        `json:"field"`
	Values []ClientValue `json:"values"`
}

// ClientValue is one client's value for a field.
type ClientValue struct {
	Client string `json:"client"`
	Value  string `json:"value"`
}

// emulateClients runs every client emulator over one side.
func emulateClients(s *SideReport) []ClientResult {
	m := s.Message
	spec := ClientResult{Client: ClientSpec, Rule: m.Protocol.Rule(), Error: m.Error}
	if len(m.Choices) > 0 {
		c := m.Choices[0]
		spec.Text, spec.Reasoning, spec.Refusal, spec.ToolCalls, spec.FinishReason = c.Text, c.Reasoning, c.Refusal, c.ToolCalls, c.FinishReason
	}
	se := s.ev
	if se == nil {
		se = &protocol.Side{}
	}
	// Spec-following SDK parsers discard an unterminated last event.
	terminated := len(se.Events)
	if terminated > 0 && !se.Events[terminated-1].Terminated {
		terminated--
	}
	out := []ClientResult{spec}
	switch m.Protocol {
	case protocol.Gemini, protocol.BedrockConverse, protocol.BedrockInvoke, protocol.Cohere, protocol.Ollama:
		// The emulated clients speak the OpenAI and Anthropic APIs only:
		// this protocol's answer is what its own SDK makes of it (spec).
		return out
	}
	if !s.Stream {
		for _, name := range ClientsFor(m.Protocol)[1:] {
			r := spec
			r.Client, r.Rule = name, "non-stream body: read as is"
			if name == ClientObsidian {
				r = obsidianResult(r.Text, spec)
			}
			out = append(out, r)
		}
		return out
	}
	switch m.Protocol {
	case protocol.Chat:
		node := nodeChat(se, terminated)
		out = append(out, vscodeChat(se), obsidianResult(node.Text, spec), node, pythonChat(se, terminated))
	case protocol.Responses:
		objs := se.ObjEvents()
		vs := vscodeResponses(se.Events, objs)
		node := sdkResponses(ClientOpenAINode, se.Events[:terminated], objs[:terminated])
		py := sdkResponses(ClientOpenAIPython, se.Events[:terminated], objs[:terminated])
		out = append(out, vs, obsidianResult(spec.Text, spec), node, py)
	case protocol.Anthropic:
		objs := se.ObjEvents()
		vs := vscodeAnthropic(se.Events, objs)
		ts := sdkAnthropic(ClientAnthropicTS, se.Events[:terminated], objs[:terminated])
		py := ts
		py.Client = ClientAnthropicPython
		out = append(out, vs, obsidianResult(spec.Text, spec), ts, py)
	default:
		return out
	}
	return out
}

// obsidianResult emulates Obsidian Copilot's XML era (3.0.0–3.1.5,
// protocols.md §1.3, §1.6, §1.7): the text is the openai-node/LangChain
// concatenation of choices[0] content; tool calls come only from
// parseXMLToolCalls over that text (structured tool calls are ignored); the
// view shows stripToolCallXML of it.
func obsidianResult(text string, spec ClientResult) ClientResult {
	r := ClientResult{Client: ClientObsidian, Rule: "Obsidian Copilot 3.0–3.1: tool calls parsed from <use_tool> XML in the text (parseXMLToolCalls), the view strips that XML; structured tool calls ignored",
		Text: text, FinishReason: spec.FinishReason, Error: spec.Error}
	if spec.Reasoning != "" {
		r.Text = "\n<think>" + spec.Reasoning + "</think>" + text
	}
	r.XMLCalls = ParseXMLToolCalls(r.Text)
	d := StripToolCallXML(r.Text)
	r.Display = &d
	for _, c := range r.XMLCalls {
		r.ToolCalls = append(r.ToolCalls, protocol.ToolCall{Index: len(r.ToolCalls), Name: c.Name, Arguments: c.Arguments()})
	}
	return r
}

// vscodeChat emulates VS Code Copilot Chat's SSEProcessor (protocols.md
// §2.1–§2.5) over the raw body: lines split on "\n" only; a last line
// without "\n" is never processed; ':' lines skipped; the first 5 characters
// of any other line removed and the rest trimmed; [DONE] stops reading;
// unparseable lines skipped. Per choice 0: one trailing "\r" removed from
// each content delta; content in a delta that has tool_calls dropped; a " "
// appended to existing text when the first named tool call starts; tool
// calls matched by id, else the last call, name overwritten, arguments
// joined; reasoning_content and reasoning ignored; tool calls emitted only
// with finish_reason tool_calls or stop; a finished choice ignores later
// chunks.
//
// A line whose payload is exactly the data of the event it belongs to (the
// common case) reuses that event's decoded chunk; any other line is decoded
// on its own.
func vscodeChat(se *protocol.Side) ClientResult {
	r := ClientResult{Client: ClientVSCode, Rule: "VS Code Copilot Chat SSEProcessor: read line by line, tool calls matched by id, content beside tool_calls dropped"}
	finished := false
	var calls []protocol.ToolCall
	byID := map[string]int{} // the call with each id (ids are set once)
	var text, reasoning, refusal strings.Builder
	var args []*strings.Builder
	sawDone := false
	events := se.Events
	var cs *protocol.ChatSide
	if len(events) > 0 {
		cs = se.ChatEvents()
	}
	k := 0
	forEachLine(se.Chunks, func(line []byte, off int64) bool {
		if len(line) == 0 || line[0] == ':' {
			return true
		}
		if len(line) < 5 {
			line = nil
		} else {
			line = line[5:]
		}
		payload := jsstring.TrimBytes(line)
		if string(payload) == "[DONE]" {
			sawDone = true
			return false
		}
		for k < len(events) && events[k].End <= off {
			k++
		}
		side, ck := cs, (*protocol.ChatChunk)(nil)
		if k < len(events) && events[k].Off <= off && events[k].Data == string(payload) {
			ck = cs.Chunk(k)
		} else {
			side, ck = protocol.DecodeChatData(string(payload))
		}
		if !ck.Valid {
			return true
		}
		if !ck.Choices.Exists() || ck.Choices.IsNull() {
			if ck.Err.Exists() {
				r.Error, r.FinishReason = protocol.ErrorText(ck.Err.Result()), "error"
				finished = true
			}
			return true
		}
		deltas := side.ChoiceDeltas(ck)
		for n := range deltas {
			d := &deltas[n]
			if d.Index != 0 || finished {
				continue
			}
			if d.ToolCalls.Exists() && !d.ToolCalls.IsNull() {
				for _, tc := range side.ToolDeltas(d) {
					id, name := tc.ID, tc.Name
					cur := -1
					if id != "" {
						if at, ok := byID[id]; ok {
							cur = at
						}
					} else if len(calls) > 0 {
						cur = len(calls) - 1
					}
					if cur < 0 || (id != "" && calls[cur].ID != id) {
						if len(calls) == 0 && name != "" && text.Len() > 0 {
							text.WriteByte(' ')
						}
						calls = append(calls, protocol.ToolCall{Index: len(calls)})
						args = append(args, new(strings.Builder))
						cur = len(calls) - 1
					}
					if id != "" {
						calls[cur].ID = id
						byID[id] = cur
					}
					if name != "" {
						calls[cur].Name = name
					}
					args[cur].WriteString(tc.Args.Str())
				}
			} else if t := d.Content().Str(); t != "" {
				text.WriteString(strings.TrimSuffix(t, "\r"))
			}
			if d.VSCodeReasoning {
				for _, k := range []string{"cot_summary", "reasoning_text", "thinking"} {
					reasoning.WriteString(gjson.Get(d.Delta, k).String())
				}
			}
			refusal.WriteString(d.Refusal().Str())
			if fr := d.FinishReason; fr != "" {
				r.FinishReason = fr
				finished = true
			}
		}
		return true
	})
	r.Text, r.Reasoning, r.Refusal = text.String(), reasoning.String(), refusal.String()
	for i := range calls {
		calls[i].Arguments = args[i].String()
	}
	if r.FinishReason == "" {
		r.FinishReason = "Iteration Done"
		if sawDone {
			r.FinishReason = "DONE"
		}
	}
	if r.FinishReason == "tool_calls" || r.FinishReason == "stop" {
		r.ToolCalls = calls
	} else if len(calls) > 0 {
		r.Error = joinErr(r.Error, "tool calls dropped (finish_reason "+r.FinishReason+")")
	}
	return r
}

// forEachLine calls fn for each "\n"-terminated line of the body the chunks
// make up (without the "\n"), with the body offset of its first byte, until
// fn returns false. A last line without "\n" is not passed. Lines within one
// chunk are passed in place; only a line spanning chunks is copied.
func forEachLine(chunks []tape.Chunk, fn func(line []byte, off int64) bool) {
	var carry []byte
	carryOff := int64(-1)
	for _, c := range chunks {
		b := c.Data
		off := c.Off
		for len(b) > 0 {
			nl := bytes.IndexByte(b, '\n')
			if nl < 0 {
				if carryOff < 0 {
					carryOff = off
				}
				carry = append(carry, b...)
				break
			}
			line, lineOff := b[:nl], off
			if carryOff >= 0 {
				carry = append(carry, line...)
				line, lineOff = carry, carryOff
			}
			if !fn(line, lineOff) {
				return
			}
			carry, carryOff = carry[:0], -1
			b = b[nl+1:]
			off += int64(nl + 1)
		}
	}
}

// vscodeResponses emulates VS Code's OpenAIResponsesProcessor (protocols.md
// §2.7): the JSON type wins over the event name; every output_text.delta is
// appended whatever its indexes; tool calls are taken from
// output_item.done items; response.completed re-reads the text from
// response.output; failed or incomplete responses produce no completion; a
// JSON parse error rejects the whole response.
func vscodeResponses(events []protocol.Event, objs []protocol.ObjEvent) ClientResult {
	r := ClientResult{Client: ClientVSCode, Rule: "VS Code Copilot Chat Responses processor: text from every output_text delta, then response.output; calls from output_item.done"}
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
			return ClientResult{Client: r.Client, Rule: r.Rule, Error: "response rejected: invalid JSON in event data"}
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

// vscodeAnthropic emulates VS Code's AnthropicMessagesProcessor (protocols.md
// §2.8): type from JSON, else the event name; text appended; " " added when a
// tool_use block starts after text; empty partial_json skipped; each tool call
// emitted at content_block_stop with the raw joined arguments ("" when none);
// the completion is returned at message_stop only.
func vscodeAnthropic(events []protocol.Event, objs []protocol.ObjEvent) ClientResult {
	r := ClientResult{Client: ClientVSCode, Rule: "VS Code Copilot Chat Messages processor: raw joined arguments, the reply given only at message_stop"}
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
			return ClientResult{Client: r.Client, Rule: r.Rule, Error: "response rejected: invalid JSON in event data"}
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

// nodeChat emulates openai-node 7's ChatCompletionStream (read and run at
// 7.57.0: src/core/streaming.ts Stream.fromSSEResponse,
// src/lib/ChatCompletionStream.ts) over the first n events (the
// unterminated last event is not dispatched). The stream stops at data
// exactly [DONE]; data that is not JSON throws a SyntaxError; an SSE event
// named error, or a payload with a truthy "error", throws APIError (so an
// OpenAI-compatible gateway's {"error": …} chunk on a 200 fails the call
// there, whatever else the chunk says); a chunk without a choices array
// throws. Choices are keyed by index and tool calls by index into a sparse
// array, each index a safe integer in [0, 128) or an OpenAIError; content
// and refusal joined (also beside tool_calls), id and name overwritten,
// arguments joined. Finalising throws on a choice without finish_reason or
// role, and a hole in the tool_calls array fails normalizeToolCallIds.
func nodeChat(se *protocol.Side, n int) ClientResult {
	r := ClientResult{Client: ClientOpenAINode, Rule: "openai-node 7 ChatCompletionStream: tool calls keyed by index (0–127), name/id overwritten, an error payload throws"}
	// At most maxNodeIndex calls, by index: the index is checked before
	// anything is kept, so a hostile one costs nothing.
	var calls [maxNodeIndex]*protocol.ToolCall
	var args [maxNodeIndex]strings.Builder
	var text, refusal strings.Builder
	role := false
	events := se.Events[:n]
	var cs *protocol.ChatSide
	if n > 0 {
		cs = se.ChatEvents()
	}
	fail := func(err string) ClientResult {
		r.Text, r.Refusal, r.Error = text.String(), refusal.String(), err
		return r
	}
	for i := range events {
		e, ck := &events[i], cs.Chunk(i)
		if e.Bare {
			continue // not an SSE event: the client never sees it
		}
		if e.Data == "[DONE]" {
			break
		}
		if !ck.Valid {
			return fail("SyntaxError: Error reading response: malformed server-sent event JSON.")
		}
		if strings.HasPrefix(e.Name, "thread.") {
			// Yielded as {event, data}, which has no choices.
			return fail("OpenAIError: chunk.choices is not iterable")
		}
		if e.Name == "error" {
			errv := ck.Err
			if !errv.Exists() || errv.IsNull() {
				return fail("APIError: " + nodeErrorMessage(protocol.JSONValue(e.Data)))
			}
			return fail("APIError: " + nodeErrorMessage(errv))
		}
		if jsTruthy(ck.Err) {
			return fail("APIError: " + nodeErrorMessage(ck.Err))
		}
		if !ck.ChoicesArray {
			return fail("OpenAIError: chunk.choices is not iterable")
		}
		deltas := cs.ChoiceDeltas(ck)
		for k := range deltas {
			d := &deltas[k]
			if d.Index < 0 || d.Index >= maxNodeIndex {
				return fail("OpenAIError: Chat completion stream contains an invalid choice index: " + strconv.Itoa(d.Index))
			}
			if d.Index != 0 {
				continue
			}
			if d.Role != "" {
				role = true
			}
			text.WriteString(d.Content().Str())
			refusal.WriteString(d.Refusal().Str())
			for _, tc := range cs.ToolDeltas(d) {
				i := tc.Index
				if !tc.HasIndex {
					return fail("OpenAIError: Chat completion stream contains an invalid tool call index: undefined")
				}
				if i < 0 || i >= maxNodeIndex {
					return fail("OpenAIError: Chat completion stream contains an invalid tool call index: " + strconv.Itoa(i))
				}
				if calls[i] == nil {
					calls[i] = &protocol.ToolCall{Index: i}
				}
				if tc.ID != "" {
					calls[i].ID = tc.ID
				}
				if tc.Name != "" {
					calls[i].Name = tc.Name
				}
				args[i].WriteString(tc.Args.Str())
			}
			if fr := d.FinishReason; fr != "" {
				r.FinishReason = fr
			}
		}
	}
	r.Text, r.Refusal = text.String(), refusal.String()
	last := -1 // the sparse array's length - 1
	for i, c := range calls {
		if c != nil {
			c.Arguments = args[i].String()
			r.ToolCalls = append(r.ToolCalls, *c)
			last = i
		}
	}
	switch {
	case n > 0 && r.FinishReason == "":
		r.Error = "OpenAIError: missing finish_reason for choice 0"
	case n > 0 && !role:
		r.Error = "OpenAIError: missing role for choice 0"
	case len(r.ToolCalls) > 0 && len(r.ToolCalls) != last+1:
		// normalizeToolCallIds reads .id of each entry, holes included.
		r.Error = "OpenAIError: Cannot read properties of undefined (reading 'id') (tool_calls has holes: " +
			strconv.Itoa(last+1-len(r.ToolCalls)) + " of " + strconv.Itoa(last+1) + " entries)"
	}
	return r
}

// maxNodeIndex is openai-node 7's bound on a choice's and a tool call's
// index (MAX_STREAM_CHOICES, MAX_STREAM_TOOL_CALLS).
const maxNodeIndex = 128

// nodeErrorMessage is the message of the APIError openai-node builds from
// an error value (APIError.makeMessage with no status): its "message" when
// that is a string, the JSON of its "message" when that is anything else
// truthy, else the JSON of the value itself.
func nodeErrorMessage(v protocol.Value) string {
	if v.IsObject() {
		if msg := protocol.JSONValue(v.Result().Get("message").Raw); jsTruthy(msg) {
			if msg.IsString() {
				return msg.Str()
			}
			return jsonText(msg)
		}
	}
	if !jsTruthy(v) {
		return "(no status code or body)"
	}
	return jsonText(v)
}

// pythonErrorMessage is the message of the APIError openai-python raises
// for an error value: its "message" when that is a non-empty string, else
// "An error occurred during streaming".
func pythonErrorMessage(v protocol.Value) string {
	if v.IsObject() {
		if msg := v.Result().Get("message"); msg.Type == gjson.String && msg.Str != "" {
			return msg.Str
		}
	}
	return "An error occurred during streaming"
}

// jsTruthy reports whether a JSON value is truthy in JavaScript: not
// absent, null, false, 0 or "" (an empty object or array is truthy).
func jsTruthy(v protocol.Value) bool {
	switch {
	case !v.Exists() || v.IsNull():
		return false
	case v.IsString():
		return v.Str() != ""
	case v.IsObject() || v.IsArray():
		return true
	}
	raw := v.Str()
	if raw == "true" || raw == "false" {
		return raw == "true"
	}
	f, err := strconv.ParseFloat(raw, 64)
	return err != nil || f != 0
}

// pyTruthy reports whether a JSON value is truthy in Python once decoded:
// as jsTruthy, but an empty object or array is false.
func pyTruthy(v protocol.Value) bool {
	if v.IsObject() || v.IsArray() {
		empty := true
		v.Result().ForEach(func(_, _ gjson.Result) bool {
			empty = false
			return false
		})
		return !empty
	}
	return jsTruthy(v)
}

// jsonText renders a JSON value compactly, as JSON.stringify does (number
// and escape spellings aside).
func jsonText(v protocol.Value) string {
	if v.IsString() {
		return strconv.Quote(v.Str())
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(v.Str())); err != nil {
		return v.Str()
	}
	return b.String()
}

// pythonChat emulates openai-python's chat completion stream (protocols.md
// §3.2) over the first n events: the stream stops at data starting
// [DONE]; data that is not JSON raises JSONDecodeError; a payload that is
// an object with a truthy "error" raises APIError (src/openai/_streaming.py
// Stream.__stream__), whatever its SSE event name; accumulate_delta then
// concatenates every string (role, id and name included), overwrites index
// and type, and a tool delta whose index is not yet a list position is
// inserted there rather than placed at the index, so indexes that do not
// start at 0 split one call into two entries. finish_reason length or
// content_filter makes get_final_completion() raise.
func pythonChat(se *protocol.Side, n int) ClientResult {
	r := ClientResult{Client: ClientOpenAIPython, Rule: "openai-python accumulate_delta: every string concatenated (ids and names too), tool calls inserted by list position"}
	var calls pyList
	haveList := false
	var text, refusal strings.Builder
	events := se.Events[:n]
	var cs *protocol.ChatSide
	if n > 0 {
		cs = se.ChatEvents()
	}
	for i := range events {
		e, ck := &events[i], cs.Chunk(i)
		if e.Bare {
			continue // not an SSE event: the client never sees it
		}
		if strings.HasPrefix(e.Data, "[DONE]") {
			break
		}
		if !ck.Valid {
			r.Error = joinErr(r.Error, "JSONDecodeError on event "+strconv.Itoa(e.Index))
			break
		}
		if pyTruthy(ck.Err) {
			r.Error = joinErr(r.Error, "APIError: "+pythonErrorMessage(ck.Err))
			break
		}
		deltas := cs.ChoiceDeltas(ck)
		for k := range deltas {
			d := &deltas[k]
			if d.Index != 0 {
				continue
			}
			text.WriteString(d.Content().Str())
			refusal.WriteString(d.Refusal().Str())
			tcs := cs.ToolDeltas(d)
			if d.ToolCalls.IsArray() && !haveList {
				haveList = true
				for _, tc := range tcs {
					calls.back = append(calls.back, new(pyCall).add(tc))
				}
			} else if d.ToolCalls.IsArray() {
				for _, tc := range tcs {
					calls.merge(tc)
				}
			}
			if fr := d.FinishReason; fr != "" {
				r.FinishReason = fr
			}
		}
	}
	r.Text, r.Refusal = text.String(), refusal.String()
	for _, c := range calls.all() {
		r.ToolCalls = append(r.ToolCalls, protocol.ToolCall{Index: c.index, ID: c.id.String(), Name: c.name.String(), Arguments: c.args.String()})
	}
	if r.FinishReason == "length" || r.FinishReason == "content_filter" {
		r.Error = joinErr(r.Error, "get_final_completion() raises (finish_reason "+r.FinishReason+")")
	}
	return r
}

// pyList is openai-python's accumulated tool_calls list. accumulate_delta
// reads entry list[index] when the index is a position of the list
// (Python's negative positions included) and merges the delta into it;
// otherwise it calls list.insert(index, delta), which puts the entry at
// the front (an index below -len) or at the back (an index at or past
// len): only ever at an end, so the list is a double-ended queue (front
// reversed, then back), and no index grows it past one entry per delta.
type pyList struct{ front, back []*pyCall }

func (l *pyList) len() int { return len(l.front) + len(l.back) }

// at returns entry p of the list, 0 <= p < len.
func (l *pyList) at(p int) *pyCall {
	if p < len(l.front) {
		return l.front[len(l.front)-1-p]
	}
	return l.back[p-len(l.front)]
}

func (l *pyList) merge(tc protocol.ChatToolDelta) {
	i, n := tc.Index, l.len()
	switch {
	case i >= 0 && i < n:
		l.at(i).add(tc)
	case i < 0 && i >= -n:
		l.at(n + i).add(tc)
	case i < 0:
		l.front = append(l.front, new(pyCall).add(tc))
	default:
		l.back = append(l.back, new(pyCall).add(tc))
	}
}

func (l *pyList) all() []*pyCall {
	out := make([]*pyCall, 0, l.len())
	for p := range l.len() {
		out = append(out, l.at(p))
	}
	return out
}

// pyCall is one entry of openai-python's accumulated tool_calls list.
type pyCall struct {
	index          int
	id, name, args strings.Builder
}

func (c *pyCall) add(tc protocol.ChatToolDelta) *pyCall {
	c.index = tc.Index
	c.id.WriteString(tc.ID)
	c.name.WriteString(tc.Name)
	c.args.WriteString(tc.Args.Str())
	return c
}

// sdkResponses emulates the openai-node and openai-python Responses
// accumulators (protocols.md §3.3) over the dispatched events: the result
// is the response.completed payload; without it there is none ("Didn't
// receive a response.completed event"). Both stop reading at [DONE] and
// fail on data that is not JSON or an object with a truthy "error";
// openai-node also throws on an SSE event named error and on an event of
// type error (ResponseStream), where openai-python reads on.
func sdkResponses(client string, events []protocol.Event, objs []protocol.ObjEvent) ClientResult {
	r := ClientResult{Client: client, Rule: "OpenAI SDK Responses stream: the final response is the one response.completed carries"}
	node := client == ClientOpenAINode
	for i := range objs {
		e, p := &events[i], &objs[i]
		if e.Bare {
			continue
		}
		if node && e.Data == "[DONE]" || !node && strings.HasPrefix(e.Data, "[DONE]") {
			break
		}
		if !p.Valid {
			if node {
				r.Error = joinErr(r.Error, "SyntaxError: Error reading response: malformed server-sent event JSON.")
			} else {
				r.Error = joinErr(r.Error, "JSONDecodeError on event "+strconv.Itoa(e.Index))
			}
			return r
		}
		errv := protocol.JSONValue(p.Err.Result().Raw)
		switch {
		case node && e.Name == "error" && (!errv.Exists() || errv.IsNull()),
			node && !jsTruthy(errv) && p.Type == "error":
			// The event itself is the error (Stream for an event named
			// error, ResponseStream for a flat one of type error).
			r.Error = joinErr(r.Error, "APIError: "+nodeErrorMessage(protocol.JSONValue(e.Data)))
			return r
		case node && (e.Name == "error" || jsTruthy(errv)):
			r.Error = joinErr(r.Error, "APIError: "+nodeErrorMessage(errv))
			return r
		case !node && pyTruthy(errv):
			r.Error = joinErr(r.Error, "APIError: "+pythonErrorMessage(errv))
			return r
		}
		switch p.Type {
		case "response.completed":
			fin := protocol.ResponsesFinal(p.Response.Result())
			c := fin.Choices[0]
			r.Text, r.Reasoning, r.Refusal, r.ToolCalls, r.FinishReason = c.Text, c.Reasoning, c.Refusal, c.ToolCalls, c.FinishReason
			return r
		case "error":
			r.Error = joinErr(r.Error, protocol.ErrorText(p.Err.Result()))
		}
	}
	r.Error = joinErr(r.Error, "didn't receive a response.completed event")
	return r
}

// sdkAnthropic emulates the Anthropic SDKs (protocols.md §3.4, §4.1):
// events are routed by their SSE event name, so events without a known name are dropped; the
// unterminated last event is not dispatched (the caller passes only the
// dispatched events).
func sdkAnthropic(client string, events []protocol.Event, objs []protocol.ObjEvent) ClientResult {
	named := make([]protocol.Event, 0, len(events))
	namedObjs := make([]protocol.ObjEvent, 0, len(events))
	for i, e := range events {
		if !e.Bare && (protocol.FromEventName(e.Name) == protocol.Anthropic || e.Name == "ping" || e.Name == "error") {
			named = append(named, e)
			namedObjs = append(namedObjs, objs[i])
		}
	}
	a := protocol.AssembleAnthropic(named, namedObjs)
	r := ClientResult{Client: client, Rule: "Anthropic SDK MessageStream: events routed by their SSE event name, unnamed ones dropped", Error: a.Message.Error}
	c := a.Message.Choices[0]
	r.Text, r.Reasoning, r.ToolCalls, r.FinishReason = c.Text, c.Reasoning, c.ToolCalls, c.FinishReason
	if a.Terminal < 0 {
		r.Error = joinErr(r.Error, "stream ended without message_stop")
	}
	return r
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// disagreements lists the fields on which the clients' results differ.
// Finish reasons are compared by what they mean (finishAgree), as VS Code
// names every normal end "stop". When the request declares tools (the
// client calls them natively, so it is not Obsidian's XML era), Obsidian's
// tool calls count only if it found some in the text: that it ignores
// structured tool calls is its design, not a disagreement on this stream.
func disagreements(rs []ClientResult, p protocol.Protocol, requestTools bool) []Disagreement {
	fields := []struct {
		name string
		get  func(ClientResult) string
		// skip leaves a client out of the comparison of this field.
		skip func(ClientResult) bool
		// agree compares the clients compared; nil wants equal values.
		agree func([]ClientResult) bool
	}{
		{name: "text", get: func(r ClientResult) string { return r.Text }},
		{name: "tool_calls", get: func(r ClientResult) string { return renderCalls(r.ToolCalls) },
			skip: func(r ClientResult) bool { return requestTools && r.Client == ClientObsidian && len(r.XMLCalls) == 0 }},
		{name: "finish_reason", get: func(r ClientResult) string { return r.FinishReason },
			agree: func(rs []ClientResult) bool { return finishAgree(rs, p) }},
		{name: "error", get: func(r ClientResult) string { return r.Error }},
	}
	var out []Disagreement
	for _, f := range fields {
		vals := make([]ClientValue, 0, len(rs))
		compared := make([]ClientResult, 0, len(rs))
		same := true
		for _, r := range rs {
			vals = append(vals, ClientValue{Client: r.Client, Value: f.get(r)})
			if f.skip != nil && f.skip(r) {
				continue
			}
			if len(compared) > 0 && f.get(r) != f.get(compared[0]) {
				same = false
			}
			compared = append(compared, r)
		}
		if f.agree != nil {
			same = f.agree(compared)
		}
		if !same {
			out = append(out, Disagreement{Field: f.name, Values: vals})
		}
	}
	return out
}

// finishAgree reports whether the clients' finish reasons say the same
// thing: all the same, or all of known classes (finishClass) that share
// one. VS Code reports its own reasons, translated first: "stop" for every
// normal end of a Messages or Responses stream (tool use included), "DONE"
// for an Anthropic refusal, and on a Chat stream "DONE" or "Iteration Done"
// when there was no finish_reason (as if none, like the others see).
func finishAgree(rs []ClientResult, p protocol.Protocol) bool {
	all, raw := -1, ""
	for i, r := range rs {
		fr, class := r.FinishReason, finishClass(r.FinishReason)
		if r.Client == ClientVSCode {
			switch {
			case p == protocol.Chat && (fr == "DONE" || fr == "Iteration Done"):
				fr, class = "", 0
			case p != protocol.Chat && fr == "stop":
				class = finStop | finTools
			case p == protocol.Anthropic && fr == "DONE":
				class = finFilter
			}
		}
		switch {
		case i == 0 && class == 0:
			all, raw = 0, fr
		case i == 0:
			all = class
		case (all == 0) != (class == 0), all == 0 && fr != raw:
			return false
		case all != 0:
			if all &= class; all == 0 {
				return false
			}
		}
	}
	return true
}

func renderCalls(cs []protocol.ToolCall) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.Name)
		b.WriteByte('(')
		b.WriteString(c.Arguments)
		b.WriteByte(')')
		if c.ID != "" {
			b.WriteString(" #" + c.ID)
		}
	}
	return b.String()
}
