package inspect_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/gobwas/ws"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// wsExchange is a WebSocket exchange whose upstream sent server and whose
// client sent client (masked), each message one frame, one chunk each.
func wsExchange(server, client []string) *tape.Exchange {
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "GET", URL: "/v1/realtime?model=gpt-realtime"}}
	for side, msgs := range map[tape.Side][]string{tape.Upstream: server, tape.Client: client} {
		sd := x.Side(side)
		sd.Response = &tape.Response{Ex: 1, Side: side, Status: 101, Headers: tape.Headers{"upgrade": {"websocket"}}}
		var off int64
		for i, m := range msgs {
			f := ws.NewTextFrame([]byte(m))
			if side == tape.Client {
				f = ws.MaskFrame(f)
			}
			b := ws.MustCompileFrame(f)
			sd.Chunks = append(sd.Chunks, tape.Chunk{Ex: 1, Side: side, T: int64(i+1) * 1e6, Off: off, Data: b})
			off += int64(len(b))
		}
		sd.End = &tape.End{Ex: 1, Side: side, T: 1e9, Outcome: tape.Complete, Bytes: off}
	}
	return x
}

// TestRealtimeAudioElided: a voice session's base64 audio, the bulk of
// it, is counted but not kept: the messages keep their JSON with "…" in
// place of the audio, say how much was left out, and the session's audio
// totals are the decoded sizes.
func TestRealtimeAudioElided(t *testing.T) {
	audio := base64.StdEncoding.EncodeToString(make([]byte, 3000))
	x := wsExchange([]string{
		`{"type":"session.created","session":{"id":"sess_1","model":"gpt-realtime"}}`,
		`{"type":"response.created","response":{"id":"r1"}}`,
		`{"type":"response.output_audio.delta","response_id":"r1","item_id":"i1","content_index":0,"delta":"` + audio + `"}`,
		`{"type":"response.audio.delta","response_id":"r1","item_id":"i1","content_index":0,"delta":"` + audio[:400] + `"}`,
		`{"type":"response.done","response":{"id":"r1","status":"completed"}}`,
	}, []string{`{"type":"input_audio_buffer.append","audio":"` + audio + `"}`})
	rep := inspect.Inspect(&tape.Capture{Name: "ws.ndjson", Exchanges: []*tape.Exchange{x}}, inspect.Options{})
	w := rep.Exchanges[0].WebSocket
	if w.Realtime == nil || w.Realtime.OutputAudioBytes != 3300 || w.Realtime.InputAudioBytes != 3000 {
		t.Fatalf("realtime %+v", w.Realtime)
	}
	elided := 0
	for _, m := range w.Messages {
		if m.Elided > 0 {
			elided++
			if strings.Contains(m.Text, "AAAA") || !strings.Contains(m.Text, `"…"`) || m.Bytes < m.Elided {
				t.Errorf("message %+v keeps its audio", m)
			}
		}
	}
	if elided != 3 {
		t.Errorf("%d messages elided, want 3", elided)
	}
	if fs := rep.Exchanges[0].Findings; len(fs) > 0 {
		t.Errorf("findings %+v", fs)
	}
}
