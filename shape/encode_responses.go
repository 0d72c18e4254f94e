package shape

import (
	"strconv"
	"strings"

	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// responsesEncoder writes an OpenAI Responses event stream: created and
// in_progress first, one output item per run of text (message), reasoning or
// tool call, in output_index order, each closed before the next opens, and a
// terminal response.completed (or incomplete/failed) carrying the full
// output. Every event has a sequence_number. Ids are derived from the
// upstream response id, so the output is byte-stable.
type responsesEncoder struct {
	started bool
	seq     int
	items   []respItem
	open    int // index in items of the open item, or -1 when none (valid once started)
	reason  string
	usage   string
	done    bool
	// id is the response id derived from idFrom, the upstream id it was
	// last derived from (the upstream id is learned with the first event
	// decoded, which may come after comments were already written).
	id, idFrom string
}

type respItem struct {
	// kind is message, reasoning, function_call, refusal (a message whose
	// content is one refusal part) or raw (an item forwarded as it came,
	// kept for response.completed).
	kind           string
	raw            string // the item's JSON, for raw
	id, callID     string
	name           string
	text           strings.Builder
	toolIndex, chc int
	closed         bool
}

// respID returns the response id for the upstream id m.ID, derived once
// per upstream id.
func (r *responsesEncoder) respID(m *Meta) string {
	if r.started && r.idFrom == m.ID {
		return r.id
	}
	r.idFrom, r.id = m.ID, deriveRespID(m.ID)
	return r.id
}

// deriveRespID makes a Responses id from an upstream response id.
func deriveRespID(id string) string {
	if strings.HasPrefix(id, "resp_") {
		return id
	}
	id = strings.TrimPrefix(id, "chatcmpl-")
	var b strings.Builder
	b.WriteString("resp_")
	for _, c := range []byte(id) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (r *responsesEncoder) head(f *frames, typ string) {
	typed(f, typ)
	f.buf = append(f.buf, `,"sequence_number":`...)
	f.buf = appendInt(f.buf, r.seq)
	r.seq++
}

func (r *responsesEncoder) response(f *frames, m *Meta, status string, full bool) {
	f.buf = append(f.buf, `,"response":{"id":`...)
	f.buf = tape.AppendJSONString(f.buf, r.respID(m))
	f.buf = append(f.buf, `,"object":"response","created_at":`...)
	f.buf = appendRawOr(f.buf, m.Created, "0")
	f.buf = append(f.buf, `,"status":`...)
	f.buf = tape.AppendJSONString(f.buf, status)
	f.buf = append(f.buf, `,"model":`...)
	f.buf = tape.AppendJSONString(f.buf, m.Model)
	if status == "incomplete" {
		reason := "max_output_tokens"
		if r.reason == "content_filter" {
			reason = "content_filter"
		}
		f.buf = append(f.buf, `,"incomplete_details":{"reason":`...)
		f.buf = tape.AppendJSONString(f.buf, reason)
		f.buf = append(f.buf, '}')
	}
	f.buf = append(f.buf, `,"output":[`...)
	if full {
		for i := range r.items {
			if i > 0 {
				f.buf = append(f.buf, ',')
			}
			r.item(f, &r.items[i], "completed")
		}
	}
	f.buf = append(f.buf, `],"usage":`...)
	if full && r.usage != "" {
		f.buf = append(f.buf, r.usage...)
	} else {
		f.buf = append(f.buf, "null"...)
	}
	f.buf = append(f.buf, '}')
}

// item writes an output item's JSON; status "in_progress" writes the empty
// form used by output_item.added.
func (r *responsesEncoder) item(f *frames, it *respItem, status string) {
	if it.kind == "raw" {
		f.buf = append(f.buf, it.raw...)
		return
	}
	full := status == "completed"
	f.buf = append(f.buf, `{"id":`...)
	f.buf = tape.AppendJSONString(f.buf, it.id)
	f.buf = append(f.buf, `,"type":`...)
	if it.kind == "refusal" {
		f.buf = tape.AppendJSONString(f.buf, "message")
	} else {
		f.buf = tape.AppendJSONString(f.buf, it.kind)
	}
	f.buf = append(f.buf, `,"status":`...)
	f.buf = tape.AppendJSONString(f.buf, status)
	switch it.kind {
	case "message":
		f.buf = append(f.buf, `,"role":"assistant","content":[`...)
		if full {
			f.buf = append(f.buf, `{"type":"output_text","text":`...)
			f.buf = tape.AppendJSONString(f.buf, it.text.String())
			f.buf = append(f.buf, `,"annotations":[]}`...)
		}
		f.buf = append(f.buf, ']')
	case "refusal":
		f.buf = append(f.buf, `,"role":"assistant","content":[`...)
		if full {
			f.buf = append(f.buf, `{"type":"refusal","refusal":`...)
			f.buf = tape.AppendJSONString(f.buf, it.text.String())
			f.buf = append(f.buf, '}')
		}
		f.buf = append(f.buf, ']')
	case "reasoning":
		f.buf = append(f.buf, `,"summary":[`...)
		if full {
			f.buf = append(f.buf, `{"type":"summary_text","text":`...)
			f.buf = tape.AppendJSONString(f.buf, it.text.String())
			f.buf = append(f.buf, '}')
		}
		f.buf = append(f.buf, ']')
	case "function_call":
		f.buf = append(f.buf, `,"arguments":`...)
		if full {
			f.buf = tape.AppendJSONString(f.buf, it.text.String())
		} else {
			f.buf = append(f.buf, `""`...)
		}
		f.buf = append(f.buf, `,"call_id":`...)
		f.buf = tape.AppendJSONString(f.buf, it.callID)
		f.buf = append(f.buf, `,"name":`...)
		f.buf = tape.AppendJSONString(f.buf, it.name)
	}
	f.buf = append(f.buf, '}')
}

func (r *responsesEncoder) ensureStarted(f *frames, m *Meta) {
	if r.started {
		return
	}
	r.started = true
	r.open = -1
	r.idFrom, r.id = m.ID, deriveRespID(m.ID)
	r.head(f, "response.created")
	r.response(f, m, "in_progress", false)
	endTyped(f)
	r.head(f, "response.in_progress")
	r.response(f, m, "in_progress", false)
	endTyped(f)
}

func (r *responsesEncoder) itemRef(f *frames, oi int, it *respItem) {
	f.buf = append(f.buf, `,"item_id":`...)
	f.buf = tape.AppendJSONString(f.buf, it.id)
	f.buf = append(f.buf, `,"output_index":`...)
	f.buf = appendInt(f.buf, oi)
}

// openItem closes the open item unless it is of kind (and, for calls, the
// same call) and opens a new one.
func (r *responsesEncoder) openItem(f *frames, m *Meta, kind string, e *Event) int {
	if r.open >= 0 {
		it := &r.items[r.open]
		if it.kind == kind && kind != "function_call" {
			return r.open
		}
		r.closeItem(f, r.open)
	}
	oi := len(r.items)
	r.items = append(r.items, respItem{kind: kind, toolIndex: e.Index, chc: e.Choice})
	it := &r.items[oi]
	base := strings.TrimPrefix(r.respID(m), "resp_")
	switch kind {
	case "message", "refusal":
		it.id = "msg_" + base + "_" + strconv.Itoa(oi)
	case "reasoning":
		it.id = "rs_" + base + "_" + strconv.Itoa(oi)
	case "function_call":
		it.callID = e.ID
		if it.callID == "" {
			it.callID = "call_" + base + "_" + strconv.Itoa(oi)
		}
		it.id = "fc_" + strings.TrimPrefix(it.callID, "call_")
		it.name = e.Name
	}
	r.open = oi
	r.head(f, "response.output_item.added")
	f.buf = append(f.buf, `,"output_index":`...)
	f.buf = appendInt(f.buf, oi)
	f.buf = append(f.buf, `,"item":`...)
	r.item(f, it, "in_progress")
	endTyped(f)
	switch kind {
	case "message":
		r.head(f, "response.content_part.added")
		r.itemRef(f, oi, it)
		f.buf = append(f.buf, `,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`...)
		endTyped(f)
	case "refusal":
		r.head(f, "response.content_part.added")
		r.itemRef(f, oi, it)
		f.buf = append(f.buf, `,"content_index":0,"part":{"type":"refusal","refusal":""}`...)
		endTyped(f)
	case "reasoning":
		r.head(f, "response.reasoning_summary_part.added")
		r.itemRef(f, oi, it)
		f.buf = append(f.buf, `,"summary_index":0,"part":{"type":"summary_text","text":""}`...)
		endTyped(f)
	}
	return oi
}

func (r *responsesEncoder) closeItem(f *frames, oi int) {
	it := &r.items[oi]
	if it.closed {
		return
	}
	it.closed = true
	if r.open == oi {
		r.open = -1
	}
	switch it.kind {
	case "message":
		r.partDone(f, oi, it, "response.output_text.done", "text", `{"type":"output_text","text":`, `,"annotations":[]}`)
	case "refusal":
		r.partDone(f, oi, it, "response.refusal.done", "refusal", `{"type":"refusal","refusal":`, `}`)
	case "reasoning":
		r.head(f, "response.reasoning_summary_text.done")
		r.itemRef(f, oi, it)
		f.buf = append(f.buf, `,"summary_index":0,"text":`...)
		f.buf = tape.AppendJSONString(f.buf, it.text.String())
		endTyped(f)
	case "function_call":
		r.head(f, "response.function_call_arguments.done")
		r.itemRef(f, oi, it)
		f.buf = append(f.buf, `,"arguments":`...)
		f.buf = tape.AppendJSONString(f.buf, it.text.String())
		endTyped(f)
	}
	r.head(f, "response.output_item.done")
	f.buf = append(f.buf, `,"output_index":`...)
	f.buf = appendInt(f.buf, oi)
	f.buf = append(f.buf, `,"item":`...)
	r.item(f, it, "completed")
	endTyped(f)
}

// partDone writes the two events that end an item's content part: doneType
// with the whole text under field, then content_part.done with the part
// (its JSON: partOpen, the text, partClose).
func (r *responsesEncoder) partDone(f *frames, oi int, it *respItem, doneType, field, partOpen, partClose string) {
	r.head(f, doneType)
	r.itemRef(f, oi, it)
	f.buf = append(f.buf, `,"content_index":0,"`...)
	f.buf = append(f.buf, field...)
	f.buf = append(f.buf, `":`...)
	f.buf = tape.AppendJSONString(f.buf, it.text.String())
	endTyped(f)
	r.head(f, "response.content_part.done")
	r.itemRef(f, oi, it)
	f.buf = append(f.buf, `,"content_index":0,"part":`...)
	f.buf = append(f.buf, partOpen...)
	f.buf = tape.AppendJSONString(f.buf, it.text.String())
	f.buf = append(f.buf, partClose...)
	endTyped(f)
}

func (r *responsesEncoder) encode(f *frames, e *Event, m *Meta) {
	if r.done {
		if e.Kind == KindOpaque {
			writeOpaque(f, e)
		}
		return
	}
	r.ensureStarted(f, m)
	switch e.Kind {
	case KindText, KindReasoning, KindRefusal:
		r.textDelta(f, e, m)
	case KindToolStart:
		r.openItem(f, m, "function_call", e)
	case KindToolArgs:
		oi := r.findTool(e)
		if oi < 0 {
			return
		}
		it := &r.items[oi]
		it.text.WriteString(e.Text)
		r.head(f, "response.function_call_arguments.delta")
		r.itemRef(f, oi, it)
		f.buf = append(f.buf, `,"delta":`...)
		f.buf = tape.AppendJSONString(f.buf, e.Text)
		endTyped(f)
	case KindToolEnd:
		if oi := r.findTool(e); oi >= 0 {
			r.closeItem(f, oi)
		}
	case KindFinish:
		if r.reason == "" || r.reason == "stop" || r.reason == "tool_calls" {
			r.reason = e.Text
		}
	case KindUsage:
		r.usage = responsesUsage(e.Raw)
	case KindError:
		r.head(f, "error")
		f.buf = append(f.buf, `,"error":`...)
		f.buf = append(f.buf, e.Raw...)
		endTyped(f)
		r.reason = "error"
	case KindDone:
		r.end(f, m)
	case KindOpaque:
		if r.open >= 0 && itemEvent(e) == "response.output_item.added" {
			// The upstream starts an item the engine does not model: the
			// one open ends first, as it did upstream.
			r.closeItem(f, r.open)
		}
		writeOpaque(f, e)
		r.keepItem(e)
	}
}

// textDelta writes a text, reasoning or refusal delta (e) into the item
// of its kind, opening the item when it is not the one open.
func (r *responsesEncoder) textDelta(f *frames, e *Event, m *Meta) {
	kind, typ := "message", "response.output_text.delta"
	switch e.Kind {
	case KindReasoning:
		kind, typ = "reasoning", "response.reasoning_summary_text.delta"
	case KindRefusal:
		kind, typ = "refusal", "response.refusal.delta"
	}
	oi := r.openItem(f, m, kind, e)
	it := &r.items[oi]
	it.text.WriteString(e.Text)
	r.head(f, typ)
	r.itemRef(f, oi, it)
	if kind == "reasoning" {
		f.buf = append(f.buf, `,"summary_index":0`...)
	} else {
		f.buf = append(f.buf, `,"content_index":0`...)
	}
	f.buf = append(f.buf, `,"delta":`...)
	f.buf = tape.AppendJSONString(f.buf, e.Text)
	endTyped(f)
}

// end closes every item and writes the event that ends the response:
// completed, incomplete (length, content filter) or failed, by the
// finish reason kept.
func (r *responsesEncoder) end(f *frames, m *Meta) {
	for i := range r.items {
		r.closeItem(f, i)
	}
	status, typ := "completed", "response.completed"
	switch r.reason {
	case "length", "content_filter":
		status, typ = "incomplete", "response.incomplete"
	case "error":
		status, typ = "failed", "response.failed"
	}
	r.head(f, typ)
	r.response(f, m, status, true)
	endTyped(f)
	r.done = true
}

// itemEvent returns the type of an opaque event that adds or finishes an
// output item, or "".
func itemEvent(e *Event) string {
	if e.Comment || !strings.Contains(e.Raw, `"response.output_item.`) {
		return ""
	}
	return gjson.Get(e.Raw, "type").Str
}

// keepItem keeps the item of an output item an upstream Responses stream
// finished but the engine does not model (a web search, an MCP call, …),
// forwarded as it came, so that response.completed still lists it.
func (r *responsesEncoder) keepItem(e *Event) {
	if itemEvent(e) != "response.output_item.done" {
		return
	}
	if it := gjson.Get(e.Raw, "item"); it.IsObject() {
		r.items = append(r.items, respItem{kind: "raw", raw: it.Raw, closed: true})
	}
}

func (r *responsesEncoder) findTool(e *Event) int {
	for i := len(r.items) - 1; i >= 0; i-- {
		it := &r.items[i]
		if it.kind == "function_call" && it.toolIndex == e.Index && it.chc == e.Choice && !it.closed {
			return i
		}
	}
	return -1
}

// responsesUsage converts Chat Completions usage to the Responses form; usage
// already in that form is kept as it is.
func responsesUsage(raw string) string {
	u := gjson.Parse(raw)
	if !u.Get("prompt_tokens").Exists() {
		return raw
	}
	b := []byte(`{"input_tokens":`)
	b = appendInt(b, int(u.Get("prompt_tokens").Int()))
	b = append(b, `,"output_tokens":`...)
	b = appendInt(b, int(u.Get("completion_tokens").Int()))
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, int(u.Get("total_tokens").Int()))
	if v := u.Get("prompt_tokens_details.cached_tokens"); v.Exists() {
		b = append(b, `,"input_tokens_details":{"cached_tokens":`...)
		b = appendInt(b, int(v.Int()))
		b = append(b, '}')
	}
	if v := u.Get("completion_tokens_details.reasoning_tokens"); v.Exists() {
		b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
		b = appendInt(b, int(v.Int()))
		b = append(b, '}')
	}
	return string(append(b, '}'))
}
