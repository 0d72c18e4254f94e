package inspect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// codexDeltas returns the 282 agent_message_delta strings of the real Codex
// event log (fixtures/realworld/codex-proto-upstream-use-tool.jsonl, see
// fixtures/README.md).
func codexDeltas(t testing.TB) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(readTestdata(t, "codex-proto-upstream-use-tool.jsonl")))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if gjson.GetBytes(sc.Bytes(), "type").String() == "agent_message_delta" {
			out = append(out, gjson.GetBytes(sc.Bytes(), "delta").String())
		}
	}
	if len(out) != 282 {
		t.Fatalf("got %d deltas, want 282", len(out))
	}
	return out
}

// chatStream renders content deltas as a Chat Completions stream, one chunk
// per event: a role chunk (event 0), delta k as event k+1, a finish chunk
// and [DONE].
func chatStream(side tape.Side, deltas []string) []tape.Chunk {
	var events []string
	events = append(events, `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
	for _, d := range deltas {
		b, _ := json.Marshal(d)
		events = append(events, `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":`+string(b)+`},"finish_reason":null}]}`)
	}
	events = append(events, `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]")
	var cs []tape.Chunk
	off := int64(0)
	for i, e := range events {
		data := []byte("data: " + e + "\n\n")
		cs = append(cs, tape.Chunk{Ex: 1, Side: side, T: int64(i+1) * 5e6, Off: off, Data: data})
		off += int64(len(data))
	}
	return cs
}

func chatExchange(ex int, reqBody string, up, client []tape.Chunk) *tape.Exchange {
	h := tape.Headers{"content-type": {"text/event-stream"}}
	x := &tape.Exchange{Ex: ex, Request: &tape.Request{Ex: ex, Method: "POST", URL: "/v1/chat/completions", Body: []byte(reqBody)}}
	for _, s := range []struct {
		side   tape.Side
		chunks []tape.Chunk
	}{{tape.Upstream, up}, {tape.Client, client}} {
		if s.chunks == nil {
			continue
		}
		last := s.chunks[len(s.chunks)-1]
		sd := x.Side(s.side)
		sd.Response = &tape.Response{Ex: ex, Side: s.side, Status: 200, Headers: h}
		sd.Chunks = s.chunks
		sd.End = &tape.End{Ex: ex, Side: s.side, T: last.T + 1e6, Outcome: tape.Complete, Bytes: last.Off + int64(len(last.Data))}
	}
	return x
}

// incidentDeltas reproduces the pre-holdback engine on the real token
// boundaries (docs/GLOSSARY.md class C): every delta up to and including the
// "_tool" of "</use_tool" is forwarded as is, the final ">" is swallowed and
// the whole literal block is re-emitted as one delta.
func incidentDeltas(up []string) (client []string, blockEvent int) {
	n := len(up)
	if up[n-1] != ">" || up[n-2] != "_tool" || up[n-3] != "use" || up[n-4] != "</" {
		panic("unexpected fixture tail")
	}
	full := strings.Join(up, "")
	block := full[strings.Index(full, "<use_tool>"):]
	client = append(append([]string{}, up[:n-1]...), block)
	return client, len(client) // event index: role chunk is event 0
}

func TestIncidentUnclosedCloser(t *testing.T) {
	t.Parallel()
	up := codexDeltas(t)
	clientDeltas, blockEvent := incidentDeltas(up)
	c := &tape.Capture{Name: "incident", Exchanges: []*tape.Exchange{
		chatExchange(1, `{"model":"m","stream":true,"messages":[{"role":"user","content":"weather note"}]}`, chatStream(tape.Upstream, up), chatStream(tape.Client, clientDeltas)),
	}}
	r := Inspect(c, Options{})
	x := r.Exchanges[0]
	var got *Finding
	for i, f := range x.Findings {
		if f.ID == "xml.unclosed-closer" {
			if got != nil {
				t.Fatalf("two unclosed-closer findings: %+v", x.Findings)
			}
			got = &x.Findings[i]
		}
	}
	if got == nil {
		t.Fatalf("no xml.unclosed-closer finding; findings: %+v", x.Findings)
	}
	if got.Severity != Error || got.Evidence != "</use_tool<use_tool>" {
		t.Errorf("severity %s evidence %q", got.Severity, got.Evidence)
	}
	if got.Pointer.Side != tape.Client || got.Pointer.Event != blockEvent || got.Pointer.Chunk != blockEvent {
		t.Errorf("pointer = %+v, want client event %d", got.Pointer, blockEvent)
	}
	if w, _ := r.Worst(); w != Error {
		t.Errorf("worst = %s", w)
	}
	// The upstream-vs-client diff starts at the swallowed ">".
	var d *Diff
	for _, dd := range x.Diffs {
		if dd.Kind == DiffUpstreamClient {
			d = dd
		}
	}
	if d == nil || d.Equal || len(d.Hunks) == 0 || d.Hunks[0].At == nil || d.Hunks[0].At.Event != blockEvent {
		t.Fatalf("upstream-vs-client diff = %+v", d)
	}
	var text bytes.Buffer
	if err := WriteText(&text, r, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"xml.unclosed-closer", `"</use_tool<use_tool>"`, "client event " + strconv.Itoa(blockEvent), "+ </use_tool<use_tool>"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil || !json.Valid(js.Bytes()) {
		t.Fatalf("json: %v", err)
	}
}

func TestIncidentCleanStreamHasNoError(t *testing.T) {
	t.Parallel()
	up := codexDeltas(t)
	c := &tape.Capture{Name: "clean", Exchanges: []*tape.Exchange{
		chatExchange(1, `{"model":"m","stream":true,"messages":[{"role":"user","content":"weather note"}]}`, chatStream(tape.Upstream, up), chatStream(tape.Client, up)),
	}}
	r := Inspect(c, Options{})
	for _, f := range r.Exchanges[0].Findings {
		if f.Severity == Error {
			t.Errorf("error finding on a clean stream: %+v", f)
		}
	}
	if got := r.Exchanges[0].Sides[1].Message.Text(); got != strings.Join(up, "") || len(got) != 916 {
		t.Errorf("assembled %d bytes", len(got))
	}
}
