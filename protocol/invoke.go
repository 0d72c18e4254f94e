package protocol

import (
	"encoding/base64"
	"slices"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/tidwall/gjson"
)

// assembleInvoke follows docs/PROTOCOLS.md#bedrock: each chunk's bytes are
// base64-decoded into the model's own streaming event (invokeKind tells
// which kind). Anthropic events are assembled with the Anthropic rules, as
// the Anthropic SDK's Bedrock client does (it rebuilds an SSE event named
// by the event's type and runs its Messages parser); Amazon Nova's chunks
// are ConverseStream events, each wrapped in an object named by the event,
// and are assembled with the ConverseStream rules; other models' chunks
// (Titan's outputText, Llama's generation, Mistral's outputs, Cohere
// Command's generations, Claude's legacy completion) are joined, their
// stop reason ending the stream (InvokeChunkEnds).
func assembleInvoke(se *Side) *Assembly {
	a := newAssembly(BedrockInvoke)
	inner, from := invokeInner(a, se.Events)
	var in *Assembly
	switch invokeKind(inner) {
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
	return invokeOuter(a, in, from)
}

// invokeInner decodes the chunks' bytes of an InvokeModelWithResponseStream
// into the model's events, each pointing at the frame it came from (from),
// flagging into a the frames that are exceptions, errors or no chunk.
func invokeInner(a *Assembly, events []Event) (inner []Event, from []int) {
	inner = make([]Event, 0, len(events))
	from = make([]int, 0, len(events))
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
	return inner, from
}

// invokeOuter returns the assembly in of the model's events as the
// assembly of the frames: its anomalies and spans pointed back at the
// frames they came from (from), merged with a, the frames' own.
func invokeOuter(a, in *Assembly, from []int) *Assembly {
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
// its chunks' bytes (invokeKind).
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

// invokeKind tells which family of model events the decoded chunks
// carry, from the first chunk that says.
func invokeKind(inner []Event) int {
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

// invokeTextState is the assembly state of a text model's
// InvokeModelWithResponseStream chunks.
type invokeTextState struct {
	a    *Assembly
	m    *Message
	ch   *Choice
	text spanText
	r    gjson.Result
}

// invokeTextHandlers: a chunk has no type; chunk reads every one.
var invokeTextHandlers = handlers[invokeTextState, gjson.Result]{
	decode: func(s *invokeTextState, _ int, e *Event) (*gjson.Result, bool) {
		if !gjson.Valid(e.Data) {
			return nil, false
		}
		s.r = gjson.Parse(e.Data)
		return &s.r, true
	},
	each: (*invokeTextState).chunk,
	finish: func(s *invokeTextState, _ int) {
		s.ch.Text, s.ch.Spans = s.text.String(), s.text.spans
	},
}

// assembleInvokeText joins the text chunks of the models whose
// InvokeModelWithResponseStream chunks are their own JSON objects, each
// with a text field and a stop reason (invokeTextKeys, invokeStopKeys).
func assembleInvokeText(events []Event) *Assembly {
	a := newAssembly(BedrockInvoke)
	s := &invokeTextState{a: a, m: &a.Message}
	s.ch = s.m.choice(0)
	s.ch.Role = "assistant"
	drive(a, &invokeFamily, events, s, &invokeTextHandlers)
	return a
}

// chunk reads one chunk: its text, its stop reason or a guardrail's
// intervention (either ends the stream), and the usage.
func (s *invokeTextState) chunk(i int, _ *Event, r *gjson.Result) {
	a, m, ch := s.a, s.m, s.ch
	t := ""
	for _, k := range invokeTextKeys {
		if v := r.Get(k); v.Type == gjson.String {
			t = v.String()
			break
		}
	}
	s.text.add(t, i)
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
