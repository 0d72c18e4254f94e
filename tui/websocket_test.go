package tui

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// realtimeCapture is a capture of one Realtime session: the client's
// messages masked, the server's compressed, a text response whose deltas
// come one frame each, and the server closing 1011 while a second
// response is in progress.
func realtimeCapture() []byte {
	server := []string{
		`{"type":"session.created","event_id":"ev_1","session":{"id":"sess_1","model":"gpt-realtime"}}`,
		`{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}`,
		`{"type":"response.output_text.delta","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"delta":"Bon"}`,
		`{"type":"response.output_text.delta","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"delta":"jour"}`,
		`{"type":"response.output_text.done","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"text":"Bonjour"}`,
		`{"type":"response.done","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":7,"output_tokens":2,"total_tokens":9}}}`,
		`{"type":"response.created","response":{"id":"resp_2","status":"in_progress"}}`,
	}
	client := []string{
		`{"type":"conversation.item.create","item":{"type":"message","role":"user","content":[{"type":"input_text","text":"Say hello in French"}]}}`,
		`{"type":"response.create"}`,
		`{"type":"response.create"}`,
	}
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, T: 0, Method: "GET", URL: "/v1/realtime?model=gpt-realtime",
		Headers: tape.Headers{"upgrade": {"websocket"}}}}
	h := tape.Headers{"upgrade": {"websocket"}, "sec-websocket-extensions": {"permessage-deflate"}, "sec-websocket-protocol": {"realtime"}}
	frames := map[tape.Side][][]byte{}
	for _, m := range server {
		frames[tape.Upstream] = append(frames[tape.Upstream], wsframe.AppendFrame(nil, wsframe.Header{Fin: true, Rsv1: true, Opcode: wsframe.Text}, wsframe.Deflate(nil, []byte(m))))
	}
	frames[tape.Upstream] = append(frames[tape.Upstream], ws.MustCompileFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(1011, "Internal server error"))))
	for _, m := range client {
		frames[tape.Client] = append(frames[tape.Client], ws.MustCompileFrame(ws.MaskFrame(ws.NewTextFrame([]byte(m)))))
	}
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(side)
		sd.Response = &tape.Response{Ex: 1, Side: side, T: 1e6, Status: 101, Headers: h}
		var off int64
		for i, f := range frames[side] {
			t := int64(i+2) * 10e6
			if side == tape.Client {
				t = int64(i+1)*10e6 + 5e6
			}
			sd.Chunks = append(sd.Chunks, tape.Chunk{Ex: 1, Side: side, T: t, Off: off, Data: f})
			off += int64(len(f))
		}
		outcome := tape.Complete
		if side == tape.Client {
			outcome = tape.ClientAborted
		}
		sd.End = &tape.End{Ex: 1, Side: side, T: 200e6, Outcome: outcome, Bytes: off}
	}
	b := tape.AppendHeader(nil, tape.Header{V: tape.Version, Seam: "test", ID: "rt", Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), Upstream: "https://api.openai.com", Engine: tape.Engine{Profile: "passthrough"}})
	return tape.AppendExchange(b, x)
}

// TestRealtimeSession: a Realtime exchange in the TUI shows the session,
// not a stream recorded on one side: the Diff tab has each direction with
// its close code and the transcript; the timeline names each frame by the
// message it completes and previews it decoded (the client's unmasked,
// the server's inflated), with the close frame the finding points at;
// the Raw tab shows a client frame decoded beside its masked bytes.
func TestRealtimeSession(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rt.ndjson")
	writeCapture(t, path, realtimeCapture())
	m := newTestModel(t, 140, 40, path)
	press(t, m, "enter")
	tabs := map[string]string{}
	for i, name := range tabNames {
		press(t, m, strconv.Itoa(i+1))
		tabs[name] = screen(m)
	}
	for tab, wants := range map[string][]string{
		"Diff": {"server → client 8 frames, 8 messages", "closed 1011 (internal error) \"Internal server error\"",
			"client → server 3 frames, 3 messages", "no close frame",
			`realtime session "sess_1"`, "user (text): Say hello in French", `response "resp_1": completed · usage in 7, out 2`,
			"text: Bonjour", `response "resp_2": no response.done`},
		"Timeline": {`{"type":"response.create"}`, `{"type":"session.created","event_id":"ev_1"`, `"Bon"`, "close 1011", "! up c7"},
		"Raw":      {"text frame (fin, masked)", "━━ decoded (unmasked, inflated)", `"text":"Say hello in French"`, "━━ as it crossed the wire"},
		"Findings": {"websocket.close-error"},
	} {
		for _, want := range wants {
			if !strings.Contains(tabs[tab], want) {
				t.Errorf("%s tab lacks %q:\n%s", tab, want, tabs[tab])
			}
		}
	}
	for tab, scr := range tabs {
		for _, bad := range []string{"(partial)", "only one side was recorded", "client_aborted  ttfb"} {
			if strings.Contains(scr, bad) {
				t.Errorf("%s tab shows %q:\n%s", tab, bad, scr)
			}
		}
	}
}
