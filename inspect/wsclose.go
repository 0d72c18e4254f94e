package inspect

import (
	"fmt"
	"strconv"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// closeFindings judges how a WebSocket session ended, as an SDK sees it:
// a close code other than normal closure (1000), going away (1001) or no
// status at all is an error while a Realtime response is in progress (the
// SDK's response never completes) and a warning after; so is a server
// side that ended with no close frame (a dropped connection, 1006 to the
// client). Going away while a response is in progress cuts it too. Only
// the first close frame is judged: the other side's answers it, and
// usually repeats its code (RFC 6455 §5.5.1).
func (c *exCtx) closeFindings() {
	ws := c.rep.WebSocket
	closed := map[tape.Side]bool{}
	for i, m := range ws.Messages {
		if m.Opcode != wsframe.Close || len(closed) > 0 {
			continue
		}
		closed[m.Side] = true
		normal := m.CloseCode == 0 || m.CloseCode == 1000 || m.CloseCode == 1005
		open := c.openResponse(i)
		if normal || m.CloseCode == 1001 && open == "" {
			continue
		}
		who := "the server"
		if m.Side == tape.Client {
			who = "the client"
		}
		at := Pointer{Ex: c.x.Ex, Side: m.Side, Event: m.Index, Chunk: m.Chunk, Off: m.Off, T: m.T}
		evidence := ""
		if m.CloseReason != "" {
			evidence = strconv.Quote(m.CloseReason)
		}
		if open != "" {
			c.emit("websocket.close-error", at, evidence, fmt.Sprintf("%s closed the session with %s while response %s was in progress", who, wsframe.CloseName(m.CloseCode), open))
		} else {
			c.emit("websocket.close", at, evidence, fmt.Sprintf("%s closed the session with %s", who, wsframe.CloseName(m.CloseCode)))
		}
	}
	for _, m := range ws.Messages {
		closed[m.Side] = closed[m.Side] || m.Opcode == wsframe.Close
	}
	up := c.sides[tape.Upstream]
	if closed[tape.Upstream] || up == nil || (up.Outcome != tape.Truncated && up.Outcome != tape.UpstreamError) {
		return
	}
	at := Pointer{Ex: c.x.Ex, Side: tape.Upstream, Event: -1, Chunk: up.Chunks - 1, Off: up.Bytes, T: -1}
	if open := c.openResponse(len(ws.Messages)); open != "" {
		c.emit("websocket.close-error", at, up.Error, fmt.Sprintf("the server's side ended with no close frame (%s) while response %s was in progress: the client sees 1006 (abnormal closure)", up.Outcome, open))
	} else {
		c.emit("websocket.close", at, up.Error, fmt.Sprintf("the server's side ended with no close frame (%s): the client sees 1006 (abnormal closure)", up.Outcome))
	}
}

// openResponse returns the id of a Realtime response created before
// message i (in time order) whose response.done had not come by then, or
// "".
func (c *exCtx) openResponse(i int) string {
	rt := c.rep.WebSocket.Realtime
	if rt == nil {
		return ""
	}
	for _, r := range rt.Responses {
		if r.Message < i && (r.Done < 0 || r.Done > i) {
			return r.ID
		}
	}
	return ""
}
