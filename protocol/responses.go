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

// respState is the assembly state of a Responses stream.
type respState struct {
	a         *Assembly
	m         *Message
	objs      []ObjEvent
	items     map[int]*respItem
	lastSeq   int64
	rotations int
}

// responsesHandlers route by the payload's type.
var responsesHandlers = handlers[respState, ObjEvent]{
	decode: func(s *respState, i int, _ *Event) (*ObjEvent, bool) {
		r := &s.objs[i]
		return r, r.Valid
	},
	typeOf: func(r *ObjEvent, _ *Event) string { return r.Type },
	own:    (*respState).own,
	each:   (*respState).each,
	on: map[string]func(*respState, int, *Event, *ObjEvent){
		"response.created":                       (*respState).created,
		"response.in_progress":                   (*respState).created,
		"response.queued":                        (*respState).created,
		"response.output_item.added":             (*respState).itemAdded,
		"response.content_part.added":            (*respState).partAdded,
		"response.output_text.delta":             (*respState).textDelta,
		"response.refusal.delta":                 (*respState).textDelta,
		"response.output_text.done":              (*respState).textDone,
		"response.refusal.done":                  (*respState).textDone,
		"response.function_call_arguments.delta": (*respState).argsDelta,
		"response.custom_tool_call_input.delta":  (*respState).argsDelta,
		"response.function_call_arguments.done":  (*respState).argsDone,
		"response.reasoning_summary_text.delta":  (*respState).reasoningDelta,
		"response.reasoning_text.delta":          (*respState).reasoningDelta,
		"response.output_item.done":              (*respState).itemDone,
		"response.completed":                     (*respState).ended,
		"response.incomplete":                    (*respState).ended,
		"response.failed":                        (*respState).ended,
		"error":                                  (*respState).errorEvent,
	},
	finish: (*respState).finish,
}

// assembleResponses follows docs/PROTOCOLS.md#responses: items by
// output_index, text parts by content_index (item_id is not used for
// routing, as GitHub Copilot rotates it), function-call arguments joined,
// reasoning summary joined. Each *.done, output_item.done and
// response.completed payload is checked against what the deltas built;
// response.completed becomes Final. The hosted tools' items
// (serverToolItems) are ServerTools, not tool calls.
func assembleResponses(se *Side) *Assembly {
	a := newAssembly(Responses)
	s := &respState{a: a, m: &a.Message, objs: se.ObjEvents(), items: map[int]*respItem{}, lastSeq: -1}
	drive(a, &responsesFamily, se.Events, s, &responsesHandlers)
	return a
}

// item returns output item oi.
func (s *respState) item(oi int) *respItem {
	it := s.items[oi]
	if it == nil {
		it = &respItem{outIndex: oi}
		s.items[oi] = it
	}
	return it
}

// own raises the Responses detectors responsesFamily calls for: a data:
// [DONE] or a payload without a type (whose error, if it has one, is the
// message's).
func (s *respState) own(k own, i int, e *Event, _ string) {
	switch k {
	case ownDone:
		s.a.flag("responses.untyped-data", i, e.Data, "data: [DONE] in a Responses stream (a Chat Completions terminator; Responses has none)")
	case ownUntyped:
		s.a.flag("responses.untyped-data", i, excerpt.Clip(e.Data, 120), "payload without a type in a Responses stream (protocol mixing)")
		if r := &s.objs[i]; r.Err.Exists() {
			s.m.Error = ErrorText(r.Err.Result())
		}
	}
}

// each checks the sequence numbers and notes the events that open and add
// to an output item.
func (s *respState) each(i int, _ *Event, r *ObjEvent) {
	if r.HasSeq {
		n := r.Seq
		if s.lastSeq >= 0 && n != s.lastSeq+1 {
			s.a.flag("responses.sequence", i, "sequence_number "+strconv.Itoa(int(s.lastSeq))+" then "+strconv.Itoa(int(n)), "sequence_number does not increase by one")
		}
		s.lastSeq = n
	}
	typ := r.Type
	if typ == "response.output_item.added" || typ == "response.output_item.done" || strings.HasPrefix(typ, "response.function_call_arguments.") || strings.HasPrefix(typ, "response.custom_tool_call_input.") {
		s.item(r.OutputIndex).born.Add(i)
	}
}

// checkID flags an event naming another item_id than its item's.
func (s *respState) checkID(i int, it *respItem, r *ObjEvent) {
	if id := r.ItemID; id != "" && it.id != "" && id != it.id {
		s.rotations++
		if s.rotations == 1 {
			s.a.flag("responses.item-id-rotation", i, it.id+" then "+id, "item_id changes between events of one item: route by output_index (strict openai-node throws)")
		}
	}
}

func (s *respState) created(_ int, _ *Event, r *ObjEvent) {
	if s.m.ID == "" {
		s.m.ID = r.Response.Get("id").String()
	}
	if s.m.Model == "" {
		s.m.Model = r.Response.Get("model").String()
	}
}

func (s *respState) itemAdded(_ int, _ *Event, r *ObjEvent) {
	it := s.item(r.OutputIndex)
	it.added = true
	var f [4]gjson.Result
	jsontext.GetFields(r.Item.Result(), []string{"type", "id", "call_id", "name"}, f[:])
	it.typ = f[0].String()
	it.id = f[1].String()
	it.callID = f[2].String()
	it.name = f[3].String()
}

func (s *respState) partAdded(i int, _ *Event, r *ObjEvent) {
	it := s.item(r.OutputIndex)
	s.checkID(i, it, r)
	it.part(r.ContentIndex)
}

// textDelta reads response.output_text.delta and response.refusal.delta.
func (s *respState) textDelta(i int, e *Event, r *ObjEvent) {
	it := s.item(r.OutputIndex)
	if !it.added {
		s.a.flagOnce("responses.nonstandard-shape", i, excerpt.Clip(e.Data, 120), "text delta for an output item that was never added (no output_item.added)")
		it.typ = "message"
	}
	if !r.HasContentIndex {
		s.a.flagOnce("responses.nonstandard-shape", i, excerpt.Clip(e.Data, 120), "text delta without content_index")
	}
	s.checkID(i, it, r)
	p := it.part(r.ContentIndex)
	d := r.Delta.String()
	if r.Type == "response.refusal.delta" {
		p.refusal.WriteString(d)
		it.refuseAt.Add(i)
	} else {
		p.text.add(d, i)
	}
}

// textDone checks response.output_text.done and response.refusal.done
// against the joined deltas.
func (s *respState) textDone(i int, _ *Event, r *ObjEvent) {
	typ, oi := r.Type, r.OutputIndex
	p := s.item(oi).part(r.ContentIndex)
	v, got := r.Text, p.text.String()
	if typ == "response.refusal.done" {
		v, got = r.Refusal, p.refusal.String()
	}
	if v.Exists() && v.String() != got {
		s.a.flag("final.mismatch", i, diffEvidence(got, v.String()), "%s differs from the joined deltas of output %d", typ, oi)
	}
}

func (s *respState) argsDelta(i int, _ *Event, r *ObjEvent) {
	it := s.item(r.OutputIndex)
	s.checkID(i, it, r)
	it.args.WriteString(r.Delta.String())
}

func (s *respState) argsDone(i int, _ *Event, r *ObjEvent) {
	oi := r.OutputIndex
	it := s.item(oi)
	if v := r.Arguments; v.Exists() && v.String() != it.args.String() {
		s.a.flag("final.mismatch", i, diffEvidence(it.args.String(), v.String()), "function_call_arguments.done differs from the joined deltas of output %d", oi)
	}
}

func (s *respState) reasoningDelta(i int, _ *Event, r *ObjEvent) {
	it := s.item(r.OutputIndex)
	if it.typ == "" {
		it.typ = "reasoning"
	}
	it.reason.WriteString(r.Delta.String())
	it.reasonAt.Add(i)
}

func (s *respState) itemDone(i int, _ *Event, r *ObjEvent) {
	it := s.item(r.OutputIndex)
	it.done = true
	it.final = r.Item
	compareItem(s.a, i, it, r.Item.Result())
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
}

// ended reads the terminal event (response.completed, .incomplete or
// .failed): its response is the Final message, checked item by item.
func (s *respState) ended(i int, _ *Event, r *ObjEvent) {
	a, m, typ := s.a, s.m, r.Type
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
		it, ok := s.items[int(k.Int())]
		if ok {
			compareItem(a, i, it, o)
		}
		if typ := o.Get("type").String(); serverToolItems[typ] != "" {
			// The server's copy is authoritative, and a server tool
			// may show up only here.
			if !ok {
				it = s.item(int(k.Int()))
				it.typ = typ
			}
			it.final = RawJSON(o.Raw)
		}
		return true
	})
}

func (s *respState) errorEvent(i int, e *Event, r *ObjEvent) {
	err := ErrorText(r.Err.Result())
	if err == "" {
		err = ErrorText(gjson.Parse(e.Data))
	}
	s.a.inBandError(i, e.Data, err, "the stream carries an error event")
}

// finish builds the message from the items in output order.
func (s *respState) finish(int) {
	m := s.m
	ch := m.choice(0)
	ch.Role = "assistant"
	var text spanText
	var reasoning, refusal strings.Builder
	for _, k := range slices.Sorted(maps.Keys(s.items)) {
		it := s.items[k]
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
	ch.FinishBorn.Add(s.a.Terminal)
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
