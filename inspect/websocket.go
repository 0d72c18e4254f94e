package inspect

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// maxMessageText is how much of a message's payload the report keeps
// beside the Realtime event it is.
const maxMessageText = 2048

// maxWSKept bounds the bytes one WebSocket exchange's report keeps of its
// messages (their text and what each costs to list): a capture of a few MB
// can hold a session of tiny frames, or of deflated messages that inflate
// a thousandfold. Past it, data messages are counted but not kept, and a
// websocket.cap finding says so.
const maxWSKept = 32 << 20

// wsMessageCost is what keeping one message costs beside its text: its
// WSMessage, event and Realtime event, and the room their slices grow by.
const wsMessageCost = 512

// WebSocketReport is what inspect says about a WebSocket exchange: every
// message of both directions in time order and, for an OpenAI Realtime
// session, its assembled transcript.
type WebSocketReport struct {
	// Extensions is the Sec-WebSocket-Extensions the server accepted
	// (permessage-deflate and its parameters), Subprotocol the one it chose.
	Extensions  string                    `json:"extensions,omitempty"`
	Subprotocol string                    `json:"subprotocol,omitempty"`
	Messages    []WSMessage               `json:"messages"`
	Realtime    *protocol.RealtimeSession `json:"realtime,omitempty"`
	// NotKept counts the data messages decoded but not listed: past the
	// bytes a report keeps (a websocket.cap finding says which cap).
	NotKept int `json:"not_kept,omitempty"`
}

// WSMessage is one WebSocket message. Side says which way it went: upstream
// is the server's (toward the client), client is the client's.
type WSMessage struct {
	Side tape.Side `json:"side"`
	// Index is the message's place among its side's messages: the event
	// index findings point at.
	Index  int            `json:"index"`
	Opcode wsframe.Opcode `json:"opcode"`
	// Off is the byte offset of its first frame in that side's stream,
	// Chunk the chunk holding it; T is when its last byte arrived.
	Off        int64 `json:"off"`
	Chunk      int   `json:"chunk"`
	T          int64 `json:"t"`
	Frames     int   `json:"frames"`
	Compressed bool  `json:"compressed,omitempty"`
	// Deflated is set for a compressed message left deflated: it did not
	// inflate, or inflating it would pass a cap (a finding says which).
	Deflated bool `json:"deflated,omitempty"`
	// Bytes is the payload length, inflated.
	Bytes int `json:"bytes"`
	// Text is the payload of a text message (cut at 2 KiB; Clipped then
	// says so), Type its JSON "type" when it has one. Elided counts the
	// base64 audio characters left out of an audio event's text (its
	// "delta" or "audio" then reads "…").
	Text        string `json:"text,omitempty"`
	Clipped     bool   `json:"clipped,omitempty"`
	Elided      int    `json:"elided,omitempty"`
	Type        string `json:"type,omitempty"`
	CloseCode   int    `json:"close_code,omitempty"`
	CloseReason string `json:"close_reason,omitempty"`
	Incomplete  bool   `json:"incomplete,omitempty"`
}

// isWebSocket reports whether x switched protocols.
func isWebSocket(x *tape.Exchange) bool {
	return x.Upstream.Response != nil && x.Upstream.Response.Status == http.StatusSwitchingProtocols
}

// wsReader reads both sides of a WebSocket exchange into its report,
// within the caps: inflated bytes per session, bytes kept.
type wsReader struct {
	c  *exCtx
	ws *WebSocketReport
	// events are the text messages as Realtime events, by index in
	// ws.Messages before sorting (nil for the other messages).
	events []*protocol.RealtimeEvent
	// inflated counts the bytes inflated, kept the bytes kept.
	inflated, kept int64
	audioIn        int
	audioOut       int
	capped         *Pointer // where the first data message not kept is
}

// inspectWebSocket fills the report of a WebSocket exchange: its sides,
// messages, transcript and findings.
func inspectWebSocket(c *exCtx, reqT int64) {
	x, rep := c.x, c.rep
	ws := &WebSocketReport{Messages: []WSMessage{}}
	rep.WebSocket = ws
	rep.Protocol = protocol.WebSocket
	h := x.Upstream.Response.Headers
	ws.Extensions = strings.Join(h["sec-websocket-extensions"], ", ")
	ws.Subprotocol = strings.Join(h["sec-websocket-protocol"], ", ")
	r := &wsReader{c: c, ws: ws}
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		r.side(side, reqT)
	}
	if r.capped != nil {
		c.emit("websocket.cap", *r.capped, "", fmt.Sprintf(
			"%d data messages decoded but not kept: the report keeps %d bytes of one session's messages", ws.NotKept, maxWSKept))
	}
	// Both directions in one timeline.
	order := make([]int, len(ws.Messages))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ws.Messages[order[a]].T < ws.Messages[order[b]].T })
	sorted := make([]WSMessage, len(order))
	var events []protocol.RealtimeEvent
	for to, from := range order {
		sorted[to] = ws.Messages[from]
		if e := r.events[from]; e != nil {
			e.Message = to
			events = append(events, *e)
		}
	}
	ws.Messages = sorted
	if v := c.sides[tape.Upstream]; v != nil {
		c.view = v
		rep.Status, rep.Outcome, rep.TTFB, rep.Dur = v.Status, v.Outcome, v.TTFB, v.Dur
	}
	rep.Events = len(ws.Messages)
	runTape(c)
	if protocol.IsRealtime(events) {
		rep.Protocol = protocol.Realtime
		ws.Realtime = protocol.AssembleRealtime(events)
		ws.Realtime.InputAudioBytes, ws.Realtime.OutputAudioBytes = r.audioIn, r.audioOut
		if rep.Model == "" {
			rep.Model = ws.Realtime.Model
		}
		c.realtimeFindings(events)
	}
	c.closeFindings()
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int { return cmp.Compare(b.Severity, a.Severity) })
}

// side decodes one side's frames into messages and events.
func (r *wsReader) side(side tape.Side, reqT int64) {
	c, x := r.c, r.c.x
	sd := x.Side(side)
	ev := &protocol.Side{Chunks: sd.Chunks}
	sr := &SideReport{Side: side, Chunks: len(sd.Chunks), TTFB: -1, Dur: -1, Stream: true, ev: ev,
		Message: &protocol.Message{Protocol: protocol.WebSocket, Choices: []protocol.Choice{}}}
	if sd.Response != nil {
		sr.Status = sd.Response.Status
	}
	if sd.End != nil {
		sr.Outcome, sr.Error, sr.Bytes, sr.Dur = sd.End.Outcome, sd.End.Error, sd.End.Bytes, sd.End.T-reqT
	}
	if len(sd.Chunks) > 0 {
		sr.TTFB = sd.Chunks[0].T - reqT
	}
	c.sides[side] = sr
	c.rep.Sides = append(c.rep.Sides, sr)
	o := wsframe.Negotiated(x.Upstream.Response.Headers["sec-websocket-extensions"], side == tape.Client)
	o.Inflated = r.inflated
	n := 0
	problems, inflated := wsframe.Walk(sd.Body(), o, func(m *wsframe.Message) {
		n++
		r.message(side, ev, m)
	})
	r.inflated = inflated
	sr.Events = n
	for _, p := range problems {
		i, t := chunkTimeAt(sd.Chunks, p.Off)
		at := Pointer{Ex: x.Ex, Side: side, Event: -1, Chunk: i, Off: p.Off, T: t}
		if p.Cap > 0 {
			c.emit("websocket.cap", at, "", p.Msg)
		} else {
			c.emit("websocket.protocol", at, "", p.Msg)
		}
	}
}

// message keeps one decoded message, unless the report already holds all
// it keeps: then a data message is only counted.
func (r *wsReader) message(side tape.Side, ev *protocol.Side, m *wsframe.Message) {
	sd := r.c.x.Side(side)
	data := m.Opcode == wsframe.Text || m.Opcode == wsframe.Binary
	wm := WSMessage{
		Side: side, Index: len(ev.Events), Opcode: m.Opcode, Off: m.Off, Frames: m.Frames, Compressed: m.Compressed, Deflated: m.Deflated,
		Bytes: len(m.Payload), CloseCode: m.CloseCode, CloseReason: m.CloseReason, Incomplete: m.Incomplete,
	}
	wm.Chunk, _ = chunkTimeAt(sd.Chunks, m.Off)
	endChunk, t := chunkTimeAt(sd.Chunks, max(m.End-1, m.Off))
	wm.T = t
	var text string
	var rt *protocol.RealtimeEvent
	// What keeping the message costs is known before its text is made,
	// so a message past the cap costs nothing.
	var size int
	var audio gjson.Result
	switch {
	case m.Deflated:
	case m.Opcode == wsframe.Text:
		size, audio = slimSize(m.Payload)
	case m.Opcode == wsframe.Close:
		size = len(m.CloseReason)
	default:
		size = min(len(m.Payload), maxMessageText)
	}
	if data && r.kept+int64(size)+wsMessageCost > maxWSKept {
		if r.capped == nil {
			r.capped = &Pointer{Ex: r.c.x.Ex, Side: side, Event: -1, Chunk: wm.Chunk, Off: m.Off, T: t}
		}
		r.ws.NotKept++
		return
	}
	switch {
	case m.Deflated:
	case m.Opcode == wsframe.Text:
		text = r.slim(side, m.Payload, audio, &wm)
		wm.Type = gjson.Get(text, "type").String()
		wm.Text, wm.Clipped = excerpt.Cut(text, maxMessageText)
		rt = &protocol.RealtimeEvent{FromClient: side == tape.Client, Data: text}
	case m.Opcode == wsframe.Close:
		text = m.CloseReason
	default:
		b, _ := excerpt.Cut(m.Payload, maxMessageText)
		text = string(b)
	}
	r.kept += int64(len(text)) + wsMessageCost
	name := m.Opcode.String()
	if wm.Type != "" {
		name = wm.Type
	}
	if m.Opcode == wsframe.Close && m.CloseCode != 0 {
		name = fmt.Sprintf("close %d", m.CloseCode)
	}
	ev.Events = append(ev.Events, protocol.Event{Index: wm.Index, Name: name, Data: text, Chunk: wm.Chunk, EndChunk: endChunk,
		Off: m.Off, End: m.End, T: t, Terminated: !m.Incomplete})
	r.ws.Messages = append(r.ws.Messages, wm)
	r.events = append(r.events, rt)
}

// audioFields are the Realtime events carrying base64 audio, and the field
// that holds it.
var audioFields = map[string]string{
	"response.output_audio.delta": "delta", "response.audio.delta": "delta",
	"input_audio_buffer.append": "audio",
}

// minElided is the shortest audio string left out of a kept message.
const minElided = 256

// slimSize returns the length of a text message's payload as the report
// keeps it (see slim) and, for an audio event, its audio string.
func slimSize(payload []byte) (int, gjson.Result) {
	field, ok := audioFields[gjson.GetBytes(payload, "type").String()]
	if !ok {
		return len(payload), gjson.Result{}
	}
	v := gjson.GetBytes(payload, field)
	if v.Type != gjson.String || len(v.Raw) < minElided || v.Index <= 0 {
		return len(payload), gjson.Result{}
	}
	return len(payload) - len(v.Raw) + len(`"…"`), v
}

// slim returns a text message's payload as the report keeps it: an audio
// event's base64 audio (audio, found by slimSize), the bulk of a voice
// session and of no use to a reader but for its size, is counted and
// replaced by "…".
func (r *wsReader) slim(side tape.Side, payload []byte, audio gjson.Result, wm *WSMessage) string {
	if audio.Index <= 0 {
		return string(payload)
	}
	n := protocol.Base64Len(audio.Str)
	if side == tape.Client {
		r.audioIn += n
	} else {
		r.audioOut += n
	}
	wm.Elided = len(audio.Raw) - 2
	return string(payload[:audio.Index]) + `"…"` + string(payload[audio.Index+len(audio.Raw):])
}

// realtimeFindings reports what went wrong in a Realtime session.
func (c *exCtx) realtimeFindings(events []protocol.RealtimeEvent) {
	ws := c.rep.WebSocket
	rt := ws.Realtime
	at := func(i int) Pointer {
		m := ws.Messages[i]
		return Pointer{Ex: c.x.Ex, Side: m.Side, Event: m.Index, Chunk: m.Chunk, Off: m.Off, T: m.T}
	}
	for _, e := range events {
		if !gjson.Valid(e.Data) {
			c.emit("realtime.invalid-json", at(e.Message), excerpt.Clip(e.Data, 80), "a Realtime message that is not JSON")
		}
	}
	for _, e := range rt.Errors {
		c.emit("realtime.error", at(e.At), e.Message, fmt.Sprintf("error event %s %s (the session goes on)", orDash(e.Type), e.Code))
	}
	for _, r := range rt.Responses {
		switch r.Status {
		case "":
			c.emit("realtime.response-unfinished", at(r.Message), "", fmt.Sprintf("response %s has no response.done", r.ID))
		case "failed", "incomplete":
			c.emit("realtime.response-failed", at(r.Done), r.StatusDetails, fmt.Sprintf("response %s ended %s", r.ID, r.Status))
		}
		for _, p := range r.Parts {
			if p.HasDone && p.Deltas > 0 && p.Done != p.Text {
				c.emit("final.mismatch", at(p.Message), excerpt.Clip(p.Done, 80),
					fmt.Sprintf("response %s item %s: the %s deltas join to %d bytes that differ from the done event's", r.ID, p.ItemID, p.Kind, len(p.Text)))
			}
		}
	}
}
