package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// A WebSocket exchange's two sides are the two directions of one
// session, not a response and what a proxy made of it: the Diff tab shows
// the session (each direction, how it closed, the Realtime transcript),
// the timeline and the Raw tab show the messages as inspect decoded them
// (unmasked, inflated) beside the frames as they crossed the wire.

// wsDirection names which way a WebSocket side's bytes went.
func wsDirection(s tape.Side) string {
	if s == tape.Client {
		return "client → server"
	}
	return "server → client"
}

// wsPreviews gives each chunk row of a WebSocket exchange the decoded
// payload of the first message it completes, to show in place of its
// masked or compressed bytes.
func (v *exView) wsPreviews() {
	if v.rep.WebSocket == nil {
		return
	}
	for i := range v.rows {
		r := &v.rows[i]
		if r.event {
			continue
		}
		for _, e := range v.events[r.side] {
			if e.EndChunk == r.idx {
				r.preview = e.Data
				break
			}
		}
	}
}

// wsData returns what the Raw tab and the clipboard give of a WebSocket
// row: an event's payload as decoded, or the payloads of the messages a
// chunk completes; false when there is none (a piece of a long frame).
func (v *exView) wsData(t rawTarget) ([]byte, bool) {
	if v.rep.WebSocket == nil {
		return nil, false
	}
	evs := v.events[t.side]
	if t.event {
		if t.idx < len(evs) {
			return []byte(evs[t.idx].Data), true
		}
		return nil, false
	}
	var out []string
	for _, e := range evs {
		if e.EndChunk == t.idx {
			out = append(out, e.Data)
		}
	}
	return []byte(strings.Join(out, "\n")), len(out) > 0
}

// wsMessage returns the report's message for event i of side s.
func wsMessage(ws *inspect.WebSocketReport, s tape.Side, i int) *inspect.WSMessage {
	for j := range ws.Messages {
		if m := &ws.Messages[j]; m.Side == s && m.Index == i {
			return m
		}
	}
	return nil
}

// wsRawHead describes, for the Raw tab, a WebSocket event (the message
// decoded) or chunk (its frame as it crossed the wire).
func (v *exView) wsRawHead(t rawTarget) string {
	if t.event {
		m := wsMessage(v.rep.WebSocket, t.side, t.idx)
		if m == nil {
			return fmt.Sprintf("%s message %d", t.side, t.idx)
		}
		head := fmt.Sprintf("%s message %d (%s) · %s · %d bytes", t.side, t.idx, wsDirection(t.side), m.Opcode, m.Bytes)
		if m.Type != "" {
			head += " · " + clean(m.Type)
		}
		var notes []string
		if m.Frames > 1 {
			notes = append(notes, units.Count(m.Frames, "frame"))
		}
		if m.Compressed {
			notes = append(notes, "inflated")
		}
		if m.Deflated {
			notes = append(notes, "left deflated (a finding says why)")
		}
		if m.Elided > 0 {
			notes = append(notes, fmt.Sprintf("%d characters of base64 audio shown as …", m.Elided))
		}
		if m.CloseCode != 0 {
			notes = append(notes, "close "+strconv.Itoa(m.CloseCode))
		}
		if m.Incomplete {
			notes = append(notes, "incomplete")
		}
		if t.side == tape.Client {
			notes = append(notes, "unmasked")
		}
		if len(notes) > 0 {
			head += " · " + strings.Join(notes, ", ")
		}
		return head + " · t=" + units.Duration(m.T)
	}
	c := v.chunks[t.side][t.idx]
	head := fmt.Sprintf("%s chunk %d of %d · off %d · %d bytes · t=%s", t.side, t.idx, len(v.chunks[t.side]), c.Off, len(c.Data), units.Duration(c.T))
	var s wsframe.Splitter
	var h *wsframe.Header
	s.Feed(c.Data, func(p wsframe.Piece) {
		if h == nil && !p.Raw && p.At == 0 {
			h = &p.Frame
		}
	})
	if h != nil {
		var bits []string
		if h.Fin {
			bits = append(bits, "fin")
		}
		if h.Rsv1 {
			bits = append(bits, "compressed")
		}
		if h.Masked {
			bits = append(bits, "masked")
		}
		head += fmt.Sprintf(" · %s frame (%s), %d payload bytes", h.Opcode, strings.Join(bits, ", "), h.Length)
	}
	return head
}

// buildSession is the Diff tab of a WebSocket exchange: each direction
// with how it ended and the close frame it carried, then the Realtime
// session it assembles to.
func (m *model) buildSession() *diffDoc {
	v, st := m.det.view(), m.st
	ws := v.rep.WebSocket
	var out staticDoc
	head := fmt.Sprintf("━━ WebSocket session · %s", clean(string(v.rep.Protocol)))
	out = append(out, newLine(sty(head, st.header)),
		newLine(sty("   extensions ", st.dim), txt(strconv.Quote(clean(ws.Extensions))), sty(" · subprotocol ", st.dim), txt(strconv.Quote(clean(ws.Subprotocol)))))
	closes := map[tape.Side]*inspect.WSMessage{}
	for i := range ws.Messages {
		if msg := &ws.Messages[i]; msg.Opcode == wsframe.Close && closes[msg.Side] == nil {
			closes[msg.Side] = msg
		}
	}
	for _, s := range v.rep.Sides {
		line := []run{sty(fmt.Sprintf("   %-15s ", wsDirection(s.Side)), sideStyle(st, s.Side)),
			txt(fmt.Sprintf("%s, %s, %s", units.Count(s.Chunks, "frame"), units.Count(s.Events, "message"), units.Bytes(s.Bytes)))}
		if s.Outcome != "" {
			line = append(line, txt(" · "+clean(string(s.Outcome))))
		}
		switch c := closes[s.Side]; {
		case c == nil:
			line = append(line, sty(" · no close frame", st.notice))
		case c.CloseCode == 0:
			line = append(line, txt(" · closed (no status)"))
		default:
			closeSt := st.okText
			if c.CloseCode != 1000 && c.CloseCode != 1001 {
				closeSt = st.failText
			}
			line = append(line, sty(" · closed "+wsframe.CloseName(c.CloseCode), closeSt))
			if c.CloseReason != "" {
				line = append(line, txt(" "+strconv.Quote(clean(c.CloseReason))))
			}
		}
		out = append(out, newLine(line...))
	}
	if ws.NotKept > 0 {
		out = append(out, newLine(sty(fmt.Sprintf("   %d messages decoded but not kept (see the websocket.cap finding)", ws.NotKept), st.notice)))
	}
	if rt := ws.Realtime; rt != nil {
		out = append(out, newLine(), newLine(sty(fmt.Sprintf("━━ realtime session %s · model %s", strconv.Quote(clean(rt.SessionID)), strconv.Quote(clean(rt.Model))), st.header)))
		for _, in := range rt.Inputs {
			out = append(out, newLine(append([]run{sty(fmt.Sprintf("   user (%s): ", clean(in.Kind)), st.bold)}, visibleRuns(in.Text, txt(""), st.marker, true)...)...))
		}
		for _, r := range rt.Responses {
			status := r.Status
			statusSt := st.okText
			switch status {
			case "":
				status, statusSt = "no response.done", st.failText
			case "failed", "incomplete", "cancelled":
				statusSt = st.failText
			}
			line := []run{sty("   response ", st.bold), txt(strconv.Quote(clean(r.ID)) + ": "), sty(clean(status), statusSt)}
			if r.Usage != nil {
				line = append(line, sty(fmt.Sprintf(" · usage in %d, out %d", r.Usage.Input, r.Usage.Output), st.dim))
			}
			out = append(out, newLine(line...))
			if r.StatusDetails != "" {
				out = append(out, newLine(append([]run{sty("     details ", st.dim)}, visibleRuns(r.StatusDetails, txt(""), st.marker, true)...)...))
			}
			for _, p := range r.Parts {
				label := "     " + clean(p.Kind) + ": "
				if p.Kind == "function_call" {
					label = fmt.Sprintf("     call %s #%s: ", clean(p.Name), clean(p.CallID))
				}
				out = append(out, newLine(append([]run{sty(label, st.boundary)}, visibleRuns(p.Final(), txt(""), st.marker, true)...)...))
			}
		}
		if rt.InputAudioBytes+rt.OutputAudioBytes > 0 {
			out = append(out, newLine(sty(fmt.Sprintf("   audio: %s in, %s out", units.Bytes(int64(rt.InputAudioBytes)), units.Bytes(int64(rt.OutputAudioBytes))), st.dim)))
		}
		for _, e := range rt.Errors {
			out = append(out, newLine(append([]run{sty("   error ", st.failText), txt(clean(strings.TrimSpace(e.Type+" "+e.Code)) + ": ")}, visibleRuns(e.Message, txt(""), st.marker, true)...)...))
		}
	}
	return &diffDoc{lines: out, mark: st.marker, width: m.w - 2}
}

// sideStyle is the style of a side's name.
func sideStyle(st styles, s tape.Side) lipgloss.Style {
	if s == tape.Client {
		return st.client
	}
	return st.upstream
}

// wsRawDoc is the Raw tab on a WebSocket row: what it decodes to, then
// the bytes that crossed the wire (masked, compressed) for a frame.
func (m *model) wsRawDoc(t rawTarget, data []byte) doc {
	v, st := m.det.view(), m.st
	if !t.event && t.idx >= len(v.chunks[t.side]) {
		return staticDoc{newLine(sty(fmt.Sprintf("no %s chunks", t.side), st.dim))}
	}
	out := staticDoc{newLine(sty(v.wsRawHead(t), st.header)), newLine(sty("␍ CR  ␊ LF  ⇥ tab  ␛ ESC  · trailing space  ⟨U+…⟩ hidden  ⟨\\xNN⟩ not UTF-8", st.dim))}
	w := max(m.w-4, 10)
	add := func(b []byte) {
		for _, l := range splitKeep(string(b)) {
			for _, part := range wrapRuns(visibleRuns(l, txt(""), st.marker, false), w) {
				out = append(out, newLine(part...))
			}
		}
	}
	if !t.event {
		out = append(out, newLine(sty("━━ decoded (unmasked, inflated)", st.header)))
	}
	add(data)
	if !t.event {
		out = append(out, newLine(), newLine(sty("━━ as it crossed the wire", st.header)))
		add(v.chunks[t.side][t.idx].Data)
	}
	return out
}
