package protocol

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/tidwall/gjson"
)

// respItem is one output item being assembled from a Responses stream.
type respItem struct {
	outIndex int
	typ      string
	id       string
	callID   string
	name     string
	args     strings.Builder
	parts    map[int]*respPart
	reason   strings.Builder
	added    bool
	done     bool
	final    RawJSON // the output_item.done item
	born     Born
	reasonAt Born
	refuseAt Born
}

type respPart struct {
	text    spanText
	refusal strings.Builder
}

func (it *respItem) part(ci int) *respPart {
	if it.parts == nil {
		it.parts = map[int]*respPart{}
	}
	p := it.parts[ci]
	if p == nil {
		p = &respPart{}
		it.parts[ci] = p
	}
	return p
}

func (it *respItem) sortedParts() []int { return slices.Sorted(maps.Keys(it.parts)) }

// assembleResponses follows protocols.md §3.3: items by output_index, text
// parts by content_index (item_id is not used for routing, as GitHub
// Copilot rotates it), function-call arguments joined, reasoning summary
// joined. Each *.done, output_item.done and response.completed payload is
// checked against what the deltas built; response.completed becomes Final.
// The hosted tools' items (serverToolItems) are ServerTools, not tool
// calls.
func assembleResponses(se *Side) *Assembly {
	events, objs := se.Events, se.ObjEvents()
	a := newAssembly(Responses)
	m := &a.Message
	items := map[int]*respItem{}
	item := func(oi int) *respItem {
		it := items[oi]
		if it == nil {
			it = &respItem{outIndex: oi}
			items[oi] = it
		}
		return it
	}
	lastSeq := int64(-1)
	rotations := 0
	for i := range events {
		e, r := &events[i], &objs[i]
		if a.Terminal >= 0 {
			if IsDone(e.Data) {
				// OpenRouter ends its Responses streams so: the SDKs read
				// to the terminal event and stop, and nothing is lost.
				a.flag("stream.trailing-done", i, e.Data, "data: [DONE] after the terminal response event (a Chat Completions terminator; the SDKs stop before it)")
				continue
			}
			a.flag("stream.after-terminal", i, excerpt.Clip(e.Data, 120), "event after the terminal response event")
			continue
		}
		if IsDone(e.Data) {
			a.flag("responses.untyped-data", i, e.Data, "data: [DONE] in a Responses stream (a Chat Completions terminator; Responses has none)")
			continue
		}
		if !r.Valid {
			a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "event data is not valid JSON: VS Code rejects the whole response")
			continue
		}
		typ := r.Type
		if typ == "" {
			a.flag("responses.untyped-data", i, excerpt.Clip(e.Data, 120), "payload without a type in a Responses stream (protocol mixing)")
			if r.Err.Exists() {
				m.Error = ErrorText(r.Err.Result())
			}
			continue
		}
		if e.Name != "" && e.Name != "message" && e.Name != typ {
			a.flagOnce("stream.event-name-mismatch", i, "event: "+e.Name+" / type: "+typ, "SSE event name differs from the JSON type")
		}
		if r.HasSeq {
			n := r.Seq
			if lastSeq >= 0 && n != lastSeq+1 {
				a.flag("responses.sequence", i, "sequence_number "+strconv.Itoa(int(lastSeq))+" then "+strconv.Itoa(int(n)), "sequence_number does not increase by one")
			}
			lastSeq = n
		}
		oi := r.OutputIndex
		if typ == "response.output_item.added" || typ == "response.output_item.done" || strings.HasPrefix(typ, "response.function_call_arguments.") || strings.HasPrefix(typ, "response.custom_tool_call_input.") {
			item(oi).born.Add(i)
		}
		checkID := func(it *respItem) {
			if id := r.ItemID; id != "" && it.id != "" && id != it.id {
				rotations++
				if rotations == 1 {
					a.flag("responses.item-id-rotation", i, it.id+" then "+id, "item_id changes between events of one item: route by output_index (strict openai-node throws)")
				}
			}
		}
		switch typ {
		case "response.created", "response.in_progress", "response.queued":
			if m.ID == "" {
				m.ID = r.Response.Get("id").String()
			}
			if m.Model == "" {
				m.Model = r.Response.Get("model").String()
			}
		case "response.output_item.added":
			it := item(oi)
			it.added = true
			var f [4]gjson.Result
			jsontext.GetFields(r.Item.Result(), []string{"type", "id", "call_id", "name"}, f[:])
			it.typ = f[0].String()
			it.id = f[1].String()
			it.callID = f[2].String()
			it.name = f[3].String()
		case "response.content_part.added":
			it := item(oi)
			checkID(it)
			it.part(r.ContentIndex)
		case "response.output_text.delta", "response.refusal.delta":
			it := item(oi)
			if !it.added {
				a.flagOnce("responses.nonstandard-shape", i, excerpt.Clip(e.Data, 120), "text delta for an output item that was never added (no output_item.added)")
				it.typ = "message"
			}
			if !r.HasContentIndex {
				a.flagOnce("responses.nonstandard-shape", i, excerpt.Clip(e.Data, 120), "text delta without content_index")
			}
			checkID(it)
			p := it.part(r.ContentIndex)
			d := r.Delta.String()
			if typ == "response.refusal.delta" {
				p.refusal.WriteString(d)
				it.refuseAt.Add(i)
			} else {
				p.text.add(d, i)
			}
		case "response.output_text.done", "response.refusal.done":
			it := item(oi)
			p := it.part(r.ContentIndex)
			v, got := r.Text, p.text.String()
			if typ == "response.refusal.done" {
				v, got = r.Refusal, p.refusal.String()
			}
			if v.Exists() && v.String() != got {
				a.flag("final.mismatch", i, diffEvidence(got, v.String()), "%s differs from the joined deltas of output %d", typ, oi)
			}
		case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			it := item(oi)
			checkID(it)
			it.args.WriteString(r.Delta.String())
		case "response.function_call_arguments.done":
			it := item(oi)
			if v := r.Arguments; v.Exists() && v.String() != it.args.String() {
				a.flag("final.mismatch", i, diffEvidence(it.args.String(), v.String()), "function_call_arguments.done differs from the joined deltas of output %d", oi)
			}
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			it := item(oi)
			if it.typ == "" {
				it.typ = "reasoning"
			}
			it.reason.WriteString(r.Delta.String())
			it.reasonAt.Add(i)
		case "response.output_item.done":
			it := item(oi)
			it.done = true
			it.final = r.Item
			compareItem(a, i, it, r.Item.Result())
			var f [3]gjson.Result
			jsontext.GetFields(r.Item.Result(), []string{"type", "name", "call_id"}, f[:])
			if it.typ == "" {
				it.typ = f[0].String()
			}
			if it.name == "" {
				it.name = f[1].String()
			}
			if it.callID == "" {
				it.callID = f[2].String()
			}
		case "response.completed", "response.incomplete", "response.failed":
			a.Terminal = i
			fin := ResponsesFinal(r.Response.Result())
			m.Status = fin.Status
			m.Usage = fin.Usage
			if m.Usage != nil {
				m.UsageBorn.Add(i)
			}
			if m.Model == "" {
				m.Model = fin.Model
			}
			if m.ID == "" {
				m.ID = fin.ID
			}
			m.Final = fin
			if typ != "response.completed" {
				m.Error = fin.Error
				m.ErrorBorn.Add(i)
				a.flag("responses.failed", i, excerpt.Clip(r.Response.Get("error").Raw+r.Response.Get("incomplete_details").Raw, 160), "stream ended with %s (status %s)", typ, fin.Status)
			}
			fr := r.Response.Get("output")
			fr.ForEach(func(k, o gjson.Result) bool {
				it, ok := items[int(k.Int())]
				if ok {
					compareItem(a, i, it, o)
				}
				if typ := o.Get("type").String(); serverToolItems[typ] != "" {
					// The server's copy is authoritative, and a server tool
					// may show up only here.
					if !ok {
						it = item(int(k.Int()))
						it.typ = typ
					}
					it.final = RawJSON(o.Raw)
				}
				return true
			})
		case "error":
			err := ErrorText(r.Err.Result())
			if err == "" {
				err = ErrorText(gjson.Parse(e.Data))
			}
			a.inBandError(i, e.Data, err, "the stream carries an error event")
		}
	}
	a.noTerminal(len(events), "no response.completed, response.incomplete or response.failed event")
	// Build the message in output order.
	ch := m.choice(0)
	ch.Role = "assistant"
	var text spanText
	var reasoning, refusal strings.Builder
	for _, k := range slices.Sorted(maps.Keys(items)) {
		it := items[k]
		switch {
		case it.typ == "function_call" || it.typ == "custom_tool_call" || it.args.Len() > 0 && it.typ == "":
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: k, ID: it.callID, Name: it.name, Arguments: it.args.String(), Custom: it.typ == "custom_tool_call", Born: it.born})
		case serverToolItems[it.typ] != "":
			st := serverToolItem(k, it.final.Result())
			if st.ID == "" {
				st.ID = it.id
			}
			if st.Name == "" { // cut before its output_item.done
				st.Name = serverToolItems[it.typ]
			}
			st.Born = it.born
			ch.ServerTools = append(ch.ServerTools, st)
		case it.typ == "reasoning":
			reasoning.WriteString(it.reason.String())
			ch.ReasoningBorn.join(it.reasonAt)
		default:
			for _, ci := range it.sortedParts() {
				p := it.parts[ci]
				text.join(&p.text)
				refusal.WriteString(p.refusal.String())
			}
			reasoning.WriteString(it.reason.String())
			ch.ReasoningBorn.join(it.reasonAt)
			ch.RefusalBorn.join(it.refuseAt)
		}
	}
	ch.Text, ch.Spans, ch.Reasoning, ch.Refusal = text.String(), text.spans, reasoning.String(), refusal.String()
	ch.FinishReason = m.Status
	ch.FinishBorn.Add(a.Terminal)
	return a
}

// compareItem checks an item payload (output_item.done or an entry of
// response.completed output) against the item assembled from deltas.
func compareItem(a *Assembly, ev int, it *respItem, o gjson.Result) {
	var f [3]gjson.Result
	jsontext.GetFields(o, []string{"type", "arguments", "content"}, f[:])
	content := f[2]
	switch f[0].String() {
	case "function_call":
		if v := f[1]; v.Exists() && v.String() != it.args.String() {
			a.flag("final.mismatch", ev, diffEvidence(it.args.String(), v.String()), "final arguments of output %d differ from the joined deltas", it.outIndex)
		}
	case "message":
		var gb, wb strings.Builder
		for _, ci := range it.sortedParts() {
			gb.WriteString(it.parts[ci].text.String())
		}
		content.ForEach(func(_, c gjson.Result) bool {
			if c.Get("type").String() == "output_text" {
				wb.WriteString(c.Get("text").String())
			}
			return true
		})
		got, want := gb.String(), wb.String()
		if want != got {
			a.flag("final.mismatch", ev, diffEvidence(got, want), "final text of output %d differs from the joined deltas", it.outIndex)
		}
		content.ForEach(func(_, c gjson.Result) bool {
			if t := c.Get("type").String(); t != "output_text" && t != "refusal" {
				a.flagOnce("responses.nonstandard-shape", ev, excerpt.Clip(c.Raw, 120), "message content holds a %q part, which is not a Responses API content type", t)
			}
			return true
		})
	}
}

// ResponsesFinal builds a Message from a Responses response object.
func ResponsesFinal(r gjson.Result) *Message {
	var f [7]gjson.Result
	jsontext.GetFields(r, []string{"id", "model", "status", "error", "incomplete_details", "output", "usage"}, f[:])
	m := &Message{Protocol: Responses, ID: f[0].String(), Model: f[1].String(), Status: f[2].String()}
	if e := f[3]; e.IsObject() {
		m.Error = ErrorText(e)
	}
	if reason := f[4].Get("reason").String(); reason != "" {
		m.Error = "incomplete: " + reason
	}
	ch := m.choice(0)
	ch.Role = "assistant"
	var text, reasoning, refusal strings.Builder
	f[5].ForEach(func(k, o gjson.Result) bool {
		switch o.Get("type").String() {
		case "function_call":
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: int(k.Int()), ID: o.Get("call_id").String(), Name: o.Get("name").String(), Arguments: o.Get("arguments").String()})
		case "custom_tool_call":
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: int(k.Int()), ID: o.Get("call_id").String(), Name: o.Get("name").String(), Arguments: o.Get("input").String(), Custom: true})
		case "web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call", "mcp_list_tools":
			ch.ServerTools = append(ch.ServerTools, serverToolItem(int(k.Int()), o))
		case "reasoning":
			o.Get("summary").ForEach(func(_, s gjson.Result) bool {
				reasoning.WriteString(s.Get("text").String())
				return true
			})
		case "message":
			o.Get("content").ForEach(func(_, c gjson.Result) bool {
				switch c.Get("type").String() {
				case "output_text":
					text.WriteString(c.Get("text").String())
				case "refusal":
					refusal.WriteString(c.Get("refusal").String())
				}
				return true
			})
		}
		return true
	})
	ch.Text, ch.Reasoning, ch.Refusal = text.String(), reasoning.String(), refusal.String()
	ch.FinishReason = m.Status
	if u := f[6]; u.IsObject() {
		m.Usage = &Usage{Input: int(u.Get("input_tokens").Int()), Output: int(u.Get("output_tokens").Int()),
			Total: int(u.Get("total_tokens").Int()), Reasoning: int(u.Get("output_tokens_details.reasoning_tokens").Int()),
			CacheRead: int(u.Get("input_tokens_details.cached_tokens").Int())}
	}
	return m
}

// serverToolItems names the Responses output items of the tools OpenAI
// runs itself (the hosted tools of the Responses API: the SDK types
// ResponseFunctionWebSearch, ResponseFileSearchToolCall,
// ResponseCodeInterpreterToolCall, ImageGenerationCall, McpCall,
// McpListTools), with the tool's name. Their results come back within the
// same response: the client answers none of them. The calls the client
// runs (function_call, custom_tool_call, and the local shell, computer and
// apply_patch calls) are not here.
var serverToolItems = map[string]string{
	"web_search_call":       "web_search",
	"file_search_call":      "file_search",
	"code_interpreter_call": "code_interpreter",
	"image_generation_call": "image_generation",
	"mcp_call":              "mcp",
	"mcp_list_tools":        "mcp_list_tools",
}

// serverToolItem reads a hosted tool's output item (its
// output_item.done or response.completed copy): the tool's name, what it
// was given (the search query, the file search queries, the code, an MCP
// call's arguments) and its status.
func serverToolItem(index int, o gjson.Result) ServerTool {
	var f [10]gjson.Result
	jsontext.GetFields(o, []string{"type", "id", "status", "action", "queries", "code", "name", "arguments", "server_label", "error"}, f[:])
	st := ServerTool{Index: index, ID: f[1].String(), Name: serverToolItems[f[0].String()], Result: f[2].String()}
	switch f[0].String() {
	case "web_search_call":
		for _, k := range []string{"query", "url", "pattern"} {
			if v := f[3].Get(k); v.Type == gjson.String {
				st.Input = v.String()
				break
			}
		}
	case "file_search_call":
		if f[4].IsArray() {
			st.Input = f[4].Raw
		}
	case "code_interpreter_call":
		st.Input = f[5].String()
	case "mcp_call":
		if n := f[6].String(); n != "" {
			st.Name = n
		}
		st.Input = f[7].String()
		if e := f[9]; e.Exists() && e.Type != gjson.Null {
			st.Result = "error: " + excerpt.Clip(ErrorText(e), 80)
		}
	case "mcp_list_tools":
		st.Input = f[8].String()
	}
	return st
}

// diffEvidence shows where two strings first differ.
func diffEvidence(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := i - 20
	if from < 0 {
		from = 0
	}
	for from > 0 && !utf8.RuneStart(got[from]) {
		from--
	}
	g, w := got[from:], want[from:]
	return "deltas: " + strconv.Quote(excerpt.Clip(g, 60)) + " / final: " + strconv.Quote(excerpt.Clip(w, 60)) + " (at byte " + strconv.Itoa(i) + ")"
}
