package tui

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seam-dev/seam/internal/goldenfile"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// incidentPath is the capture the TUI tests open. It is generated from the
// incident upstream streams in ../fixtures/incident (see PROVENANCE.md
// there) by replaying them through the engine that caused the incident,
// obsidian-xml with holdback=off; regenerate with
// SEAM_GEN=1 go test ./tui -run TestIncidentCaptureUpToDate.
const incidentPath = "testdata/incident.ndjson"

// incidentStreams are the upstream streams of the capture, one exchange each.
var incidentStreams = []string{
	"codex-use-tool.upstream.sse",
	"class-g-tail.upstream.sse",
	"class-p-void-tool.upstream.sse",
}

// buildIncidentCapture builds the capture bytes: each upstream stream as one
// chunk per SSE event, 5 ms apart, with the client side produced by the
// incident engine, plus a rate-limited non-stream exchange.
func buildIncidentCapture(t testing.TB) []byte {
	t.Helper()
	eng, err := shape.Resolve(shape.ProfileObsidianXML, map[string]string{shape.SwHoldback: "off"})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	// The committed file is format v1, which seam reads as it is.
	out := tape.AppendHeader(nil, tape.Header{V: tape.Version, Seam: "fixture", ID: "tui-incident", Started: started, Upstream: "https://api.openai.com", Engine: eng})
	sseHeaders := tape.Headers{"content-type": {"text/event-stream"}}
	var t0 int64
	for i, name := range incidentStreams {
		ex := i + 1
		raw, err := os.ReadFile(filepath.Join("..", "fixtures", "incident", name))
		if err != nil {
			t.Fatal(err)
		}
		t0 += 1e9
		body := `{"model":"gpt-5-codex","stream":true,"messages":[{"role":"system","content":"You are Obsidian Copilot."},{"role":"user","content":"Look up the weather and save it to a note."}]}`
		x := &tape.Exchange{Ex: ex, Request: &tape.Request{Ex: ex, T: t0, Method: "POST", URL: "/v1/chat/completions", Headers: tape.Headers{"content-type": {"application/json"}}, Body: []byte(body)}}
		x.Upstream.Response = &tape.Response{Ex: ex, Side: tape.Upstream, T: t0 + 2e6, Status: 200, Headers: sseHeaders}
		var off int64
		tt := t0 + 5e6
		for _, ev := range sse.SplitEvents(raw) {
			x.Upstream.Chunks = append(x.Upstream.Chunks, tape.Chunk{Ex: ex, Side: tape.Upstream, T: tt, Off: off, Data: ev})
			off += int64(len(ev))
			tt += 5e6
		}
		x.Upstream.End = &tape.End{Ex: ex, Side: tape.Upstream, T: tt, Outcome: tape.Complete, Bytes: off}
		res, err := replay.Exchange(context.Background(), x, eng, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rx := res.ToExchange(x)
		rx.Client.Response.T += 50e3
		for k := range rx.Client.Chunks {
			rx.Client.Chunks[k].T += 50e3
		}
		rx.Client.End.T += 50e3
		out = appendExchange(out, rx)
	}
	// A rate-limited request: a JSON error body, not a stream.
	ex := len(incidentStreams) + 1
	t0 += 1e9
	errBody := `{"error":{"message":"Rate limit reached for gpt-5-codex","type":"rate_limit_error","code":"rate_limit_exceeded"}}`
	x := &tape.Exchange{Ex: ex, Request: &tape.Request{Ex: ex, T: t0, Method: "POST", URL: "/v1/chat/completions", Headers: tape.Headers{"content-type": {"application/json"}}, Body: []byte(`{"model":"gpt-5-codex","stream":true,"messages":[{"role":"user","content":"again"}]}`)}}
	jh := tape.Headers{"content-type": {"application/json"}, "retry-after": {"2"}}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(s)
		sd.Response = &tape.Response{Ex: ex, Side: s, T: t0 + 80e6, Status: 429, Headers: jh}
		sd.Chunks = []tape.Chunk{{Ex: ex, Side: s, T: t0 + 81e6, Off: 0, Data: []byte(errBody)}}
		sd.End = &tape.End{Ex: ex, Side: s, T: t0 + 82e6, Outcome: tape.Complete, Bytes: int64(len(errBody))}
	}
	return appendExchange(out, x)
}

// appendExchange encodes an exchange in the order a recording writes it.
func appendExchange(out []byte, x *tape.Exchange) []byte {
	out = tape.AppendRequest(out, *x.Request)
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		if r := x.Side(s).Response; r != nil {
			out = tape.AppendResponse(out, *r)
		}
	}
	// Interleave the sides by time, as the recorder does.
	up, cl := x.Upstream.Chunks, x.Client.Chunks
	for len(up) > 0 || len(cl) > 0 {
		if len(cl) == 0 || (len(up) > 0 && up[0].T <= cl[0].T) {
			out = tape.AppendChunk(out, up[0])
			up = up[1:]
		} else {
			out = tape.AppendChunk(out, cl[0])
			cl = cl[1:]
		}
	}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		if e := x.Side(s).End; e != nil {
			out = tape.AppendEnd(out, *e)
		}
	}
	return out
}

// TestIncidentCaptureUpToDate checks that testdata/incident.ndjson is what
// the generator produces (SEAM_GEN=1 regenerates it).
func TestIncidentCaptureUpToDate(t *testing.T) {
	// Reads ../fixtures/incident, which is part of this repository.
	goldenfile.Check(t, incidentPath, buildIncidentCapture(t), "SEAM_GEN=1 go test ./tui -run TestIncidentCaptureUpToDate")
}
