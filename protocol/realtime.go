package protocol

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Protocols of WebSocket sessions.
const (
	// WebSocket is a WebSocket session of no protocol seam knows.
	WebSocket Protocol = "websocket"
	// Realtime is the OpenAI Realtime API over WebSocket.
	Realtime Protocol = "openai-realtime"
)

// RealtimeEvent is one JSON message of an OpenAI Realtime session, in the
// order it crossed the connection.
type RealtimeEvent struct {
	// FromClient is set for the events the client sent.
	FromClient bool
	// Message is the index of the WebSocket message in the exchange's
	// message list.
	Message int
	// Data is the message's JSON.
	Data string
}

// RealtimeSession is an OpenAI Realtime session assembled from its events
// (docs/PROTOCOLS.md#realtime): the session, what the user said or typed, each
// response's output keyed by item and content part, the errors.
type RealtimeSession struct {
	SessionID string `json:"session_id,omitempty"`
	Model     string `json:"model,omitempty"`
	// Inputs are the user's turns: text items the client created and
	// transcriptions of its audio.
	Inputs []RealtimeInput `json:"inputs,omitempty"`
	// Responses are in the order the server created them.
	Responses []*RealtimeResponse `json:"responses,omitempty"`
	Errors    []RealtimeError     `json:"errors,omitempty"`
	// ClientEvents and ServerEvents count the events by type.
	ClientEvents map[string]int `json:"client_events,omitempty"`
	ServerEvents map[string]int `json:"server_events,omitempty"`
	// AudioBytes counts the decoded bytes of audio each way.
	InputAudioBytes  int `json:"input_audio_bytes,omitempty"`
	OutputAudioBytes int `json:"output_audio_bytes,omitempty"`
}

// RealtimeInput is one user turn.
type RealtimeInput struct {
	ItemID string `json:"item_id,omitempty"`
	// Kind is "text" (a conversation item the client created) or
	// "transcription" (the server's transcript of the user's audio).
	Kind    string `json:"kind"`
	Text    string `json:"text"`
	Message int    `json:"message"`
}

// RealtimeResponse is one response: its parts as the deltas built them and
// as the done events claim them, and how it ended.
type RealtimeResponse struct {
	ID string `json:"id"`
	// Status is response.done's status (completed, cancelled, failed,
	// incomplete); empty when no response.done came.
	Status        string          `json:"status,omitempty"`
	StatusDetails string          `json:"status_details,omitempty"`
	Parts         []*RealtimePart `json:"parts"`
	Usage         *Usage          `json:"usage,omitempty"`
	// Message is the index of the message that began it (its
	// response.created, else its first event), Done that of its
	// response.done (-1 when none came).
	Message int `json:"message"`
	Done    int `json:"done_message"`
	byKey   map[string]*RealtimePart
}

// RealtimePart is one output content part or function call.
type RealtimePart struct {
	ItemID       string `json:"item_id"`
	ContentIndex int    `json:"content_index"`
	// Kind is "text", "audio_transcript" or "function_call".
	Kind string `json:"kind"`
	// Text is the deltas joined (arguments, for a function call).
	Text string `json:"text"`
	// Done is the full value the done event carries, and HasDone whether
	// one came.
	Done    string `json:"done,omitempty"`
	HasDone bool   `json:"has_done"`
	Name    string `json:"name,omitempty"`
	CallID  string `json:"call_id,omitempty"`
	Deltas  int    `json:"deltas"`
	// Message is the index of the message that completed the part (its
	// done event, else its last delta).
	Message int `json:"message"`

	text strings.Builder // the deltas, joined into Text at the end
}

// Final returns what a client keeping the done value ends up with: the
// done event's value when there is one, else the joined deltas.
func (p *RealtimePart) Final() string {
	if p.HasDone {
		return p.Done
	}
	return p.Text
}

// RealtimeError is an error event; most leave the session open.
type RealtimeError struct {
	Type    string `json:"type,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	EventID string `json:"event_id,omitempty"`
	At      int    `json:"message_index"`
}

// IsRealtime reports whether the events are an OpenAI Realtime session:
// a session event from the server, or a response lifecycle event.
func IsRealtime(events []RealtimeEvent) bool {
	for i, e := range events {
		if i > 20 {
			break
		}
		t := gjson.Get(e.Data, "type").String()
		if strings.HasPrefix(t, "session.") || strings.HasPrefix(t, "response.") || strings.HasPrefix(t, "conversation.") || strings.HasPrefix(t, "input_audio_buffer.") {
			return true
		}
	}
	return false
}

// AssembleRealtime builds the session from its events. It accepts both the
// GA event names and the beta ones (response.text.delta for
// response.output_text.delta, and so on).
func AssembleRealtime(events []RealtimeEvent) *RealtimeSession {
	rt := &RealtimeSession{ClientEvents: map[string]int{}, ServerEvents: map[string]int{}}
	byID := map[string]*RealtimeResponse{}
	names := map[string]string{} // function call item id → name
	response := func(id string, msg int) *RealtimeResponse {
		r := byID[id]
		if r == nil {
			r = &RealtimeResponse{ID: id, Parts: []*RealtimePart{}, Message: msg, Done: -1, byKey: map[string]*RealtimePart{}}
			byID[id] = r
			rt.Responses = append(rt.Responses, r)
		}
		return r
	}
	parts := realtimeParts{response: response}
	delta, done := parts.delta, parts.done
	for _, ev := range events {
		if !gjson.Valid(ev.Data) {
			continue
		}
		e := gjson.Parse(ev.Data)
		typ := e.Get("type").String()
		if ev.FromClient {
			rt.clientEvent(e, typ, ev.Message)
			continue
		}
		rt.ServerEvents[typ]++
		switch typ {
		case "session.created", "session.updated":
			if id := e.Get("session.id").String(); id != "" {
				rt.SessionID = id
			}
			if m := e.Get("session.model").String(); m != "" {
				rt.Model = m
			}
		case "response.created":
			response(e.Get("response.id").String(), ev.Message)
		case "response.output_text.delta", "response.text.delta":
			delta(e, "text", ev.Message)
		case "response.output_text.done", "response.text.done":
			done(e, "text", "text", ev.Message)
		case "response.output_audio_transcript.delta", "response.audio_transcript.delta":
			delta(e, "audio_transcript", ev.Message)
		case "response.output_audio_transcript.done", "response.audio_transcript.done":
			done(e, "audio_transcript", "transcript", ev.Message)
		case "response.output_audio.delta", "response.audio.delta":
			rt.OutputAudioBytes += Base64Len(e.Get("delta").String())
		case "response.function_call_arguments.delta":
			delta(e, "function_call", ev.Message).CallID = e.Get("call_id").String()
		case "response.function_call_arguments.done":
			p := done(e, "function_call", "arguments", ev.Message)
			p.CallID = e.Get("call_id").String()
			if n := e.Get("name").String(); n != "" {
				p.Name = n
			}
		case "response.output_item.added", "response.output_item.done":
			if e.Get("item.type").String() == "function_call" {
				names[e.Get("item.id").String()] = e.Get("item.name").String()
			}
		case "response.done":
			r := response(e.Get("response.id").String(), ev.Message)
			r.Status, r.Done = e.Get("response.status").String(), ev.Message
			if d := e.Get("response.status_details"); d.Exists() && d.Type != gjson.Null {
				r.StatusDetails = d.Raw
			}
			if u := e.Get("response.usage"); u.Exists() {
				r.Usage = &Usage{Input: int(u.Get("input_tokens").Int()), Output: int(u.Get("output_tokens").Int()), Total: int(u.Get("total_tokens").Int())}
			}
		case "conversation.item.input_audio_transcription.completed":
			rt.Inputs = append(rt.Inputs, RealtimeInput{ItemID: e.Get("item_id").String(), Kind: "transcription", Text: e.Get("transcript").String(), Message: ev.Message})
		case "error":
			rt.Errors = append(rt.Errors, RealtimeError{
				Type: e.Get("error.type").String(), Code: e.Get("error.code").String(),
				Message: e.Get("error.message").String(), EventID: e.Get("error.event_id").String(), At: ev.Message,
			})
		}
	}
	rt.finish(names)
	return rt
}

// clientEvent counts an event the client sent, of type typ, in message msg,
// and reads the user's text items and the audio it appended.
func (rt *RealtimeSession) clientEvent(e gjson.Result, typ string, msg int) {
	rt.ClientEvents[typ]++
	switch typ {
	case "conversation.item.create":
		for _, c := range e.Get("item.content").Array() {
			if t := c.Get("type").String(); t == "input_text" || t == "text" {
				rt.Inputs = append(rt.Inputs, RealtimeInput{ItemID: e.Get("item.id").String(), Kind: "text", Text: c.Get("text").String(), Message: msg})
			}
		}
	case "input_audio_buffer.append":
		rt.InputAudioBytes += Base64Len(e.Get("audio").String())
	}
}

// finish joins each part's deltas and names the function calls from names
// (item id → name): a function call's name comes with its output item,
// before or after its arguments. The deltas are joined once, not one copy
// each.
func (rt *RealtimeSession) finish(names map[string]string) {
	for _, r := range rt.Responses {
		for _, p := range r.Parts {
			p.Text = p.text.String()
			if p.Kind == "function_call" && p.Name == "" {
				p.Name = names[p.ItemID]
			}
		}
	}
}

// realtimeParts finds the parts of the responses response finds (or
// opens) by id: each part by its kind, item and content index.
type realtimeParts struct {
	response func(id string, msg int) *RealtimeResponse
}

func (rp realtimeParts) part(e gjson.Result, kind string, msg int) *RealtimePart {
	r := rp.response(e.Get("response_id").String(), msg)
	item, ci := e.Get("item_id").String(), int(e.Get("content_index").Int())
	key := kind + "\x00" + item + "\x00" + e.Get("content_index").Raw
	p := r.byKey[key]
	if p == nil {
		p = &RealtimePart{ItemID: item, ContentIndex: ci, Kind: kind, Message: msg}
		r.byKey[key] = p
		r.Parts = append(r.Parts, p)
	}
	return p
}

// delta appends a delta event's text to its part.
func (rp realtimeParts) delta(e gjson.Result, kind string, msg int) *RealtimePart {
	p := rp.part(e, kind, msg)
	p.text.WriteString(e.Get("delta").String())
	p.Deltas++
	p.Message = msg
	return p
}

// done records the full value a done event carries in field.
func (rp realtimeParts) done(e gjson.Result, kind, field string, msg int) *RealtimePart {
	p := rp.part(e, kind, msg)
	p.Done, p.HasDone, p.Message = e.Get(field).String(), true, msg
	return p
}

// Base64Len is the number of bytes the padded base64 string s decodes
// to (a Realtime audio delta's, counted without decoding it).
func Base64Len(s string) int {
	n := len(s) / 4 * 3
	switch {
	case strings.HasSuffix(s, "=="):
		n -= 2
	case strings.HasSuffix(s, "="):
		n--
	}
	return n
}
