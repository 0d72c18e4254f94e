package protocol

import (
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// chatChoiceState is per-choice assembly state for Chat Completions.
type chatChoiceState struct {
	pos        int         // the choice's position in Message.Choices
	finished   int         // event index of finish_reason, or -1
	tools      map[int]int // position in the choice's ToolCalls by tool index
	roleEvents int
	text       spanText
	reasoning  [3]strings.Builder // reasoning_content, reasoning, reasoning_details text
	details    []string           // the raw reasoning_details items
	refusal    strings.Builder
	args       []*strings.Builder // by position in the choice's ToolCalls
	cumulative map[int]int
	lastFrag   map[int]string // the previous arguments fragment per tool index
}

// opened makes the maps of the choice's tool calls, made on its first call
// (most choices have none).
func (c *chatChoiceState) opened() {
	if c.tools == nil {
		c.tools, c.cumulative, c.lastFrag = map[int]int{}, map[int]int{}, map[int]string{}
	}
}

// chatState is the assembly state of a Chat Completions stream.
type chatState struct {
	a  *Assembly
	m  *Message
	cs *ChatSide
	// Choices and tool calls are keyed by their index in maps, never by
	// position in a slice grown to the index: an index is whatever the
	// stream says (2,000,000 in a 1 KB capture).
	st   map[int]*chatChoiceState
	open int // choices without a finish_reason yet
}

// chatHandlers: a Chat chunk has no type; chunk reads every one.
var chatHandlers = handlers[chatState, ChatChunk]{
	decode: func(s *chatState, i int, _ *Event) (*ChatChunk, bool) {
		ck := s.cs.Chunk(i)
		return ck, ck.Valid
	},
	each:    (*chatState).chunk,
	settled: (*chatState).allFinished,
	own: func(s *chatState, _ own, i int, _ *Event, _ string) { // ownSettled
		s.a.flag("chat.no-done", i, "", "the stream ends after every choice's finish_reason but without data: [DONE]: the SDKs end normally at EOF")
	},
	finish: (*chatState).finish,
}

// assembleChat follows docs/PROTOCOLS.md#chat: choices by choice.index,
// tool calls by tool index (arguments concatenated, id and name set from
// the first delta that carries them), content, refusal and reasoning fields
// concatenated, usage from the usage chunk (choices: []), [DONE] terminal
// (a stream without it ends at EOF when every choice has its finish_reason:
// chatFamily).
// The OpenAI-compatible extras of docs/PROTOCOLS.md#mistral are read too:
// content given as Mistral's typed parts (text parts to the text, thinking
// parts to the reasoning), tool arguments given as an object, the reasoning
// channels reasoning_content, reasoning and reasoning_details kept apart
// (the first with text is the reasoning), Groq's x_groq usage and error,
// and in-band errors: a top-level "error" (with or without choices), a vLLM
// {"object": "error"} payload, finish_reason "error".
func assembleChat(se *Side) *Assembly {
	a := newAssembly(Chat)
	s := &chatState{a: a, m: &a.Message, cs: se.ChatEvents(), st: map[int]*chatChoiceState{}}
	drive(a, &chatFamily, se.Events, s, &chatHandlers)
	return a
}

// allFinished reports whether every choice has its finish_reason.
func (s *chatState) allFinished() bool { return len(s.st) > 0 && s.open == 0 }

// choice returns the state of choice i, first seen in event ev (delta d).
func (s *chatState) choice(i, ev int, d *ChatDelta) *chatChoiceState {
	c := s.st[i]
	if c == nil {
		if i < 0 || i >= maxNodeIndex {
			s.a.flag("chat.index-out-of-range", ev, excerpt.Clip(d.Delta, 120), "choice index %d is outside 0–%d: openai-node throws (\"invalid choice index\")", i, maxNodeIndex-1)
		}
		s.m.Choices = append(s.m.Choices, Choice{Index: i})
		c = &chatChoiceState{pos: len(s.m.Choices) - 1, finished: -1}
		s.st[i] = c
		s.open++
	}
	return c
}

// chunk reads one chunk: its id and model, an in-band error, its usage and
// each choice's delta.
func (s *chatState) chunk(i int, e *Event, ck *ChatChunk) {
	a, m := s.a, s.m
	if !jsonObject(e.Data) && strings.TrimSpace(e.Data) == `"[DONE]"` {
		a.flag("chat.bad-done", i, e.Data, "the terminator is quoted (\"[DONE]\"): clients do not recognise it")
		return
	}
	if m.ID == "" {
		m.ID = ck.ID
	}
	if m.Model == "" {
		m.Model = ck.Model
	}
	if inBand := chatError(ck, e); inBand != "" {
		a.inBandError(i, e.Data, inBand, "the stream carries an error")
		if !ck.Choices.Exists() || ck.Choices.IsNull() {
			return
		}
	}
	deltas := s.cs.ChoiceDeltas(ck)
	if u := ck.Usage; u.IsObject() || !u.Exists() && ck.Groq.IsObject() && ck.Groq.Result().Get("usage").IsObject() {
		if u.IsObject() {
			m.Usage = chatUsage(u.Result())
		} else {
			m.Usage = chatUsage(ck.Groq.Result().Get("usage"))
		}
		m.UsageBorn.Add(i)
		if !s.allFinished() && len(deltas) == 0 {
			a.flag("chat.usage-before-finish", i, "", "usage chunk arrives before every choice has a finish_reason")
		}
	}
	for k := range deltas {
		s.delta(i, &deltas[k])
	}
}

// delta reads one choice's delta of event i.
func (s *chatState) delta(i int, d *ChatDelta) {
	a := s.a
	idx := d.Index
	c := s.choice(idx, i, d)
	ch := &s.m.Choices[c.pos]
	tcs := s.cs.ToolDeltas(d)
	if c.finished >= 0 && (d.Content().Str() != "" || len(tcs) > 0) {
		a.flag("chat.after-finish", i, excerpt.Clip(d.Delta, 120), "choice %d gets content after its finish_reason (event %d): VS Code ignores it", idx, c.finished)
	}
	if role := d.Role; role != "" {
		c.roleEvents++
		if c.roleEvents == 2 {
			a.flag("chat.repeated-fields", i, jsonMember("role", role), "role is repeated in a later delta: openai-python concatenates it (%q)", role+role)
		}
		ch.Role = role
	}
	s.content(i, d, c, ch)
	if d.ReasoningContent().IsString() {
		c.reasoning[0].WriteString(d.ReasoningContent().s)
		ch.ReasoningBorn.Add(i)
	}
	if d.Reasoning().IsString() {
		c.reasoning[1].WriteString(d.Reasoning().s)
		ch.ReasoningBorn.Add(i)
	}
	if rd := d.ReasoningDetails; rd.IsArray() {
		rd.Result().ForEach(func(_, item gjson.Result) bool {
			c.details = append(c.details, item.Raw)
			c.reasoning[2].WriteString(item.Get("text").String())
			c.reasoning[2].WriteString(item.Get("summary").String())
			return true
		})
		ch.ReasoningBorn.Add(i)
	}
	if d.Refusal().IsString() {
		c.refusal.WriteString(d.Refusal().s)
		ch.RefusalBorn.Add(i)
	}
	for t := range tcs {
		s.toolDelta(i, &tcs[t], c, ch)
	}
	if strings.Contains(d.Delta, `"function_call"`) {
		legacyCall(ch, c, gjson.Get(d.Delta, "function_call"), i)
	}
	if fr := d.FinishReason; fr != "" {
		s.finishReason(i, fr, idx, c, ch)
	}
}

// content reads a delta's content: a string, or Mistral's typed parts
// (docs/PROTOCOLS.md#mistral).
func (s *chatState) content(i int, d *ChatDelta, c *chatChoiceState, ch *Choice) {
	a := s.a
	if d.Content().IsString() {
		txt := d.Content().s
		c.text.add(txt, i)
		if strings.HasSuffix(txt, "\r") {
			a.flag("chat.trailing-cr", i, quoteTail(txt), "content delta ends in \\r: VS Code strips it, so its text differs")
		}
		if d.ToolCalls.Exists() && txt != "" {
			a.flag("chat.content-with-tool-calls", i, excerpt.Clip(d.Delta, 160), "content and tool_calls in one delta: VS Code drops the content %q", excerpt.Clip(txt, 40))
		}
	} else if d.Content().IsArray() {
		d.Content().Result().ForEach(func(_, part gjson.Result) bool {
			switch part.Get("type").String() {
			case "text":
				c.text.add(part.Get("text").String(), i)
			case "thinking":
				part.Get("thinking").ForEach(func(_, t gjson.Result) bool {
					c.reasoning[0].WriteString(t.Get("text").String())
					return true
				})
				ch.ReasoningBorn.Add(i)
			}
			return true
		})
	}
}

// toolDelta reads one tool call delta of event i into its call, by index.
func (s *chatState) toolDelta(i int, tc *ChatToolDelta, c *chatChoiceState, ch *Choice) {
	a := s.a
	ti := 0
	if tc.HasIndex {
		ti = tc.Index
	} else if !wholeCall(tc) {
		// A call sent whole in one delta (Mistral's way) needs no index to
		// be joined; a fragment does.
		a.flagOnce("chat.tool-index-missing", i, excerpt.Clip(tc.Raw, 120), "tool call delta has no index: SDKs file it under 0")
	}
	pos, ok := c.tools[ti]
	if !ok {
		pos = s.newCall(i, ti, tc, c, ch)
	}
	call := &ch.ToolCalls[pos]
	call.Born.Add(i)
	if id := tc.ID; id != "" {
		switch {
		case call.ID == "":
			call.ID = id
		case call.ID != id:
			a.flag("chat.index-id-conflict", i, "index "+strconv.Itoa(ti)+": "+call.ID+" then "+id,
				"tool index %d carries a second id: index-keyed SDKs merge two calls, VS Code keeps them apart", ti)
		default:
			a.flagOnce("chat.repeated-fields", i, jsonMember("id", id), "tool call id is repeated in a later delta: openai-python concatenates it")
		}
	}
	if name := tc.Name; name != "" {
		if call.Name != "" {
			a.flagOnce("chat.repeated-fields", i, jsonMember("name", name), "tool name is sent again in a later delta: openai-python and openai-go concatenate names, node and VS Code overwrite")
		}
		call.Name = name
	}
	if tc.Args.IsString() {
		frag := tc.Args.s
		// A snapshot repeats the previous fragment and extends it.
		if prev := c.lastFrag[ti]; prev != "" && len(frag) > len(prev) && strings.HasPrefix(frag, prev) {
			c.cumulative[ti]++
			if c.cumulative[ti] == 2 {
				a.flag("chat.cumulative-args", i, excerpt.Clip(frag, 80), "tool %d arguments look cumulative (each delta repeats the previous ones): clients concatenate them into invalid JSON", ti)
			}
		}
		c.lastFrag[ti] = frag
		c.args[pos].WriteString(frag)
	} else if tc.Args.IsObject() {
		// Mistral may send the arguments as an object.
		c.args[pos].WriteString(tc.Args.s)
	}
}

// newCall opens tool call ti of a choice at event i, flagging an index out
// of range or out of sequence, and returns its position in the choice.
func (s *chatState) newCall(i, ti int, tc *ChatToolDelta, c *chatChoiceState, ch *Choice) int {
	a := s.a
	if ti < 0 || ti >= maxNodeIndex {
		a.flag("chat.index-out-of-range", i, excerpt.Clip(tc.Raw, 120), "tool call index %d is outside 0–%d: openai-node throws (\"invalid tool call index\")", ti, maxNodeIndex-1)
	}
	if n := len(ch.ToolCalls); n == 0 && ti != 0 {
		a.flag("chat.index-not-zero", i, excerpt.Clip(tc.Raw, 120), "first tool call has index %d, not 0: openai-python splits it into two entries", ti)
	} else if n > 0 && ti != ch.ToolCalls[n-1].Index+1 {
		a.flag("chat.index-not-zero", i, excerpt.Clip(tc.Raw, 120), "tool index jumps from %d to %d (a gap)", ch.ToolCalls[n-1].Index, ti)
	}
	pos := len(ch.ToolCalls)
	c.opened()
	c.tools[ti] = pos
	ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: ti})
	c.args = append(c.args, new(strings.Builder))
	return pos
}

// finishReason reads choice idx's finish_reason fr at event i.
func (s *chatState) finishReason(i int, fr string, idx int, c *chatChoiceState, ch *Choice) {
	a, m := s.a, s.m
	if c.finished < 0 {
		c.finished = i
		s.open--
	}
	ch.FinishReason = fr
	ch.FinishBorn.Add(i)
	switch {
	case (fr == "length" || fr == "content_filter") && len(ch.ToolCalls) > 0:
		a.flag("chat.finish-length-tools", i, jsonMember("finish_reason", fr), "finish_reason %s while tool calls are open: VS Code drops the calls, openai-python raises", fr)
	case fr == "content_filter":
		a.flag("stream.blocked", i, jsonMember("finish_reason", fr), "choice %d was stopped by a content filter (finish_reason content_filter)", idx)
	case fr == "error" && m.Error == "":
		m.Error = "finish_reason error"
		m.ErrorBorn.Add(i)
		a.flag("stream.error-event", i, jsonMember("finish_reason", fr), "choice %d ended with finish_reason error: the provider failed mid-stream", idx)
	}
}

// finish builds each choice from its state and flags a choice without a
// finish_reason and tool arguments that are not JSON, at the last event.
func (s *chatState) finish(n int) {
	a, m := s.a, s.m
	for k := range m.Choices {
		ch := &m.Choices[k]
		if c := s.st[ch.Index]; c != nil {
			ch.Text, ch.Spans, ch.Refusal = c.text.String(), c.text.spans, c.refusal.String()
			for r := range c.reasoning {
				if ch.Reasoning = c.reasoning[r].String(); ch.Reasoning != "" {
					break
				}
			}
			if len(c.details) > 0 {
				ch.ReasoningDetails = "[" + strings.Join(c.details, ",") + "]"
			}
			for p := range ch.ToolCalls {
				ch.ToolCalls[p].Arguments = c.args[p].String()
			}
		}
	}
	sortChoices(m)
	last := n - 1
	for _, ch := range m.Choices {
		c := s.st[ch.Index]
		if ch.FinishReason == "" {
			a.flag("chat.finish-missing", last, "", "choice %d has no finish_reason: openai-node throws, VS Code drops tool calls", ch.Index)
		}
		for _, tc := range ch.ToolCalls {
			if tc.Arguments != "" && !gjson.Valid(tc.Arguments) && (c == nil || c.cumulative[tc.Index] < 2) {
				a.flag("tool.args-invalid-json", last, excerpt.Clip(tc.Arguments, 120), "tool call %d (%s) arguments are not valid JSON", tc.Index, tc.Name)
			}
		}
	}
}

// maxNodeIndex is the bound openai-node 7 (ChatCompletionStream,
// MAX_STREAM_CHOICES and MAX_STREAM_TOOL_CALLS) puts on a choice's and a
// tool call's index: it throws on any index outside [0, maxNodeIndex).
const maxNodeIndex = 128

// legacyCall assembles the deprecated delta.function_call ({name,
// arguments}, no id, one per choice) as the choice's tool call 0, the way
// the SDKs that still read it join it: name set, arguments concatenated.
func legacyCall(ch *Choice, s *chatChoiceState, fc gjson.Result, ev int) {
	if !fc.IsObject() {
		return
	}
	pos, ok := s.tools[0]
	if !ok {
		pos = len(ch.ToolCalls)
		s.opened()
		s.tools[0] = pos
		ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: 0})
		s.args = append(s.args, new(strings.Builder))
	}
	call := &ch.ToolCalls[pos]
	call.Born.Add(ev)
	if n := fc.Get("name").String(); n != "" {
		call.Name = n
	}
	s.args[pos].WriteString(fc.Get("arguments").String())
}

// quoteTail shows the last few bytes of s, quoted, so control characters
// are visible.
func quoteTail(s string) string {
	if len(s) > 24 {
		s = "…" + s[len(s)-24:]
	}
	return strconv.Quote(s)
}

// jsonMember renders the JSON object member "key":"val", both escaped, as
// evidence of a field a payload carried.
func jsonMember(key, val string) string {
	b := tape.AppendJSONString(nil, key)
	b = append(b, ':')
	return string(tape.AppendJSONString(b, val))
}

// chatError returns the in-band error a Chat chunk carries, or "": a
// top-level "error" that is not null, a vLLM {"object": "error"} payload,
// Groq's x_groq.error, or an SSE event named error.
func chatError(ck *ChatChunk, e *Event) string {
	switch {
	case ck.Err.Exists() && !ck.Err.IsNull():
		return ErrorText(ck.Err.Result())
	case ck.Object == "error":
		return ErrorText(gjson.Parse(e.Data))
	case ck.Groq.IsObject():
		if g := ck.Groq.Result().Get("error"); g.Exists() && g.Type != gjson.Null {
			return ErrorText(g)
		}
	}
	if e.Name == "error" {
		if t := ErrorText(ck.Err.Result()); t != "" {
			return t
		}
		return excerpt.Clip(e.Data, 200)
	}
	return ""
}

// wholeCall reports whether a tool call delta carries a whole call: its
// id, its name and complete JSON arguments.
func wholeCall(tc *ChatToolDelta) bool {
	if tc.ID == "" || tc.Name == "" {
		return false
	}
	return tc.Args.IsObject() || tc.Args.IsString() && gjson.Valid(tc.Args.s)
}

// chatBody reads a chat.completion body.
func chatBody(a *Assembly, r gjson.Result) {
	a.Message.ID, a.Message.Model = r.Get("id").String(), r.Get("model").String()
	choices := choiceFinder{m: &a.Message}
	r.Get("choices").ForEach(func(_, c gjson.Result) bool {
		ch := choices.get(int(c.Get("index").Int()))
		m := c.Get("message")
		ch.Role = m.Get("role").String()
		ch.Text = m.Get("content").String()
		ch.Refusal = m.Get("refusal").String()
		ch.Reasoning = m.Get("reasoning_content").String() + m.Get("reasoning").String()
		ch.FinishReason = c.Get("finish_reason").String()
		m.Get("tool_calls").ForEach(func(k, t gjson.Result) bool {
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: int(k.Int()), ID: t.Get("id").String(),
				Name: t.Get("function.name").String(), Arguments: t.Get("function.arguments").String()})
			return true
		})
		return true
	})
	a.Message.Usage = chatUsage(r.Get("usage"))
}

// chatUsage reads a Chat Completions usage object, nil when there is none.
func chatUsage(u gjson.Result) *Usage {
	if !u.IsObject() {
		return nil
	}
	var f [5]gjson.Result
	jsontext.GetFields(u, []string{"prompt_tokens", "completion_tokens", "total_tokens", "completion_tokens_details", "prompt_tokens_details"}, f[:])
	return &Usage{
		Input:     int(f[0].Int()),
		Output:    int(f[1].Int()),
		Total:     int(f[2].Int()),
		Reasoning: int(f[3].Get("reasoning_tokens").Int()),
		CacheRead: int(f[4].Get("cached_tokens").Int()),
	}
}
