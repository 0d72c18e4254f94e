package inspect

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// maxMessageText is how much of a message's payload the report keeps.
const maxMessageText = 2048

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
}

// WSMessage is one WebSocket message. Side says which way it went: upstream
// is the server's (toward the client), client is the client's.
type WSMessage struct {
	Side   tape.Side      `json:"side"`
	Opcode wsframe.Opcode `json:"opcode"`
	// Off is the byte offset of its first frame in that side's stream,
	// Chunk the chunk holding it; T is when its last byte arrived.
	Off        int64 `json:"off"`
	Chunk      int   `json:"chunk"`
	T          int64 `json:"t"`
	Frames     int   `json:"frames"`
	Compressed bool  `json:"compressed,omitempty"`
	// Bytes is the payload length, inflated.
	Bytes int `json:"bytes"`
	// Text is the payload of a text message (cut at 2 KiB; Clipped then
	// says so), Type its JSON "type" when it has one.
	Text        string `json:"text,omitempty"`
	Clipped     bool   `json:"clipped,omitempty"`
	Type        string `json:"type,omitempty"`
	CloseCode   int    `json:"close_code,omitempty"`
	CloseReason string `json:"close_reason,omitempty"`
	Incomplete  bool   `json:"incomplete,omitempty"`
}

// isWebSocket reports whether x switched protocols.
func isWebSocket(x *tape.Exchange) bool {
	return x.Upstream.Response != nil && x.Upstream.Response.Status == http.StatusSwitchingProtocols
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
	var payloads [][]byte // by index in ws.Messages
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(side)
		sr := &SideReport{Side: side, Chunks: len(sd.Chunks), TTFB: -1, Dur: -1, Stream: true, Message: &protocol.Message{Protocol: protocol.WebSocket, Choices: []protocol.Choice{}}}
		if sd.Response != nil {
			sr.Status = sd.Response.Status
		}
		if sd.End != nil {
			sr.Outcome, sr.Error, sr.Bytes, sr.Dur = sd.End.Outcome, sd.End.Error, sd.End.Bytes, sd.End.T-reqT
		}
		if len(sd.Chunks) > 0 {
			sr.TTFB = sd.Chunks[0].T - reqT
		}
		msgs, problems := wsframe.Decode(sd.Body(), wsframe.Negotiated(h["sec-websocket-extensions"], side == tape.Client))
		sr.Events = len(msgs)
		c.sides[side] = sr
		rep.Sides = append(rep.Sides, sr)
		for _, m := range msgs {
			wm := WSMessage{
				Side: side, Opcode: m.Opcode, Off: m.Off, Frames: m.Frames, Compressed: m.Compressed,
				Bytes: len(m.Payload), CloseCode: m.CloseCode, CloseReason: m.CloseReason, Incomplete: m.Incomplete,
			}
			wm.Chunk, _ = chunkTimeAt(sd.Chunks, m.Off)
			_, wm.T = chunkTimeAt(sd.Chunks, max(m.End-1, m.Off))
			if m.Opcode == wsframe.Text {
				wm.Type = gjson.Get(string(m.Payload), "type").String()
				wm.Text, wm.Clipped = clipBytes(m.Payload, maxMessageText)
			}
			ws.Messages = append(ws.Messages, wm)
			payloads = append(payloads, m.Payload)
		}
		for _, p := range problems {
			i, t := chunkTimeAt(sd.Chunks, p.Off)
			c.emit("websocket.protocol", Pointer{Ex: x.Ex, Side: side, Event: -1, Chunk: i, Off: p.Off, T: t}, "", p.Msg)
		}
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
		if m := &ws.Messages[from]; m.Opcode == wsframe.Text {
			events = append(events, protocol.RealtimeEvent{FromClient: m.Side == tape.Client, Message: to, Data: string(payloads[from])})
		}
	}
	ws.Messages = sorted
	if v := c.sides[tape.Upstream]; v != nil {
		c.view = v
		rep.Status, rep.Outcome, rep.TTFB, rep.Dur = v.Status, v.Outcome, v.TTFB, v.Dur
	}
	rep.Events = len(ws.Messages)
	if protocol.IsRealtime(events) {
		rep.Protocol = protocol.Realtime
		ws.Realtime = protocol.AssembleRealtime(events)
		if rep.Model == "" {
			rep.Model = ws.Realtime.Model
		}
		c.realtimeFindings(events)
	}
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int { return cmp.Compare(b.Severity, a.Severity) })
}

// realtimeFindings reports what went wrong in a Realtime session.
func (c *exCtx) realtimeFindings(events []protocol.RealtimeEvent) {
	ws := c.rep.WebSocket
	rt := ws.Realtime
	at := func(i int) Pointer {
		m := ws.Messages[i]
		return Pointer{Ex: c.x.Ex, Side: m.Side, Event: i, Chunk: m.Chunk, Off: m.Off, T: m.T}
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
			c.emit("realtime.response-failed", at(r.Message), r.StatusDetails, fmt.Sprintf("response %s ended %s", r.ID, r.Status))
		}
		for _, p := range r.Parts {
			if p.HasDone && p.Deltas > 0 && p.Done != p.Text {
				c.emit("final.mismatch", at(p.Message), excerpt.Clip(p.Done, 80),
					fmt.Sprintf("response %s item %s: the %s deltas join to %d bytes that differ from the done event's", r.ID, p.ItemID, p.Kind, len(p.Text)))
			}
		}
	}
}

// chunkTimeAt returns the index and time of the chunk holding byte off,
// or -1, -1 when there are no chunks.
func chunkTimeAt(chunks []tape.Chunk, off int64) (int, int64) {
	if len(chunks) == 0 {
		return -1, -1
	}
	i := sort.Search(len(chunks), func(i int) bool { return chunks[i].Off > off })
	if i > 0 {
		i--
	}
	return i, chunks[i].T
}

// clipBytes returns b as a string cut to at most n bytes on a rune
// boundary, and whether it was cut.
func clipBytes(b []byte, n int) (string, bool) {
	if len(b) <= n {
		return string(b), false
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]), true
}
