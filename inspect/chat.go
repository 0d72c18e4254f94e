package inspect

import (
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// chatChoiceState is per-choice assembly state for Chat Completions.
type chatChoiceState struct {
	finished   int // event index of finish_reason, or -1
	tools      map[int]int
	toolOrder  []int
	roleEvents int
	text       strings.Builder
	lastArgs   map[int]string
	cumulative map[int]int
}

// assembleChat follows protocols.md §3.1: choices by choice.index, tool
// calls by tool index (arguments concatenated, id and name set from the first
// delta that carries them), content, refusal and reasoning fields
// concatenated, usage from the usage chunk (choices: []), [DONE] terminal.
func assembleChat(events []Event) *assembly {
	a := newAssembly(Chat)
	m := &a.msg
	st := map[int]*chatChoiceState{}
	state := func(i int) *chatChoiceState {
		s := st[i]
		if s == nil {
			s = &chatChoiceState{finished: -1, tools: map[int]int{}, lastArgs: map[int]string{}, cumulative: map[int]int{}}
			st[i] = s
		}
		return s
	}
	allFinished := func() bool {
		if len(st) == 0 {
			return false
		}
		for _, s := range st {
			if s.finished < 0 {
				return false
			}
		}
		return true
	}
	for i, e := range events {
		if a.terminal >= 0 {
			a.flag("stream.after-terminal", i, clip(e.Data, 120), "event after [DONE]: clients stop reading at [DONE], so this is lost")
			continue
		}
		if isDone(e.Data) {
			a.terminal = i
			m.Status = "done"
			continue
		}
		if strings.TrimSpace(e.Data) == `"[DONE]"` {
			a.flag("chat.bad-done", i, e.Data, "the terminator is quoted (\"[DONE]\"): clients do not recognise it")
			continue
		}
		if !gjson.Valid(e.Data) {
			a.flag("payload.invalid-json", i, clip(e.Data, 120), "event data is not valid JSON: clients skip or fail on it")
			continue
		}
		r := gjson.Parse(e.Data)
		if m.ID == "" {
			m.ID = r.Get("id").String()
		}
		if m.Model == "" {
			m.Model = r.Get("model").String()
		}
		choices := r.Get("choices")
		if errv := r.Get("error"); errv.Exists() && !choices.Exists() || e.Name == "error" {
			m.Error = errorText(r.Get("error"))
			a.flag("stream.error-event", i, clip(e.Data, 160), "the stream carries an error: %s", m.Error)
			continue
		}
		if u := r.Get("usage"); u.IsObject() {
			m.Usage = chatUsage(u)
			if !allFinished() && len(choices.Array()) == 0 {
				a.flag("chat.usage-before-finish", i, "", "usage chunk arrives before every choice has a finish_reason")
			}
		}
		choices.ForEach(func(_, c gjson.Result) bool {
			idx := int(c.Get("index").Int())
			ch := m.choice(idx)
			s := state(idx)
			d := c.Get("delta")
			tcs := d.Get("tool_calls")
			content := d.Get("content")
			if s.finished >= 0 && (content.String() != "" || len(tcs.Array()) > 0) {
				a.flag("chat.after-finish", i, clip(d.Raw, 120), "choice %d gets content after its finish_reason (event %d): VS Code ignores it", idx, s.finished)
			}
			if role := d.Get("role").String(); role != "" {
				s.roleEvents++
				if s.roleEvents == 2 {
					a.flag("chat.repeated-fields", i, `"role":"`+role+`"`, "role is repeated in a later delta: openai-python concatenates it (%q)", role+role)
				}
				ch.Role = role
			}
			if content.Type == gjson.String {
				txt := content.String()
				if txt != "" {
					ch.spans = append(ch.spans, span{At: s.text.Len(), Event: i})
					s.text.WriteString(txt)
				}
				if strings.HasSuffix(txt, "\r") {
					a.flag("chat.trailing-cr", i, quoteTail(txt), "content delta ends in \\r: VS Code strips it, so its text differs")
				}
				if tcs.Exists() && txt != "" {
					a.flag("chat.content-with-tool-calls", i, clip(d.Raw, 160), "content and tool_calls in one delta: VS Code drops the content %q", clip(txt, 40))
				}
			}
			for _, k := range []string{"reasoning_content", "reasoning"} {
				if v := d.Get(k); v.Type == gjson.String {
					ch.Reasoning += v.String()
				}
			}
			if v := d.Get("refusal"); v.Type == gjson.String {
				ch.Refusal += v.String()
			}
			tcs.ForEach(func(_, tc gjson.Result) bool {
				ti := 0
				if v := tc.Get("index"); v.Exists() {
					ti = int(v.Int())
				} else {
					a.flagOnce("chat.tool-index-missing", i, clip(tc.Raw, 120), "tool call delta has no index: SDKs file it under 0")
				}
				pos, ok := s.tools[ti]
				if !ok {
					if len(s.toolOrder) == 0 && ti != 0 {
						a.flag("chat.index-not-zero", i, clip(tc.Raw, 120), "first tool call has index %d, not 0: openai-python splits it into two entries", ti)
					} else if len(s.toolOrder) > 0 && ti != s.toolOrder[len(s.toolOrder)-1]+1 {
						a.flag("chat.index-not-zero", i, clip(tc.Raw, 120), "tool index jumps from %d to %d (a gap)", s.toolOrder[len(s.toolOrder)-1], ti)
					}
					pos = len(ch.ToolCalls)
					s.tools[ti] = pos
					s.toolOrder = append(s.toolOrder, ti)
					ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: ti})
				}
				call := &ch.ToolCalls[pos]
				if id := tc.Get("id").String(); id != "" {
					switch {
					case call.ID == "":
						call.ID = id
					case call.ID != id:
						a.flag("chat.index-id-conflict", i, "index "+itoa(ti)+": "+call.ID+" then "+id,
							"tool index %d carries a second id: index-keyed SDKs merge two calls, VS Code keeps them apart", ti)
					default:
						a.flagOnce("chat.repeated-fields", i, `"id":"`+id+`"`, "tool call id is repeated in a later delta: openai-python concatenates it")
					}
				}
				if name := tc.Get("function.name").String(); name != "" {
					switch {
					case call.Name == "":
						call.Name = name
					default:
						a.flagOnce("chat.repeated-fields", i, `"name":"`+name+`"`, "tool name is sent again in a later delta: openai-python and openai-go concatenate names, node and VS Code overwrite")
						call.Name = name
					}
				}
				if args := tc.Get("function.arguments"); args.Type == gjson.String {
					frag := args.String()
					prev := call.Arguments
					if prev != "" && len(frag) > len(prev) && strings.HasPrefix(frag, prev) {
						s.cumulative[ti]++
						if s.cumulative[ti] == 2 {
							a.flag("chat.cumulative-args", i, clip(frag, 80), "tool %d arguments look cumulative (each delta repeats the previous ones): clients concatenate them into invalid JSON", ti)
						}
					}
					call.Arguments += frag
				}
				return true
			})
			if fr := c.Get("finish_reason").String(); fr != "" {
				if s.finished < 0 {
					s.finished = i
				}
				ch.FinishReason = fr
				if (fr == "length" || fr == "content_filter") && len(ch.ToolCalls) > 0 {
					a.flag("chat.finish-length-tools", i, `"finish_reason":"`+fr+`"`, "finish_reason %s while tool calls are open: VS Code drops the calls, openai-python raises", fr)
				}
			}
			return true
		})
	}
	for k := range m.Choices {
		if s := st[m.Choices[k].Index]; s != nil {
			m.Choices[k].Text = s.text.String()
		}
	}
	sort.Slice(m.Choices, func(i, j int) bool { return m.Choices[i].Index < m.Choices[j].Index })
	last := len(events) - 1
	if a.terminal < 0 && len(events) > 0 {
		a.flag("stream.no-terminal", last, "", "no data: [DONE] at the end of the stream")
	}
	for _, ch := range m.Choices {
		s := st[ch.Index]
		if ch.FinishReason == "" {
			a.flag("chat.finish-missing", last, "", "choice %d has no finish_reason: openai-node throws, VS Code drops tool calls", ch.Index)
		}
		for _, tc := range ch.ToolCalls {
			if tc.Arguments != "" && !validJSON(tc.Arguments) && (s == nil || s.cumulative[tc.Index] < 2) {
				a.flag("tool.args-invalid-json", last, clip(tc.Arguments, 120), "tool call %d (%s) arguments are not valid JSON", tc.Index, tc.Name)
			}
		}
	}
	return a
}

func itoa(i int) string {
	return strconvItoa(i)
}

// quoteTail shows the last few bytes of s, quoted, so control characters
// are visible.
func quoteTail(s string) string {
	if len(s) > 24 {
		s = "…" + s[len(s)-24:]
	}
	return strconvQuote(s)
}
