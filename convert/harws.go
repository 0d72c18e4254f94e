package convert

import (
	"fmt"
	"net/http"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// harWSMessage is one WebSocket message of a HAR entry, in the field
// Chrome and Firefox write and read: _webSocketMessages, with the
// direction, the time in seconds since the epoch, the opcode and the
// payload (base64 for a binary message).
type harWSMessage struct {
	Type   string  `json:"type"`
	Time   float64 `json:"time"`
	Opcode int     `json:"opcode"`
	Data   string  `json:"data"`
}

// maxHARMessages bounds the bytes of WebSocket payload one HAR entry
// holds: a capture of a few MB can inflate to gigabytes.
const maxHARMessages = 32 << 20

// harWebSocket returns the data messages of a WebSocket exchange (one
// whose upstream answered 101) as a HAR entry lists them, in time order,
// decoded (unmasked, inflated) with the secret values masked, and a
// comment on how each direction closed and what was left out; nil for any
// other exchange.
func harWebSocket(x *tape.Exchange, started time.Time, secrets []string) ([]harWSMessage, string) {
	if x.Upstream.Response == nil || x.Upstream.Response.Status != http.StatusSwitchingProtocols {
		return nil, ""
	}
	out := []harWSMessage{}
	ext := x.Upstream.Response.Headers["sec-websocket-extensions"]
	var comment string
	var kept, inflated int64
	left := 0
	for _, side := range []tape.Side{tape.Client, tape.Upstream} {
		sd := x.Side(side)
		o := wsframe.Negotiated(ext, side == tape.Client)
		o.Inflated = inflated
		typ := "receive"
		if side == tape.Client {
			typ = "send"
		}
		_, inflated = wsframe.Walk(sd.Body(), o, func(m *wsframe.Message) {
			switch {
			case m.Opcode == wsframe.Close:
				comment += fmt.Sprintf(", %s closed %d %q", map[tape.Side]string{tape.Client: "client", tape.Upstream: "server"}[side], m.CloseCode, m.CloseReason)
				return
			case m.Opcode != wsframe.Text && m.Opcode != wsframe.Binary:
				return
			case m.Deflated || kept+int64(len(m.Payload)) > maxHARMessages:
				left++
				return
			}
			kept += int64(len(m.Payload))
			data, _ := tape.MaskSecrets(m.Payload, secrets, nil)
			hm := harWSMessage{Type: typ, Time: seconds(started, chunkTime(sd.Chunks, m.End-1)), Opcode: int(m.Opcode), Data: string(data)}
			if m.Opcode == wsframe.Binary || !utf8.Valid(data) {
				hm.Data = b64(data)
			}
			out = append(out, hm)
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	if left > 0 {
		comment += fmt.Sprintf(", %d WebSocket messages left out (not inflated, or past %d bytes of messages)", left, maxHARMessages)
	}
	return out, comment
}

// chunkTime is the time of the chunk holding byte off of a side.
func chunkTime(chunks []tape.Chunk, off int64) int64 {
	if i := tape.ChunkAt(chunks, off); i >= 0 {
		return chunks[i].T
	}
	return 0
}

// seconds is t ns after started, in seconds since the epoch.
func seconds(started time.Time, t int64) float64 {
	return float64(started.Add(time.Duration(t)).UnixNano()) / 1e9
}
