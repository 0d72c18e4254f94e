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

// closeFrame is a server's close frame.
func closeFrame(code ws.StatusCode, reason string) []byte {
	return ws.MustCompileFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(code, reason)))
}

// withServerFrame adds a raw frame after the upstream side's frames.
func withServerFrame(x *tape.Exchange, frame []byte) *tape.Exchange {
	return withFrame(x, tape.Upstream, frame, int64(len(x.Upstream.Chunks)+1)*1e6)
}

// withFrame adds a raw frame, arrived at t, after a side's frames.
func withFrame(x *tape.Exchange, side tape.Side, frame []byte, t int64) *tape.Exchange {
	sd := x.Side(side)
	off := sd.End.Bytes
	sd.Chunks = append(sd.Chunks, tape.Chunk{Ex: 1, Side: side, T: t, Off: off, Data: frame})
	sd.End.Bytes += int64(len(frame))
	return x
}

// TestRealtimeVerdicts: how a Realtime session ends decides its verdict,
// as the SDK would: closed 1011 in the middle of a response is an error,
// after the response finished a warning, 1000 is fine; a failed response
// is pointed at by the response.done that says so, not response.created.
func TestRealtimeVerdicts(t *testing.T) {
	session := `{"type":"session.created","session":{"id":"sess_1","model":"gpt-realtime"}}`
	created := `{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}`
	delta := `{"type":"response.output_text.delta","response_id":"resp_1","item_id":"i1","content_index":0,"delta":"Bon"}`
	done := func(status string) string {
		return `{"type":"response.done","response":{"id":"resp_1","status":"` + status + `","status_details":{"type":"failed","error":{"type":"server_error","message":"The server had an error"}}}}`
	}
	for _, tc := range []struct {
		name    string
		x       *tape.Exchange
		verdict string // the worst finding, "" for none
		at      int    // the upstream message it points at
	}{
		{"1011 mid-response", withServerFrame(wsExchange([]string{session, created, delta}, nil), closeFrame(1011, "Internal server error")), "websocket.close-error", 3},
		// The client's close answers the server's, repeating its code: one
		// finding, on the server's.
		{"1011 answered", withFrame(withServerFrame(wsExchange([]string{session, created, delta}, nil), closeFrame(1011, "Internal server error")),
			tape.Client, ws.MustCompileFrame(ws.MaskFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(1011, "")))), 5e6), "websocket.close-error", 3},
		{"1011 after", withServerFrame(wsExchange([]string{session, created, delta, done("completed")}, nil), closeFrame(1011, "keepalive ping timeout")), "websocket.close", 4},
		{"1000 after", withServerFrame(wsExchange([]string{session, created, delta, done("completed")}, nil), closeFrame(1000, "")), "", 0},
		{"failed", wsExchange([]string{session, created, delta, done("failed")}, nil), "realtime.response-failed", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := inspect.Inspect(&tape.Capture{Name: "ws.ndjson", Exchanges: []*tape.Exchange{tc.x}}, inspect.Options{})
			fs := rep.Exchanges[0].Findings
			if tc.verdict == "" {
				if len(fs) > 0 {
					t.Errorf("findings %+v", fs)
				}
				return
			}
			if len(fs) == 0 || fs[0].ID != tc.verdict || fs[0].Pointer.Side != tape.Upstream || fs[0].Pointer.Event != tc.at {
				t.Fatalf("findings %+v, want %s first, at upstream message %d", fs, tc.verdict, tc.at)
			}
			if tc.verdict == "websocket.close-error" && (fs[0].Severity != inspect.Error || !strings.Contains(fs[0].Message, "1011 (internal error) while response resp_1 was in progress")) {
				t.Errorf("finding %+v", fs[0])
			}
			n := 0
			for _, f := range fs {
				if strings.HasPrefix(f.ID, "websocket.close") {
					n++
				}
			}
			if n > 1 {
				t.Errorf("%d close findings: %+v", n, fs)
			}
		})
	}
}
