package shape

import (
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// encoder writes normalized events as client SSE events, one frame per event
// written. Output depends only on the events and the Meta, so it is
// byte-stable for a given input.
type encoder interface {
	encode(f *frames, e *Event, m *Meta)
}

// cutEncoder is an encoder holding back what it writes with the terminal
// event (Anthropic's message_delta): when the upstream ends without one
// (a cut stream), ended writes what it held, so the client loses nothing
// the upstream sent.
type cutEncoder interface {
	ended(f *frames, m *Meta)
}

// writeOpaque forwards an opaque event as it came: a comment as ": text",
// anything else re-encoded with its event name, id and data.
func writeOpaque(f *frames, e *Event) {
	if e.Comment {
		f.buf = append(f.buf, ':', ' ')
		f.buf = append(f.buf, e.Raw...)
		f.buf = append(f.buf, '\n', '\n')
	} else {
		f.buf = sse.AppendEvent(f.buf, sse.Event{Type: e.Type, Data: e.Raw, ID: e.EventID})
	}
	f.end()
}

// chatEncoder writes OpenAI Chat Completions chunks.
type chatEncoder struct{}

func (chatEncoder) head(f *frames, m *Meta) {
	f.buf = append(f.buf, `data: {"id":`...)
	f.buf = tape.AppendJSONString(f.buf, m.ID)
	f.buf = append(f.buf, `,"object":"chat.completion.chunk","created":`...)
	f.buf = appendRawOr(f.buf, m.Created, "0")
	f.buf = append(f.buf, `,"model":`...)
	f.buf = tape.AppendJSONString(f.buf, m.Model)
	f.buf = append(f.buf, `,"choices":[`...)
}

func (c chatEncoder) choice(f *frames, m *Meta, idx int) {
	c.head(f, m)
	f.buf = append(f.buf, `{"index":`...)
	f.buf = appendInt(f.buf, idx)
	f.buf = append(f.buf, `,"delta":{`...)
}

func tail(f *frames) {
	f.buf = append(f.buf, `},"finish_reason":null}]}`+"\n\n"...)
	f.end()
}

func (c chatEncoder) encode(f *frames, e *Event, m *Meta) {
	switch e.Kind {
	case KindRole:
		c.choice(f, m, e.Choice)
		f.buf = append(f.buf, `"role":`...)
		f.buf = tape.AppendJSONString(f.buf, e.Text)
		tail(f)
	case KindText, KindReasoning, KindRefusal:
		c.choice(f, m, e.Choice)
		switch e.Kind {
		case KindText:
			f.buf = append(f.buf, `"content":`...)
		case KindRefusal:
			f.buf = append(f.buf, `"refusal":`...)
		default:
			f.buf = append(f.buf, `"reasoning_content":`...)
		}
		f.buf = tape.AppendJSONString(f.buf, e.Text)
		tail(f)
	case KindToolStart:
		c.choice(f, m, e.Choice)
		f.buf = append(f.buf, `"tool_calls":[{"index":`...)
		f.buf = appendInt(f.buf, e.Index)
		f.buf = append(f.buf, `,"id":`...)
		f.buf = tape.AppendJSONString(f.buf, e.ID)
		f.buf = append(f.buf, `,"type":"function","function":{"name":`...)
		f.buf = tape.AppendJSONString(f.buf, e.Name)
		f.buf = append(f.buf, `,"arguments":""}}]`...)
		tail(f)
	case KindToolArgs:
		c.choice(f, m, e.Choice)
		f.buf = append(f.buf, `"tool_calls":[{"index":`...)
		f.buf = appendInt(f.buf, e.Index)
		f.buf = append(f.buf, `,"function":{"arguments":`...)
		f.buf = tape.AppendJSONString(f.buf, e.Text)
		f.buf = append(f.buf, `}}]`...)
		tail(f)
	case KindFinish:
		c.choice(f, m, e.Choice)
		f.buf = append(f.buf, `},"finish_reason":`...)
		f.buf = tape.AppendJSONString(f.buf, e.Text)
		f.buf = append(f.buf, "}]}\n\n"...)
		f.end()
	case KindUsage:
		c.head(f, m)
		f.buf = append(f.buf, `],"usage":`...)
		f.buf = append(f.buf, e.Raw...)
		f.buf = append(f.buf, "}\n\n"...)
		f.end()
	case KindError:
		f.buf = append(f.buf, `data: {"error":`...)
		f.buf = append(f.buf, e.Raw...)
		f.buf = append(f.buf, "}\n\n"...)
		f.end()
	case KindDone:
		f.buf = append(f.buf, "data: [DONE]\n\n"...)
		f.end()
	case KindOpaque:
		writeOpaque(f, e)
	}
}

// typed starts an "event: T" frame whose JSON data begins with the type.
func typed(f *frames, typ string) {
	f.buf = append(f.buf, "event: "...)
	f.buf = append(f.buf, typ...)
	f.buf = append(f.buf, "\ndata: {\"type\":\""...)
	f.buf = append(f.buf, typ...)
	f.buf = append(f.buf, '"')
}

func endTyped(f *frames) {
	f.buf = append(f.buf, "}\n\n"...)
	f.end()
}
