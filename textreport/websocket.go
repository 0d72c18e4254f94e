package textreport

import (
	"fmt"
	"io"
	"strconv"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
	"github.com/seam-dev/seam/wsframe"
)

// maxTimeline is how many messages the text report lists per exchange.
const maxTimeline = 40

// writeWebSocket writes a WebSocket exchange: each side's totals, the
// message timeline and the Realtime transcript.
func writeWebSocket(w io.Writer, x *inspect.ExchangeReport, paint func(code, s string) string) {
	ws := x.WebSocket
	for _, s := range x.Sides {
		dir := "server → client"
		if s.Side == tape.Client {
			dir = "client → server"
		}
		fmt.Fprintf(w, "-- %s (%s): %s, %s, %s", s.Side, dir, units.Count(s.Chunks, "frame"), units.Count(s.Events, "message"), units.Count(int(s.Bytes), "byte"))
		if s.Outcome != "" {
			fmt.Fprintf(w, ", %s", visible.String(string(s.Outcome)))
		}
		fmt.Fprintln(w)
	}
	if ws.Extensions != "" || ws.Subprotocol != "" {
		fmt.Fprintf(w, "   extensions %s · subprotocol %s\n", strconv.Quote(ws.Extensions), strconv.Quote(ws.Subprotocol))
	}
	fmt.Fprintf(w, "-- messages: %d\n", len(ws.Messages))
	for i, m := range ws.Messages {
		if i == maxTimeline {
			fmt.Fprintf(w, "   … %d more (seam inspect --json lists them all)\n", len(ws.Messages)-maxTimeline)
			break
		}
		arrow := "←"
		if m.Side == tape.Client {
			arrow = "→"
		}
		// The number is the message's in its side, as findings name it
		// ("at upstream event 3").
		fmt.Fprintf(w, "   %4d %9s %s %-6s %6d B", m.Index, units.Duration(m.T), arrow, m.Opcode, m.Bytes)
		switch {
		case m.Deflated:
			fmt.Fprint(w, " left deflated")
		case m.Compressed:
			fmt.Fprint(w, " deflated")
		}
		if m.Frames > 1 {
			fmt.Fprintf(w, " %d frames", m.Frames)
		}
		switch {
		case m.Opcode == wsframe.Close && m.CloseCode != 0:
			fmt.Fprintf(w, "  %s %s", wsframe.CloseName(m.CloseCode), strconv.Quote(m.CloseReason))
		case m.Type != "":
			fmt.Fprintf(w, "  %s", strconv.Quote(m.Type))
		case m.Text != "":
			fmt.Fprintf(w, "  %s", strconv.Quote(excerpt.Clip(m.Text, 60)))
		}
		if m.Incomplete {
			fmt.Fprint(w, paint(ansiYellow, "  (incomplete)"))
		}
		fmt.Fprintln(w)
	}
	if rt := ws.Realtime; rt != nil {
		writeRealtime(w, rt)
	}
}

// writeRealtime writes an assembled Realtime session.
func writeRealtime(w io.Writer, rt *protocol.RealtimeSession) {
	fmt.Fprintf(w, "-- realtime session %s · model %s\n", strconv.Quote(rt.SessionID), strconv.Quote(rt.Model))
	for _, in := range rt.Inputs {
		fmt.Fprintf(w, "   user (%s): %s\n", in.Kind, strconv.Quote(excerpt.Clip(in.Text, 400)))
	}
	for _, r := range rt.Responses {
		fmt.Fprintf(w, "   response %s: %s", strconv.Quote(r.ID), orDash(r.Status))
		if r.Usage != nil {
			fmt.Fprintf(w, " · usage in %d, out %d", r.Usage.Input, r.Usage.Output)
		}
		fmt.Fprintln(w)
		for _, p := range r.Parts {
			switch p.Kind {
			case "function_call":
				fmt.Fprintf(w, "     call %s(%s) #%s\n", strconv.Quote(p.Name), visible.String(excerpt.Clip(p.Final(), 200)), strconv.Quote(p.CallID))
			default:
				fmt.Fprintf(w, "     %s: %s\n", p.Kind, strconv.Quote(excerpt.Clip(p.Final(), 400)))
			}
		}
	}
	if rt.InputAudioBytes+rt.OutputAudioBytes > 0 {
		fmt.Fprintf(w, "   audio: %d bytes in, %d bytes out\n", rt.InputAudioBytes, rt.OutputAudioBytes)
	}
	for _, e := range rt.Errors {
		fmt.Fprintf(w, "   error %s %s: %s\n", orDash(e.Type), visible.String(e.Code), strconv.Quote(e.Message))
	}
}
