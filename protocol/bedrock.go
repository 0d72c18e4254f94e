package protocol

import (
	"encoding/base64"
	"maps"
	"slices"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
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

// assembleConverse follows providers.md §2.3 (the ConverseStream union as
// the AWS SDKs decode it): blocks by contentBlockIndex, opened by
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
	m := &a.Message
	blocks := map[int]*bedrockBlock{}
	started, metadata := false, -1
	events := se.Events
	var ev converseEvent
	for i := range events {
		e := &events[i]
		if bedrockError(a, e, i) {
			continue
		}
		if !decodeConverse(e.Data, &ev) {
			a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "%s payload is not valid JSON: the AWS SDKs fail on it", e.Name)
			continue
		}
		if metadata >= 0 {
			a.flag("stream.after-end", i, e.Name, "%s after the metadata event, which ends a ConverseStream", e.Name)
		} else if a.Terminal >= 0 && e.Name != "metadata" {
			a.flag("stream.after-end", i, e.Name, "%s after messageStop", e.Name)
		}
		if !started && e.Name != "messageStart" {
			a.flagOnce("bedrock.order", i, e.Name, "%s before messageStart", e.Name)
		}
		block := func() *bedrockBlock {
			b := blocks[ev.index]
			if b == nil {
				b = &bedrockBlock{}
				blocks[ev.index] = b
			}
			return b
		}
		switch e.Name {
		case "messageStart":
			if started {
				a.flag("bedrock.order", i, "", "a second messageStart in one stream")
			}
			started = true
			m.choice(0).Role = ev.role
		case "contentBlockStart":
			b := block()
			switch {
			case ev.toolStart:
				b.tool, b.id, b.name = true, ev.toolID, ev.toolName
				b.server = ev.toolType == "server_tool_use" || serverToolNames[ev.toolName]
				b.born.Add(i)
			case ev.resultStart:
				b.result, b.resultFor, b.status = true, ev.toolID, ev.toolStatus
			}
		case "contentBlockDelta":
			b := block()
			if b.stopped {
				a.flag("bedrock.order", i, excerpt.Clip(e.Data, 100), "delta for block %d after its contentBlockStop", ev.index)
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
		case "contentBlockStop":
			b := block()
			b.stopped = true
			if js := b.input.String(); b.tool && js != "" && !gjson.Valid(js) {
				a.flag("tool.args-invalid-json", i, excerpt.Clip(js, 120), "toolUse %s input is not valid JSON at contentBlockStop", b.name)
			}
		case "messageStop":
			sr := ev.stopReason
			m.choice(0).FinishReason = sr
			m.choice(0).FinishBorn.Add(i)
			if a.end(i) {
				m.Status = "done"
			}
			switch sr {
			case "guardrail_intervened", "content_filtered":
				a.flag("stream.blocked", i, jsonMember("stopReason", sr), "a guardrail or content filter stopped the answer (stopReason %s): it is withheld or masked", sr)
			case "malformed_model_output", "malformed_tool_use", "model_context_window_exceeded":
				a.flag("finish.abnormal", i, jsonMember("stopReason", sr), "the answer ended with stopReason %s", sr)
			}
		case "metadata":
			metadata = i
			if u := converseUsage(ev.usage.Result()); u != nil {
				m.Usage = u
				m.UsageBorn.Add(i)
			}
			if a.Terminal < 0 {
				a.flag("bedrock.order", i, "", "metadata before messageStop")
			}
		}
	}
	switch {
	case a.Terminal < 0 && m.Error == "":
		a.noTerminal(len(events), "no messageStop: the stream was cut")
	case a.Terminal >= 0 && metadata < 0 && m.Error == "":
		a.flag("bedrock.no-metadata", a.Terminal, "", "no metadata event after messageStop (usage and latency are missing)")
	}
	ch := m.choice(0)
	if ch.Role == "" {
		ch.Role = "assistant"
	}
	var text spanText
	var reasoning strings.Builder
	results := map[string]string{} // toolResult status by toolUseId
	for _, b := range blocks {
		if b.result && b.resultFor != "" {
			results[b.resultFor] = strings.TrimSpace("toolResult " + b.status)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[k]
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
				a.flag("tool.unclosed", len(events)-1, excerpt.Clip(args, 80), "toolUse block %d (%s) never got contentBlockStop: its input is partial", k, b.name)
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
	return a
}

// serverToolNames are Bedrock's system tools, run by Bedrock itself
// (toolConfig systemTool), for streams that do not mark their toolUse
// server_tool_use.
var serverToolNames = map[string]bool{"nova_grounding": true, "nova_code_interpreter": true}

// bedrockError handles an exception or error message (providers.md §2.2):
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

// assembleInvoke follows providers.md §2.4: each chunk's bytes are
// base64-decoded into the model's own streaming event (invokeFamily tells
// which kind). Anthropic events are assembled with the Anthropic rules, as
// the Anthropic SDK's Bedrock client does (it rebuilds an SSE event named
// by the event's type and runs its Messages parser); Amazon Nova's chunks
// are ConverseStream events, each wrapped in an object named by the event,
// and are assembled with the ConverseStream rules; other models' chunks
// (Titan's outputText, Llama's generation, Mistral's outputs, Cohere
// Command's generations, Claude's legacy completion) are joined, their
// stop reason ending the stream (InvokeChunkEnds).
func assembleInvoke(se *Side) *Assembly {
	events := se.Events
	inner := make([]Event, 0, len(events))
	from := make([]int, 0, len(events)) // the frame each inner event came from
	a := newAssembly(BedrockInvoke)
	// The chunks' bytes, decoded into one buffer: each inner event's data
	// is a substring of it.
	var buf []byte
	var ends []int
	for i := range events {
		e := events[i]
		if bedrockError(a, &e, i) {
			continue
		}
		b64, ok := chunkBytes(e.Data)
		if e.Name != "chunk" || !ok {
			a.flag("bedrock.order", i, excerpt.Clip(e.Data, 100), "%s message without chunk bytes in an InvokeModelWithResponseStream", e.Name)
			continue
		}
		at := len(buf)
		buf = slices.Grow(buf, base64.StdEncoding.DecodedLen(len(b64)))
		n, err := base64.StdEncoding.Decode(buf[at:at+base64.StdEncoding.DecodedLen(len(b64))], []byte(b64))
		if err != nil {
			a.flag("payload.invalid-json", i, excerpt.Clip(b64, 80), "chunk bytes are not base64: %v", err)
			continue
		}
		buf = buf[:at+n]
		e.Index = len(inner)
		inner = append(inner, e)
		ends = append(ends, len(buf))
		from = append(from, i)
	}
	all, prev := string(buf), 0
	for k := range inner {
		inner[k].Data, prev = all[prev:ends[k]], ends[k]
	}
	var in *Assembly
	switch invokeFamily(inner) {
	case invokeAnthropic:
		objs := decodeObj(inner, nil, 0)
		for k := range inner {
			inner[k].Name = objs[k].Type
		}
		in = AssembleAnthropic(inner, objs)
	case invokeConverse:
		in = assembleConverse(&Side{Events: converseShaped(inner)})
	default:
		in = assembleInvokeText(inner)
	}
	// Point the inner assembly's anomalies and spans back at the frames.
	back := func(ev int) int {
		if ev < 0 || ev >= len(from) {
			return ev
		}
		return from[ev]
	}
	msg := in.Message
	msg.Protocol = BedrockInvoke
	msg.UsageBorn, msg.ErrorBorn = msg.UsageBorn.mapped(back), msg.ErrorBorn.mapped(back)
	if a.Message.Error != "" {
		msg.Error, msg.ErrorBorn = a.Message.Error, a.Message.ErrorBorn
	}
	for k := range msg.Choices {
		ch := &msg.Choices[k]
		for s := range ch.Spans {
			ch.Spans[s].Event = back(ch.Spans[s].Event)
		}
		ch.ReasoningBorn, ch.RefusalBorn, ch.FinishBorn = ch.ReasoningBorn.mapped(back), ch.RefusalBorn.mapped(back), ch.FinishBorn.mapped(back)
		for t := range ch.ToolCalls {
			ch.ToolCalls[t].Born = ch.ToolCalls[t].Born.mapped(back)
		}
	}
	out := newAssembly(BedrockInvoke)
	out.Message = msg
	out.Terminal = back(in.Terminal)
	if a.Terminal >= 0 && (out.Terminal < 0 || a.Terminal < out.Terminal) {
		out.Terminal = a.Terminal
	}
	anomalies := append(a.Anomalies, in.Anomalies...)
	for _, x := range anomalies {
		if x.ID == "stream.no-terminal" && a.Terminal >= 0 {
			continue // the exception ended it
		}
		if x.ID == "anthropic.event-name" {
			continue // the events were named from their type, as the SDK does
		}
		x.Event = back(x.Event)
		out.Anomalies = append(out.Anomalies, x)
	}
	// Anomalies of the frames themselves came first: keep event order.
	slices.SortStableFunc(out.Anomalies, func(x, y Anomaly) int { return x.Event - y.Event })
	return out
}

// The families of model events InvokeModelWithResponseStream carries in
// its chunks' bytes (invokeFamily).
const (
	// invokeText is a model's own JSON object per chunk with a text field
	// and a stop reason: Titan, Llama, Mistral, Cohere Command, Claude's
	// legacy completion (assembleInvokeText).
	invokeText = iota
	// invokeAnthropic is an Anthropic Messages event per chunk ("type").
	invokeAnthropic
	// invokeConverse is Amazon Nova's: one object per chunk whose single
	// member names a ConverseStream event ({"contentBlockDelta": {…}},
	// then messageStop and metadata).
	invokeConverse
)

// invokeFamily tells which family of model events the decoded chunks
// carry, from the first chunk that says.
func invokeFamily(inner []Event) int {
	for k := range inner {
		d := inner[k].Data
		if name, _, ok := converseMember(d); ok && name != "" {
			return invokeConverse
		}
		typ := gjson.Get(d, "type").String()
		if FromEventName(typ) == Anthropic || typ == "ping" {
			return invokeAnthropic
		}
		if typ != "" || gjson.Valid(d) {
			return invokeText
		}
	}
	return invokeText
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

// converseShaped turns Nova's chunks into the ConverseStream events they
// carry: each named by its member, its data that member's value, so
// assembleConverse reads them with the AWS SDK's ConverseStream rules. A
// chunk with no such member keeps its data and gets no name (the
// assembler reports it). The last chunk's amazon-bedrock-invocationMetrics
// beside metadata is not needed: metadata carries the usage.
func converseShaped(inner []Event) []Event {
	out := make([]Event, len(inner))
	for k, e := range inner {
		if name, payload, ok := converseMember(e.Data); ok && name != "" {
			e.Name, e.Data = name, payload
		} else {
			e.Name = ""
		}
		out[k] = e
	}
	return out
}

// invokeTextKeys and invokeStopKeys are where each text family carries a
// chunk's text and its stop reason (null until the last chunk): Titan
// (outputText, completionReason), Meta Llama (generation, stop_reason),
// Claude's legacy completion (completion, stop_reason), Cohere Command R
// (text, finish_reason on stream-end), Mistral (outputs[0]), Cohere
// Command (generations[0], as the recorded single-chunk answer has it), and
// the chat-shaped ones (choices[0]: Mistral Large, AI21 Jamba).
var (
	invokeTextKeys = []string{"outputText", "generation", "completion", "text", "outputs.0.text", "generations.0.text",
		"choices.0.delta.content", "choices.0.message.content"}
	invokeStopKeys = []string{"completionReason", "stop_reason", "outputs.0.stop_reason", "finish_reason",
		"generations.0.finish_reason", "choices.0.finish_reason", "choices.0.stop_reason"}
)

// InvokeChunkEnds reports whether one decoded InvokeModelWithResponseStream
// chunk (the model's own event) ends the stream: an Anthropic
// message_stop, Nova's messageStop, a text family's stop reason, or a
// guardrail's intervention. It is the terminal rule assembleInvoke and
// the recorder's watch share.
func InvokeChunkEnds(inner []byte) bool {
	r := gjson.ParseBytes(inner)
	if typ := r.Get("type").String(); typ != "" {
		return typ == "message_stop"
	}
	if r.Get("messageStop").IsObject() {
		return true
	}
	for _, k := range invokeStopKeys {
		if v := r.Get(k); v.Type == gjson.String && v.String() != "" {
			return true
		}
	}
	return r.Get("amazon-bedrock-guardrailAction").String() == "INTERVENED"
}

// assembleInvokeText joins the text chunks of the models whose
// InvokeModelWithResponseStream chunks are their own JSON objects, each
// with a text field and a stop reason (invokeTextKeys, invokeStopKeys).
func assembleInvokeText(events []Event) *Assembly {
	a := newAssembly(BedrockInvoke)
	m := &a.Message
	ch := m.choice(0)
	ch.Role = "assistant"
	var text spanText
	for i := range events {
		e := &events[i]
		if !gjson.Valid(e.Data) {
			a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "decoded chunk bytes are not JSON")
			continue
		}
		if a.Terminal >= 0 {
			a.flag("stream.after-end", i, excerpt.Clip(e.Data, 120), "chunk after the one carrying the stop reason")
		}
		r := gjson.Parse(e.Data)
		t := ""
		for _, k := range invokeTextKeys {
			if v := r.Get(k); v.Type == gjson.String {
				t = v.String()
				break
			}
		}
		text.add(t, i)
		stop := ""
		for _, k := range invokeStopKeys {
			if v := r.Get(k); v.Type == gjson.String {
				stop = v.String()
				break
			}
		}
		if stop != "" {
			ch.FinishReason = stop
			ch.FinishBorn.Add(i)
			if a.end(i) {
				m.Status = "done"
			}
		}
		if act := r.Get("amazon-bedrock-guardrailAction").String(); act == "INTERVENED" {
			a.flag("stream.blocked", i, jsonMember("amazon-bedrock-guardrailAction", act), "a Bedrock guardrail intervened: the answer is withheld or masked")
			if a.end(i) {
				m.Status = "done"
			}
		}
		if u := r.Get("amazon-bedrock-invocationMetrics"); u.IsObject() {
			m.Usage = &Usage{Input: int(u.Get("inputTokenCount").Int()), Output: int(u.Get("outputTokenCount").Int())}
			m.UsageBorn.Add(i)
		} else if in := r.Get("inputTextTokenCount"); in.Exists() {
			m.Usage = &Usage{Input: int(in.Int()), Output: int(r.Get("totalOutputTextTokenCount").Int())}
			m.UsageBorn.Add(i)
		}
	}
	ch.Text, ch.Spans = text.String(), text.spans
	a.noTerminal(len(events), "no chunk with a stop reason: the stream was cut")
	return a
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
