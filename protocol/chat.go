package protocol

import (
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// chatChoiceState is per-choice assembly state for Chat Completions.
type chatChoiceState struct {
	pos        int // the choice's position in Message.Choices
	finished   int // event index of finish_reason, or -1
	tools      map[int]int
	roleEvents int
	text       spanText
	reasoning  [3]strings.Builder // reasoning_content, reasoning, reasoning_details text
	details    []string           // the raw reasoning_details items
	refusal    strings.Builder
	args       []*strings.Builder // by position in the choice's ToolCalls
	cumulative map[int]int
	lastFrag   map[int]string // the previous arguments fragment per tool index
}

// assembleChat follows protocols.md §3.1: choices by choice.index, tool
// calls by tool index (arguments concatenated, id and name set from the first
// delta that carries them), content, refusal and reasoning fields
// concatenated, usage from the usage chunk (choices: []), [DONE] terminal
// (a stream without it ends at EOF when every choice has its finish_reason:
// chatEnd).
// The OpenAI-compatible extras of providers.md §5–§6 are read too: content
// given as Mistral's typed parts (text parts to the text, thinking parts to
// the reasoning), tool arguments given as an object, the reasoning
// channels reasoning_content, reasoning and reasoning_details kept apart
// (the first with text is the reasoning), Groq's x_groq usage and error,
// and in-band errors: a top-level "error" (with or without choices), a
// vLLM {"object": "error"} payload, finish_reason "error".
func assembleChat(se *Side) *Assembly {
	events := se.Events
	cs := se.ChatEvents()
	a := newAssembly(Chat)
	m := &a.Message
	// Choices and tool calls are keyed by their index in maps, never by
	// position in a slice grown to the index: an index is whatever the
	// stream says (2,000,000 in a 1 KB capture).
	st := map[int]*chatChoiceState{}
	open := 0 // choices without a finish_reason yet
	state := func(i, ev int, d *ChatDelta) *chatChoiceState {
		s := st[i]
		if s == nil {
			if i < 0 || i >= maxNodeIndex {
				a.flag("chat.index-out-of-range", ev, excerpt.Clip(d.Delta, 120), "choice index %d is outside 0–%d: openai-node throws (\"invalid choice index\")", i, maxNodeIndex-1)
			}
			m.Choices = append(m.Choices, Choice{Index: i})
			s = &chatChoiceState{pos: len(m.Choices) - 1, finished: -1, tools: map[int]int{}, cumulative: map[int]int{}, lastFrag: map[int]string{}}
			st[i] = s
			open++
		}
		return s
	}
	allFinished := func() bool { return len(st) > 0 && open == 0 }
	for i := range events {
		e := &events[i]
		ck := cs.Chunk(i)
		if a.Terminal >= 0 {
			if ck.Done {
				a.flag("stream.trailing-done", i, e.Data, "a second data: [DONE]: clients stopped at the first")
				continue
			}
			a.flag("stream.after-terminal", i, excerpt.Clip(e.Data, 120), "event after [DONE]: clients stop reading at [DONE], so this is lost")
			continue
		}
		if ck.Done {
			a.Terminal = i
			m.Status = "done"
			continue
		}
		if strings.TrimSpace(e.Data) == `"[DONE]"` {
			a.flag("chat.bad-done", i, e.Data, "the terminator is quoted (\"[DONE]\"): clients do not recognise it")
			continue
		}
		if !ck.Valid {
			a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "event data is not valid JSON: clients skip or fail on it")
			continue
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
				continue
			}
		}
		deltas := cs.ChoiceDeltas(ck)
		if u := ck.Usage; u.IsObject() || !u.Exists() && ck.Groq.IsObject() && ck.Groq.Result().Get("usage").IsObject() {
			if u.IsObject() {
				m.Usage = chatUsage(u.Result())
			} else {
				m.Usage = chatUsage(ck.Groq.Result().Get("usage"))
			}
			m.UsageBorn.Add(i)
			if !allFinished() && len(deltas) == 0 {
				a.flag("chat.usage-before-finish", i, "", "usage chunk arrives before every choice has a finish_reason")
			}
		}
		for k := range deltas {
			d := &deltas[k]
			idx := d.Index
			s := state(idx, i, d)
			ch := &m.Choices[s.pos]
			tcs := cs.ToolDeltas(d)
			if s.finished >= 0 && (d.Content().Str() != "" || len(tcs) > 0) {
				a.flag("chat.after-finish", i, excerpt.Clip(d.Delta, 120), "choice %d gets content after its finish_reason (event %d): VS Code ignores it", idx, s.finished)
			}
			if role := d.Role; role != "" {
				s.roleEvents++
				if s.roleEvents == 2 {
					a.flag("chat.repeated-fields", i, jsonMember("role", role), "role is repeated in a later delta: openai-python concatenates it (%q)", role+role)
				}
				ch.Role = role
			}
			if d.Content().IsString() {
				txt := d.Content().s
				s.text.add(txt, i)
				if strings.HasSuffix(txt, "\r") {
					a.flag("chat.trailing-cr", i, quoteTail(txt), "content delta ends in \\r: VS Code strips it, so its text differs")
				}
				if d.ToolCalls.Exists() && txt != "" {
					a.flag("chat.content-with-tool-calls", i, excerpt.Clip(d.Delta, 160), "content and tool_calls in one delta: VS Code drops the content %q", excerpt.Clip(txt, 40))
				}
			} else if d.Content().IsArray() {
				// Mistral's typed content parts (providers.md §5.2).
				d.Content().Result().ForEach(func(_, part gjson.Result) bool {
					switch part.Get("type").String() {
					case "text":
						s.text.add(part.Get("text").String(), i)
					case "thinking":
						part.Get("thinking").ForEach(func(_, t gjson.Result) bool {
							s.reasoning[0].WriteString(t.Get("text").String())
							return true
						})
						ch.ReasoningBorn.Add(i)
					}
					return true
				})
			}
			if d.ReasoningContent().IsString() {
				s.reasoning[0].WriteString(d.ReasoningContent().s)
				ch.ReasoningBorn.Add(i)
			}
			if d.Reasoning().IsString() {
				s.reasoning[1].WriteString(d.Reasoning().s)
				ch.ReasoningBorn.Add(i)
			}
			if rd := d.ReasoningDetails; rd.IsArray() {
				rd.Result().ForEach(func(_, item gjson.Result) bool {
					s.details = append(s.details, item.Raw)
					s.reasoning[2].WriteString(item.Get("text").String())
					s.reasoning[2].WriteString(item.Get("summary").String())
					return true
				})
				ch.ReasoningBorn.Add(i)
			}
			if d.Refusal().IsString() {
				s.refusal.WriteString(d.Refusal().s)
				ch.RefusalBorn.Add(i)
			}
			for t := range tcs {
				tc := &tcs[t]
				ti := 0
				if tc.HasIndex {
					ti = tc.Index
				} else if !wholeCall(tc) {
					// A call sent whole in one delta (Mistral's way) needs no
					// index to be joined; a fragment does.
					a.flagOnce("chat.tool-index-missing", i, excerpt.Clip(tc.Raw, 120), "tool call delta has no index: SDKs file it under 0")
				}
				pos, ok := s.tools[ti]
				if !ok {
					if ti < 0 || ti >= maxNodeIndex {
						a.flag("chat.index-out-of-range", i, excerpt.Clip(tc.Raw, 120), "tool call index %d is outside 0–%d: openai-node throws (\"invalid tool call index\")", ti, maxNodeIndex-1)
					}
					if n := len(ch.ToolCalls); n == 0 && ti != 0 {
						a.flag("chat.index-not-zero", i, excerpt.Clip(tc.Raw, 120), "first tool call has index %d, not 0: openai-python splits it into two entries", ti)
					} else if n > 0 && ti != ch.ToolCalls[n-1].Index+1 {
						a.flag("chat.index-not-zero", i, excerpt.Clip(tc.Raw, 120), "tool index jumps from %d to %d (a gap)", ch.ToolCalls[n-1].Index, ti)
					}
					pos = len(ch.ToolCalls)
					s.tools[ti] = pos
					ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: ti})
					s.args = append(s.args, new(strings.Builder))
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
					if prev := s.lastFrag[ti]; prev != "" && len(frag) > len(prev) && strings.HasPrefix(frag, prev) {
						s.cumulative[ti]++
						if s.cumulative[ti] == 2 {
							a.flag("chat.cumulative-args", i, excerpt.Clip(frag, 80), "tool %d arguments look cumulative (each delta repeats the previous ones): clients concatenate them into invalid JSON", ti)
						}
					}
					s.lastFrag[ti] = frag
					s.args[pos].WriteString(frag)
				} else if tc.Args.IsObject() {
					// Mistral may send the arguments as an object.
					s.args[pos].WriteString(tc.Args.s)
				}
			}
			if strings.Contains(d.Delta, `"function_call"`) {
				legacyCall(ch, s, gjson.Get(d.Delta, "function_call"), i)
			}
			if fr := d.FinishReason; fr != "" {
				if s.finished < 0 {
					s.finished = i
					open--
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
		}
	}
	for k := range m.Choices {
		ch := &m.Choices[k]
		if s := st[ch.Index]; s != nil {
			ch.Text, ch.Spans, ch.Refusal = s.text.String(), s.text.spans, s.refusal.String()
			for r := range s.reasoning {
				if ch.Reasoning = s.reasoning[r].String(); ch.Reasoning != "" {
					break
				}
			}
			if len(s.details) > 0 {
				ch.ReasoningDetails = "[" + strings.Join(s.details, ",") + "]"
			}
			for p := range ch.ToolCalls {
				ch.ToolCalls[p].Arguments = s.args[p].String()
			}
		}
	}
	sortChoices(m)
	last := len(events) - 1
	chatEnd(a, len(events), allFinished())
	for _, ch := range m.Choices {
		s := st[ch.Index]
		if ch.FinishReason == "" {
			a.flag("chat.finish-missing", last, "", "choice %d has no finish_reason: openai-node throws, VS Code drops tool calls", ch.Index)
		}
		for _, tc := range ch.ToolCalls {
			if tc.Arguments != "" && !gjson.Valid(tc.Arguments) && (s == nil || s.cumulative[tc.Index] < 2) {
				a.flag("tool.args-invalid-json", last, excerpt.Clip(tc.Arguments, 120), "tool call %d (%s) arguments are not valid JSON", tc.Index, tc.Name)
			}
		}
	}
	return a
}

// maxNodeIndex is the bound openai-node 7 (ChatCompletionStream,
// MAX_STREAM_CHOICES and MAX_STREAM_TOOL_CALLS) puts on a choice's and a
// tool call's index: it throws on any index outside [0, maxNodeIndex).
const maxNodeIndex = 128

// chatEnd applies the Chat Completions end rule to a stream of n events
// that reached no data: [DONE]. The finish_reason is the answer's end and
// [DONE] only the transport's: every SDK ends normally at EOF (openai-node
// and openai-python leave their read loop, and openai-node wants only a
// finish_reason per choice), so a stream whose every choice finished and
// that lacks only [DONE] (Perplexity, some OpenAI-compatible servers) is an
// info quirk; one that lacks both was cut.
func chatEnd(a *Assembly, n int, allFinished bool) {
	switch {
	case a.Terminal >= 0 || n == 0:
	case allFinished:
		a.flag("chat.no-done", n-1, "", "the stream ends after every choice's finish_reason but without data: [DONE]: the SDKs end normally at EOF")
	default:
		a.noTerminal(n, "no data: [DONE], and not every choice has a finish_reason: the stream was cut")
	}
}

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
