package htmlreport

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"

	"github.com/seam-dev/seam/internal/goldenfile"
	"github.com/seam-dev/seam/tape"
)

// realtimeCapture returns a capture of one OpenAI Realtime session over
// WebSocket, recorded through a forward proxy: the client creates an item
// and a response, the server streams the text, and the client closes.
// Every text carries extra.
func realtimeCapture(t *testing.T, extra string) *tape.Capture {
	t.Helper()
	// str returns s as the inside of a JSON string.
	str := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b[1 : len(b)-1])
	}
	server := []string{
		`{"type":"session.created","session":{"id":"sess_1` + str(extra) + `","model":"gpt-realtime"}}`,
		`{"type":"response.created","response":{"id":"resp_1"}}`,
		`{"type":"response.output_text.delta","response_id":"resp_1","item_id":"item_1","content_index":0,"delta":"Bonjour` + str(extra) + `"}`,
		`{"type":"response.output_text.delta","response_id":"resp_1","item_id":"item_1","content_index":0,"delta":" !"}`,
		`{"type":"response.output_text.done","response_id":"resp_1","item_id":"item_1","content_index":0,"text":"Bonjour` + str(extra) + ` !"}`,
		`{"type":"response.done","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":12,"output_tokens":3}}}`,
	}
	client := []string{
		`{"type":"conversation.item.create","item":{"type":"message","role":"user","content":[{"type":"input_text","text":"Say hello in French` + str(extra) + `"}]}}`,
		`{"type":"response.create"}`,
	}
	frames := func(msgs []string, mask bool) [][]byte {
		var out [][]byte
		for _, m := range msgs {
			f := ws.NewTextFrame([]byte(m))
			if mask {
				f = ws.MaskFrame(f)
			}
			out = append(out, ws.MustCompileFrame(f))
		}
		if mask {
			out = append(out, ws.MustCompileFrame(ws.MaskFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusNormalClosure, "bye"+extra)))))
		}
		return out
	}
	var b []byte
	b = tape.AppendHeader(b, tape.Header{V: 1, Seam: "test", ID: "realtime", Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), Engine: tape.Engine{Profile: "passthrough"}})
	b = tape.AppendRequest(b, tape.Request{Ex: 1, T: 1e6, Method: "GET", Scheme: "https", Host: "api.openai.com", URL: "/v1/realtime?model=gpt-realtime",
		Headers: tape.Headers{"upgrade": {"websocket"}, "authorization": {tape.Redacted}}})
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		b = tape.AppendResponse(b, tape.Response{Ex: 1, Side: side, T: 5e7, Status: 101, Headers: tape.Headers{"upgrade": {"websocket"}}})
	}
	write := func(side tape.Side, fs [][]byte, t0, step int64) {
		off := int64(0)
		for i, f := range fs {
			b = tape.AppendChunk(b, tape.Chunk{Ex: 1, Side: side, T: t0 + int64(i)*step, Off: off, Data: f})
			off += int64(len(f))
		}
		b = tape.AppendEnd(b, tape.End{Ex: 1, Side: side, T: 2e9, Outcome: tape.Complete, Bytes: off})
	}
	write(tape.Client, frames(client, true), 1e8, 2e8)
	write(tape.Upstream, frames(server, false), 6e7, 3e8)
	c, err := tape.Read(bytes.NewReader(b), "realtime.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWebSocketPage checks the page of a Realtime session: the URL with
// the host it went to, the messages both ways in time order, the session
// as it assembles, and the chart's sides named by direction.
func TestWebSocketPage(t *testing.T) {
	page := render(t, realtimeCapture(t, ""), 0)
	goldenfile.Check(t, filepath.Join("testdata", "realtime.html"), page, "SEAM_GEN=1 go test ./htmlreport -run TestWebSocketPage")
	doc := parse(t, page)
	if h := find(doc, "h2"); len(h) != 1 || !strings.Contains(text(h[0]), "GET https://api.openai.com/v1/realtime?model=gpt-realtime") {
		t.Errorf("exchange heading %q", text(h[0]))
	}
	msgs := find(doc, "table", "messages")
	if len(msgs) != 1 {
		t.Fatal("no message table")
	}
	var dirs []string
	for _, row := range find(msgs[0], "tr")[1:] {
		dirs = append(dirs, text(row.FirstChild.NextSibling.NextSibling))
	}
	if got := strings.Join(dirs, ""); got != "←→→←→←←←←" {
		t.Errorf("directions in time order %q", got)
	}
	all := text(doc)
	for _, want := range []string{"Realtime session sess_1", "Bonjour !", "Say hello in French", "1000 (normal closure) bye", "usage in 12, out 3"} {
		if !strings.Contains(all, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	var legend []string
	for _, k := range find(doc, "span", "key") {
		legend = append(legend, text(k))
	}
	if got := strings.Join(legend, "|"); !strings.HasPrefix(got, "server → client|client → server|") {
		t.Errorf("legend %q", got)
	}
	var lanes []string
	for _, l := range find(doc, "text", "lane-label") {
		lanes = append(lanes, text(l))
	}
	if strings.Join(lanes, "|") != "server|client" {
		t.Errorf("lanes %q", lanes)
	}
}

// TestHostileWebSocket renders a Realtime session whose every text is
// hostile: its messages, transcript and close reason are escaped and their
// controls shown.
func TestHostileWebSocket(t *testing.T) {
	page := render(t, realtimeCapture(t, hostile), 0)
	if bytes.Contains(bytes.ToLower(page), []byte("<script")) {
		t.Error("raw <script in the page")
	}
	doc := parse(t, page)
	if !strings.Contains(text(doc), "<script>alert(1)</script>") {
		t.Error("the hostile text is not shown as text")
	}
	marks := 0
	for _, s := range find(doc, "span", "ctl") {
		if text(s) == "⟨U+202E⟩" {
			marks++
		}
	}
	if marks < 3 {
		t.Errorf("%d visible ⟨U+202E⟩, want one per message, transcript and close reason at least", marks)
	}
}
