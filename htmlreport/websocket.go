package htmlreport

import (
	"fmt"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// maxMessages bounds the WebSocket messages listed per exchange.
const maxMessages = 500

// wsView is what the page shows of a WebSocket exchange: its messages in
// time order and, for an OpenAI Realtime session, what it assembles to.
type wsView struct {
	Extensions, Subprotocol string
	Messages                []wsMessageView
	// More counts the messages not listed.
	More     int
	Realtime *realtimeView
}

type wsMessageView struct {
	N                 int
	Time, Dir, Opcode string
	Bytes             string
	// Detail is the close code and reason, the JSON type, or the text.
	Detail     string
	Notes      string
	Incomplete bool
}

type realtimeView struct {
	SessionID, Model string
	Inputs           []kv
	Responses        []realtimeResponseView
	Audio            string
	Errors           []string
}

type realtimeResponseView struct {
	ID, Status, Usage string
	Parts             []realtimePartView
}

type realtimePartView struct {
	Kind, Name, CallID string
	Text               clipped
}

// direction names which way a WebSocket side's bytes went.
func direction(s tape.Side) string {
	if s == tape.Client {
		return "client → server"
	}
	return "server → client"
}

func buildWebSocket(ws *inspect.WebSocketReport) *wsView {
	v := &wsView{Extensions: ws.Extensions, Subprotocol: ws.Subprotocol}
	for i, m := range ws.Messages {
		if i >= maxMessages {
			v.More = len(ws.Messages) - maxMessages
			break
		}
		mv := wsMessageView{N: i, Time: units.Duration(m.T), Dir: "←", Opcode: m.Opcode.String(),
			Bytes: commas(int64(m.Bytes)), Incomplete: m.Incomplete}
		if m.Side == tape.Client {
			mv.Dir = "→"
		}
		var notes []string
		switch {
		case m.Deflated:
			notes = append(notes, "left deflated")
		case m.Compressed:
			notes = append(notes, "deflated")
		}
		if m.Elided > 0 {
			notes = append(notes, "audio not kept")
		}
		if m.Frames > 1 {
			notes = append(notes, units.Count(m.Frames, "frame"))
		}
		mv.Notes = strings.Join(notes, ", ")
		switch {
		case m.CloseCode != 0:
			mv.Detail = wsframe.CloseName(m.CloseCode) + " " + m.CloseReason
		case m.Type != "":
			mv.Detail = m.Type
		default:
			mv.Detail = clip(m.Text, 200).Text
		}
		v.Messages = append(v.Messages, mv)
	}
	rt := ws.Realtime
	if rt == nil {
		return v
	}
	rv := &realtimeView{SessionID: rt.SessionID, Model: rt.Model}
	for _, in := range rt.Inputs {
		rv.Inputs = append(rv.Inputs, kv{in.Kind, clip(in.Text, maxValue).Text})
	}
	for _, r := range rt.Responses {
		resp := realtimeResponseView{ID: r.ID, Status: orDash(r.Status)}
		if r.Usage != nil {
			resp.Usage = fmt.Sprintf("in %d, out %d", r.Usage.Input, r.Usage.Output)
		}
		for _, p := range r.Parts {
			resp.Parts = append(resp.Parts, realtimePartView{Kind: p.Kind, Name: p.Name, CallID: p.CallID, Text: clip(p.Final(), maxText)})
		}
		rv.Responses = append(rv.Responses, resp)
	}
	if rt.InputAudioBytes+rt.OutputAudioBytes > 0 {
		rv.Audio = fmt.Sprintf("%s bytes in, %s bytes out", commas(int64(rt.InputAudioBytes)), commas(int64(rt.OutputAudioBytes)))
	}
	for _, e := range rt.Errors {
		rv.Errors = append(rv.Errors, strings.TrimSpace(orDash(e.Type)+" "+e.Code)+": "+e.Message)
	}
	v.Realtime = rv
	return v
}
