package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// liveCapture is a capture of one exchange carrying a real OpenAI stream
// (openai-python's long-text snapshot) in chunks of 97 bytes, as its lines
// and the index of the first line that comes after the middle of the
// stream (what a recorder still writing has not written yet).
func liveCapture(t *testing.T) (lines [][]byte, half int) {
	t.Helper()
	body, err := os.ReadFile("../fixtures/realworld/openai-chat-long-text.sse")
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, tape.AppendHeader(nil, tape.Header{V: tape.Version, Seam: "test", ID: "live", Upstream: "https://api.openai.com", Engine: tape.Engine{Profile: "passthrough"}}))
	lines = append(lines, tape.AppendRequest(nil, tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions", Headers: tape.Headers{}, Body: []byte(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}`)}))
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		lines = append(lines, tape.AppendResponse(nil, tape.Response{Ex: 1, Side: s, T: 1e6, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}}))
	}
	for off := 0; off < len(body); off += 97 {
		if off >= len(body)/2 && half == 0 {
			half = len(lines)
		}
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			lines = append(lines, tape.AppendChunk(nil, tape.Chunk{Ex: 1, Side: s, T: int64(2e6 + off*1e3), Off: int64(off), Data: body[off:min(off+97, len(body))]}))
		}
	}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		lines = append(lines, tape.AppendEnd(nil, tape.End{Ex: 1, Side: s, T: 1e9, Outcome: tape.Complete, Bytes: int64(len(body))}))
	}
	return lines, half
}

// TestLiveNoEndOfStreamFindings: a followed capture (tui --follow, record
// --tui) is being recorded, so an exchange in the middle of its stream
// has no end lines yet. Its badge shows no warning (no tape.interrupted,
// stream.no-terminal, unterminated event) while it streams, and none once
// the recorder has written the rest; the same half-written file opened
// without following is interrupted, and says so.
func TestLiveNoEndOfStreamFindings(t *testing.T) {
	t.Parallel()
	lines, half := liveCapture(t)
	path := filepath.Join(t.TempDir(), "live.ndjson")
	writeCapture(t, path, slices.Concat(lines[:half]...))
	badgeOf := func(m *model) badge {
		s := m.sums[0]
		b, ok := m.badges[exKey{s.file, s.ex}]
		if !ok || b.rev != s.rev {
			t.Fatalf("exchange 1 has no current badge")
		}
		return b
	}

	dead := openModel(t, 120, 30, Options{Paths: []string{path}})
	if b := badgeOf(dead); !slices.Contains(b.ids, tape.AnomalyInterrupted) {
		t.Errorf("not followed, the half-written exchange is not interrupted: %v", b.ids)
	}

	m := openModel(t, 120, 30, Options{Paths: []string{path}, Follow: true})
	b := badgeOf(m)
	if b.counts[1]+b.counts[2] > 0 || b.events == 0 {
		t.Errorf("live: %d errors, %d warnings (%v), %d events; want none, and events", b.counts[2], b.counts[1], b.ids, b.events)
	}
	press(t, m, "enter", "3")
	if s := screen(m); strings.Contains(s, "W warn") || strings.Contains(s, "E error") {
		t.Errorf("live: the Findings tab warns:\n%s", s)
	}
	press(t, m, "esc")

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(slices.Concat(lines[half:]...)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tick(t, m)
	if b := badgeOf(m); b.counts[1]+b.counts[2] > 0 || m.sums[0].outcome != tape.Complete {
		t.Errorf("ended: outcome %s, findings %v", m.sums[0].outcome, b.ids)
	}
}
