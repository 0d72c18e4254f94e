package shape

import (
	"strconv"
	"strings"

	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// anthropicEncoder writes an Anthropic Messages event stream: message_start,
// one content block per run of text, thinking or tool call (numbered by the
// encoder), message_delta with the stop reason and usage, message_stop.
type anthropicEncoder struct {
	started bool
	next    int  // next block index
	cur     int  // open block index, -1 none
	curKind Kind // kind of the open block
	toolBlk map[int]int
	// opaque maps the upstream index of a block forwarded as it came to the
	// index it is forwarded under (see opaqueBlock).
	opaque map[int]int
	reason string
	usage  string
	done   bool
}

func (a *anthropicEncoder) ensureStarted(f *frames, m *Meta) {
	if a.started {
		return
	}
	a.started, a.cur = true, -1
	typed(f, "message_start")
	f.buf = append(f.buf, `,"message":{"id":`...)
	f.buf = tape.AppendJSONString(f.buf, m.ID)
	f.buf = append(f.buf, `,"type":"message","role":"assistant","model":`...)
	f.buf = tape.AppendJSONString(f.buf, m.Model)
	f.buf = append(f.buf, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":`...)
	f.buf = appendRawOr(f.buf, m.InputUsage, `{"input_tokens":0,"output_tokens":0}`)
	f.buf = append(f.buf, '}')
	endTyped(f)
}

func (a *anthropicEncoder) stop(f *frames) {
	if a.cur < 0 {
		return
	}
	typed(f, "content_block_stop")
	f.buf = append(f.buf, `,"index":`...)
	f.buf = appendInt(f.buf, a.cur)
	endTyped(f)
	a.cur = -1
}

func (a *anthropicEncoder) open(f *frames, k Kind, e *Event) {
	a.stop(f)
	a.cur, a.curKind = a.next, k
	a.next++
	typed(f, "content_block_start")
	f.buf = append(f.buf, `,"index":`...)
	f.buf = appendInt(f.buf, a.cur)
	switch k {
	case KindText:
		f.buf = append(f.buf, `,"content_block":{"type":"text","text":""}`...)
	case KindReasoning:
		f.buf = append(f.buf, `,"content_block":{"type":"thinking","thinking":""}`...)
	case KindToolStart:
		f.buf = append(f.buf, `,"content_block":{"type":"tool_use","id":`...)
		f.buf = tape.AppendJSONString(f.buf, e.ID)
		f.buf = append(f.buf, `,"name":`...)
		f.buf = tape.AppendJSONString(f.buf, e.Name)
		f.buf = append(f.buf, `,"input":{}}`...)
	}
	endTyped(f)
}

func (a *anthropicEncoder) delta(f *frames, idx int, typ, field, text string) {
	typed(f, "content_block_delta")
	f.buf = append(f.buf, `,"index":`...)
	f.buf = appendInt(f.buf, idx)
	f.buf = append(f.buf, `,"delta":{"type":"`...)
	f.buf = append(f.buf, typ...)
	f.buf = append(f.buf, `","`...)
	f.buf = append(f.buf, field...)
	f.buf = append(f.buf, `":`...)
	f.buf = tape.AppendJSONString(f.buf, text)
	f.buf = append(f.buf, '}')
	endTyped(f)
}

// ended writes the message_delta (stop reason and usage) held for
// message_stop when the upstream ended without one.
func (a *anthropicEncoder) ended(f *frames, _ *Meta) {
	if a.done || !a.started || a.reason == "" && a.usage == "" {
		return
	}
	a.stop(f)
	a.messageDelta(f)
	a.done = true
}

func (a *anthropicEncoder) messageDelta(f *frames) {
	typed(f, "message_delta")
	f.buf = append(f.buf, `,"delta":{"stop_reason":`...)
	if a.reason == "" {
		f.buf = append(f.buf, "null"...)
	} else {
		f.buf = tape.AppendJSONString(f.buf, toAnthropicStop(a.reason))
	}
	f.buf = append(f.buf, `,"stop_sequence":null},"usage":`...)
	f.buf = appendRawOr(f.buf, a.usage, `{"output_tokens":0}`)
	endTyped(f)
}

// maxOpaqueIndex bounds the upstream index a forwarded block keeps: past
// it the block is numbered as the encoder's next, so a hostile index cannot
// run the numbering out of int.
const maxOpaqueIndex = 1 << 20

// opaqueBlock keeps the encoder's block numbering clear of the blocks it
// forwards as they came (a server tool use, redacted thinking) and of
// stray tool arguments (an input_json_delta for no open tool call): the
// block open before such a start ends, and each gets an index no block the
// encoder numbered has, the upstream's own when it is free. A client places
// a delta by its index, so forwarding one under an index the encoder gave
// to another block would add its content to that block (a stray argument
// delta appended to a tool call it never belonged to).
func (a *anthropicEncoder) opaqueBlock(f *frames, e *Event) {
	if e.Comment || !strings.HasPrefix(e.Raw, "{") || !gjson.Valid(e.Raw) {
		return // no client reads what is not JSON: it stays as it came
	}
	root := gjson.Parse(e.Raw)
	ix := root.Get("index") // read as every decoder reads it: missing is 0
	if ix.Exists() && ix.Index <= 0 {
		return
	}
	up := int(ix.Int())
	c, mapped := a.opaque[up]
	typ := root.Get("type").Str
	if typ == "" {
		typ = e.Type
	}
	switch typ {
	case "content_block_start":
		a.stop(f)
		mapped = false
	case "content_block_delta":
		if !mapped && root.Get("delta.type").Str != "input_json_delta" {
			return // a delta of a block the encoder writes (a signature): as it came
		}
	case "content_block_stop":
		if !mapped {
			return
		}
		delete(a.opaque, up)
	default:
		return
	}
	if !mapped {
		c = a.next
		if up > c && up < maxOpaqueIndex {
			c = up
		}
		a.next = c + 1
		if a.opaque == nil {
			a.opaque = map[int]int{}
		}
		a.opaque[up] = c
	}
	switch {
	case !ix.Exists() && c != 0:
		sep := ","
		if strings.HasPrefix(strings.TrimLeft(e.Raw[1:], " \t\r\n"), "}") {
			sep = ""
		}
		e.Raw = `{"index":` + strconv.Itoa(c) + sep + e.Raw[1:]
	case ix.Exists() && (c != up || ix.Type != gjson.Number):
		e.Raw = e.Raw[:ix.Index] + strconv.Itoa(c) + e.Raw[ix.Index+len(ix.Raw):]
	}
}

func (a *anthropicEncoder) encode(f *frames, e *Event, m *Meta) {
	if a.done {
		if e.Kind == KindOpaque {
			writeOpaque(f, e)
		}
		return
	}
	if e.Kind != KindOpaque {
		a.ensureStarted(f, m)
	}
	switch e.Kind {
	case KindText, KindRefusal:
		// Messages has no refusal channel (only stop_reason refusal): a
		// refusal from another protocol is shown as text.
		if a.cur < 0 || a.curKind != KindText {
			a.open(f, KindText, e)
		}
		a.delta(f, a.cur, "text_delta", "text", e.Text)
	case KindReasoning:
		if a.cur < 0 || a.curKind != KindReasoning {
			a.open(f, KindReasoning, e)
		}
		a.delta(f, a.cur, "thinking_delta", "thinking", e.Text)
	case KindToolStart:
		a.open(f, KindToolStart, e)
		if a.toolBlk == nil {
			a.toolBlk = map[int]int{}
		}
		a.toolBlk[e.Index] = a.cur
	case KindToolArgs:
		if b, ok := a.toolBlk[e.Index]; ok {
			a.delta(f, b, "input_json_delta", "partial_json", e.Text)
		}
	case KindToolEnd:
		if b, ok := a.toolBlk[e.Index]; ok && b == a.cur {
			a.stop(f)
		}
	case KindFinish:
		a.stop(f)
		a.reason = e.Text
	case KindUsage:
		a.usage = e.Raw
	case KindError:
		typed(f, "error")
		f.buf = append(f.buf, `,"error":`...)
		f.buf = append(f.buf, e.Raw...)
		endTyped(f)
	case KindDone:
		a.stop(f)
		a.messageDelta(f)
		typed(f, "message_stop")
		endTyped(f)
		a.done = true
	case KindOpaque:
		a.opaqueBlock(f, e)
		writeOpaque(f, e)
	}
}
