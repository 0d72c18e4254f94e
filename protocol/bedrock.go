package protocol

import (
	"maps"
	"slices"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/tidwall/gjson"
)

// bedrockBlock is one content block being assembled from ConverseStream.
type bedrockBlock struct {
	tool     bool
	id, name string
	// server marks a tool Bedrock runs itself (a toolUse of type
	// server_tool_use, as Nova's nova_grounding); result marks a toolResult
	// block, resultFor the toolUseId it answers and status its status.
	server            bool
	result            bool
	resultFor, status string
	text              spanText
	reasoning         strings.Builder
	input             strings.Builder
	signature         string
	stopped           bool
	// born is the events that opened a tool block and added to its input,
	// reasonAt those that added to its reasoning.
	born, reasonAt Born
}

// converseState is the assembly state of a ConverseStream.
type converseState struct {
	a        *Assembly
	m        *Message
	blocks   map[int]*bedrockBlock
	metadata int // the metadata event, or -1
	ev       converseEvent
}

// converseHandlers route by the event-stream :event-type, as the AWS SDKs'
// union does.
var converseHandlers = handlers[converseState, converseEvent]{
	decode: func(s *converseState, _ int, e *Event) (*converseEvent, bool) {
		return &s.ev, decodeConverse(e.Data, &s.ev)
	},
	typeOf: func(_ *converseEvent, e *Event) string { return e.Name },
	own: func(s *converseState, k own, i int, e *Event, _ string) {
		switch k {
		case ownEarly:
			s.a.flagOnce("bedrock.order", i, e.Name, "%s before messageStart", e.Name)
		case ownAgain:
			s.a.flag("bedrock.order", i, "", "a second messageStart in one stream")
		}
	},
	on: map[string]func(*converseState, int, *Event, *converseEvent){
		"messageStart":      func(s *converseState, _ int, _ *Event, ev *converseEvent) { s.m.choice(0).Role = ev.role },
		"contentBlockStart": (*converseState).blockStart,
		"contentBlockDelta": (*converseState).blockDelta,
		"contentBlockStop":  (*converseState).blockStop,
		"messageStop":       (*converseState).messageStop,
		"metadata":          (*converseState).metadataEvent,
	},
	finish: (*converseState).finish,
}

// assembleConverse follows docs/PROTOCOLS.md#bedrock (the ConverseStream
// union as the AWS SDKs decode it): blocks by contentBlockIndex, opened by
// contentBlockStart or by their first delta; text deltas joined; toolUse
// input fragments joined and parsed at contentBlockStop; reasoningContent
// text joined apart, its signature kept; stopReason from messageStop, which
// is the end; usage from the metadata event after it. Exception and error
// messages are the in-band errors. A toolUse whose start says type
// server_tool_use (or names a system tool, serverToolNames) is a tool
// Bedrock ran, answered by a toolResult block of the same message: a
// ServerTool, not a tool call.
func assembleConverse(se *Side) *Assembly {
	a := newAssembly(BedrockConverse)
	s := &converseState{a: a, m: &a.Message, blocks: map[int]*bedrockBlock{}, metadata: -1}
	drive(a, &converseFamily, se.Events, s, &converseHandlers)
	return a
}

// block returns the block of the event being read.
func (s *converseState) block() *bedrockBlock {
	b := s.blocks[s.ev.index]
	if b == nil {
		b = &bedrockBlock{}
		s.blocks[s.ev.index] = b
	}
	return b
}

func (s *converseState) blockStart(i int, _ *Event, ev *converseEvent) {
	b := s.block()
	switch {
	case ev.toolStart:
		b.tool, b.id, b.name = true, ev.toolID, ev.toolName
		b.server = ev.toolType == "server_tool_use" || serverToolNames[ev.toolName]
		b.born.Add(i)
	case ev.resultStart:
		b.result, b.resultFor, b.status = true, ev.toolID, ev.toolStatus
	}
}

func (s *converseState) blockDelta(i int, e *Event, ev *converseEvent) {
	b := s.block()
	if b.stopped {
		s.a.flag("bedrock.order", i, excerpt.Clip(e.Data, 100), "delta for block %d after its contentBlockStop", ev.index)
	}
	switch ev.delta {
	case deltaText:
		b.text.add(ev.text, i)
	case deltaToolUse:
		b.tool = true
		b.input.WriteString(ev.text)
		b.born.Add(i)
	case deltaReasoning:
		b.reasoning.WriteString(ev.text)
		b.reasonAt.Add(i)
		if ev.signature != "" {
			b.signature = ev.signature
		}
	case deltaToolResult:
		b.result = true
	}
}

func (s *converseState) blockStop(i int, _ *Event, _ *converseEvent) {
	b := s.block()
	b.stopped = true
	if js := b.input.String(); b.tool && js != "" && !gjson.Valid(js) {
		s.a.flag("tool.args-invalid-json", i, excerpt.Clip(js, 120), "toolUse %s input is not valid JSON at contentBlockStop", b.name)
	}
}

// messageStop reads the stop reason; the driver marked the event terminal
// unless an exception ended the stream before it.
func (s *converseState) messageStop(i int, _ *Event, ev *converseEvent) {
	m := s.m
	sr := ev.stopReason
	m.choice(0).FinishReason = sr
	m.choice(0).FinishBorn.Add(i)
	if s.a.Terminal == i {
		m.Status = "done"
	}
	switch sr {
	case "guardrail_intervened", "content_filtered":
		s.a.flag("stream.blocked", i, jsonMember("stopReason", sr), "a guardrail or content filter stopped the answer (stopReason %s): it is withheld or masked", sr)
	case "malformed_model_output", "malformed_tool_use", "model_context_window_exceeded":
		s.a.flag("finish.abnormal", i, jsonMember("stopReason", sr), "the answer ended with stopReason %s", sr)
	}
}

func (s *converseState) metadataEvent(i int, _ *Event, ev *converseEvent) {
	s.metadata = i
	if u := converseUsage(ev.usage.Result()); u != nil {
		s.m.Usage = u
		s.m.UsageBorn.Add(i)
	}
	if s.a.Terminal < 0 {
		s.a.flag("bedrock.order", i, "", "metadata before messageStop")
	}
}

// finish flags a stream that ended without its metadata event and builds
// the message from the blocks in index order.
func (s *converseState) finish(n int) {
	a, m := s.a, s.m
	if a.Terminal >= 0 && s.metadata < 0 && m.Error == "" {
		a.flag("bedrock.no-metadata", a.Terminal, "", "no metadata event after messageStop (usage and latency are missing)")
	}
	ch := m.choice(0)
	if ch.Role == "" {
		ch.Role = "assistant"
	}
	var text spanText
	var reasoning strings.Builder
	results := map[string]string{} // toolResult status by toolUseId
	for _, b := range s.blocks {
		if b.result && b.resultFor != "" {
			results[b.resultFor] = strings.TrimSpace("toolResult " + b.status)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.blocks)) {
		b := s.blocks[k]
		switch {
		case b.result:
			continue
		case b.tool && b.server:
			ch.ServerTools = append(ch.ServerTools, ServerTool{Index: k, ID: b.id, Name: b.name, Input: b.input.String(), Result: results[b.id], Born: b.born})
			continue
		}
		if b.tool {
			args := b.input.String()
			if args == "" {
				args = "{}"
			}
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: k, ID: b.id, Name: b.name, Arguments: args, Born: b.born})
			if !b.stopped {
				a.flag("tool.unclosed", n-1, excerpt.Clip(args, 80), "toolUse block %d (%s) never got contentBlockStop: its input is partial", k, b.name)
			}
			continue
		}
		text.join(&b.text)
		reasoning.WriteString(b.reasoning.String())
		ch.ReasoningBorn.join(b.reasonAt)
		if b.signature != "" {
			ch.Signature = b.signature
		}
	}
	ch.Text, ch.Spans, ch.Reasoning = text.String(), text.spans, reasoning.String()
}

// serverToolNames are Bedrock's system tools, run by Bedrock itself
// (toolConfig systemTool), for streams that do not mark their toolUse
// server_tool_use.
var serverToolNames = map[string]bool{"nova_grounding": true, "nova_code_interpreter": true}

// bedrockError handles an exception or error message (docs/PROTOCOLS.md#bedrock):
// the stream's in-band error. It reports whether e was one.
func bedrockError(a *Assembly, e *Event, i int) bool {
	var msg string
	switch e.MessageType {
	case "exception":
		msg = gjson.Get(e.Data, "message").String()
		if msg == "" {
			msg = gjson.Get(e.Data, "Message").String()
		}
	case "error":
		msg = e.Data
	default:
		return false
	}
	a.inBandError(i, e.Data, strings.TrimSpace(e.Name+": "+msg), "the stream carries an "+e.MessageType+" message")
	a.end(i)
	return true
}

// converseMember returns the first member of a decoded Nova chunk when it
// names a ConverseStream event, and its raw value (name "" when it does
// not); ok is false when data is not a JSON object.
func converseMember(data string) (name, payload string, ok bool) {
	sc := scanOf(data)
	if !sc.Open('{') {
		return "", "", false
	}
	for k := range sc.Members() {
		if FromEventName(k) != BedrockConverse {
			break // the event's name is its first member
		}
		return k, string(sc.rawJSON()), true
	}
	return "", "", true
}

// converseEvent is what one ConverseStream event says, decoded in one
// pass (strings are substrings of the payload unless escaped).
type converseEvent struct {
	index            int
	role, stopReason string
	toolStart        bool
	toolID, toolName string
	// toolType is a toolUse start's type (server_tool_use for a tool
	// Bedrock runs); resultStart marks a toolResult start, whose
	// toolUseId is toolID and status toolStatus.
	toolType        string
	resultStart     bool
	toolStatus      string
	delta           uint8 // deltaText, deltaToolUse, deltaReasoning, deltaToolResult, or 0
	text, signature string
	usage           RawJSON
}

// The kinds of a contentBlockDelta's delta union.
const (
	deltaText = iota + 1
	deltaToolUse
	deltaReasoning
	deltaToolResult
)

// decodeConverse reads a ConverseStream payload into ev and reports
// whether it is valid JSON.
func decodeConverse(data string, ev *converseEvent) bool {
	*ev = converseEvent{}
	sc := scanOf(data)
	for k := range sc.Object() {
		switch k {
		case "contentBlockIndex":
			ev.index = int(sc.Int())
		case "role":
			ev.role = sc.Str()
		case "stopReason":
			ev.stopReason = sc.Str()
		case "usage":
			ev.usage = sc.rawJSON()
		case "start":
			for k := range sc.Object() {
				if k != "toolUse" && k != "toolResult" || !sc.Open('{') {
					sc.Skip()
					continue
				}
				ev.toolStart, ev.resultStart = k == "toolUse", k == "toolResult"
				for k := range sc.Members() {
					switch k {
					case "toolUseId":
						ev.toolID = sc.Str()
					case "name":
						ev.toolName = sc.Str()
					case "type":
						ev.toolType = sc.Str()
					case "status":
						ev.toolStatus = sc.Str()
					default:
						sc.Skip()
					}
				}
			}
		case "delta":
			for k := range sc.Object() {
				switch k {
				case "text":
					ev.delta, ev.text = deltaText, sc.Str()
				case "toolResult":
					ev.delta = deltaToolResult
					sc.Skip()
				case "toolUse", "reasoningContent":
					if !sc.Open('{') {
						sc.Skip()
						break
					}
					ev.delta = deltaToolUse
					if k == "reasoningContent" {
						ev.delta = deltaReasoning
					}
					for k := range sc.Members() {
						switch k {
						case "input", "text":
							ev.text = sc.Str()
						case "signature":
							ev.signature = sc.Str()
						default:
							sc.Skip()
						}
					}
				default:
					sc.Skip()
				}
			}
		default:
			sc.Skip()
		}
	}
	return sc.End()
}

// chunkBytes returns the "bytes" string of an Invoke chunk payload, the
// model's event in base64 (it has no escapes).
func chunkBytes(data string) (string, bool) {
	sc := scanOf(data)
	if !sc.Open('{') {
		return "", false
	}
	for k := range sc.Members() {
		if k != "bytes" {
			sc.Skip()
			continue
		}
		v := sc.Value()
		return v.Str, Kind(v.Kind) == jString
	}
	return "", false
}

// converseBody reads a Bedrock Converse response.
func converseBody(a *Assembly, r gjson.Result) {
	ch := a.Message.choice(0)
	msg := r.Get("output.message")
	ch.Role = msg.Get("role").String()
	msg.Get("content").ForEach(func(k, c gjson.Result) bool {
		switch {
		case c.Get("text").Exists():
			ch.Text += c.Get("text").String()
		case c.Get("toolUse").Exists():
			tu := c.Get("toolUse")
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: int(k.Int()), ID: tu.Get("toolUseId").String(),
				Name: tu.Get("name").String(), Arguments: tu.Get("input").Raw})
		case c.Get("reasoningContent").Exists():
			ch.Reasoning += c.Get("reasoningContent.reasoningText.text").String()
		}
		return true
	})
	ch.FinishReason = r.Get("stopReason").String()
	a.Message.Usage = converseUsage(r.Get("usage"))
	if m := r.Get("message").String(); m != "" && a.Message.Error == "" && len(ch.ToolCalls) == 0 && ch.Text == "" {
		a.Message.Error = m // an AWS error body: {"message": "..."}
	}
}

// converseUsage reads a Bedrock Converse usage object (a response's, or
// the stream's metadata event's), nil when there is none.
func converseUsage(u gjson.Result) *Usage {
	if !u.IsObject() {
		return nil
	}
	var f [5]gjson.Result
	jsontext.GetFields(u, []string{"inputTokens", "outputTokens", "totalTokens", "cacheReadInputTokens", "cacheWriteInputTokens"}, f[:])
	return &Usage{Input: int(f[0].Int()), Output: int(f[1].Int()), Total: int(f[2].Int()), CacheRead: int(f[3].Int()), CacheCreation: int(f[4].Int())}
}
