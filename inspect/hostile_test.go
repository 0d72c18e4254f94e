package inspect_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gobwas/ws"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
	"github.com/seam-dev/seam/visible/visibletest"
)

// TestHostileText: a capture carrying an OSC 52 clipboard write, CSI
// sequences, bidi controls, NUL and C1 controls in every field goes
// through the text report, the client views and the diffs with nothing a
// terminal would act on left (with colour, only inspect's own SGR codes),
// and the hostile text still shows, as markers.
func TestHostileText(t *testing.T) {
	c, err := tape.Read(bytes.NewReader(visibletest.Capture), "hostile.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	rep := inspect.Inspect(c, inspect.Options{})
	check := func(what, out string) {
		t.Helper()
		if err := visibletest.Check(out); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := textreport.Write(&b, rep, color); err != nil {
			t.Fatal(err)
		}
		check("text report", b.String())
		for _, want := range []string{"POST /v1/chat/completions", "model gpt-4o␛]52;c;SGFjaw==␇␛[2J␛[8m⟨U+202E⟩⟨U+2066⟩␀⟨U+009B⟩⟨U+0085⟩␡", "tool 0 fn␛]52", "#call␛]52", "finish: stop␛]52", "\n   PO␛]52", "upstream_error␛]52"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("text report lacks %q", want)
			}
		}
	}
	var j bytes.Buffer
	if err := inspect.WriteJSON(&j, rep); err != nil {
		t.Fatal(err)
	}
	check("JSON report", j.String())
	for _, cl := range clients.All() {
		var b bytes.Buffer
		if err := textreport.WriteClient(&b, rep, cl); err != nil {
			t.Fatal(err)
		}
		check("client "+cl, b.String())
	}
	for _, x := range rep.Exchanges {
		for _, d := range x.Diffs {
			var b bytes.Buffer
			if err := textreport.WriteDiff(&b, d, true); err != nil {
				t.Fatal(err)
			}
			check("diff "+d.Kind, b.String())
		}
	}
}

// TestHostileWebSocket: a Realtime session over WebSocket whose error
// code, function call arguments and recorded outcome carry terminal
// escapes goes through the text report with nothing a terminal would act
// on, and the hostile text still shows, as markers.
func TestHostileWebSocket(t *testing.T) {
	str := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b[1 : len(b)-1])
	}
	h := str(visibletest.Hostile)
	server := []string{
		`{"type":"session.created","session":{"id":"sess_1","model":"gpt-realtime"}}`,
		`{"type":"response.created","response":{"id":"resp_1"}}`,
		`{"type":"response.function_call_arguments.delta","response_id":"resp_1","item_id":"fc_1","call_id":"call_1","delta":"{\"a\":\"` + h + `\"}"}`,
		`{"type":"error","error":{"type":"invalid_request_error","code":"bad` + h + `","message":"nope"}}`,
	}
	var up []byte
	for _, m := range server {
		up = append(up, ws.MustCompileFrame(ws.NewTextFrame([]byte(m)))...)
	}
	client := ws.MustCompileFrame(ws.MaskFrame(ws.NewTextFrame([]byte(`{"type":"response.create"}`))))
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "GET", URL: "/v1/realtime?model=gpt-realtime"}}
	for side, body := range map[tape.Side][]byte{tape.Upstream: up, tape.Client: client} {
		sd := x.Side(side)
		sd.Response = &tape.Response{Ex: 1, Side: side, Status: 101, Headers: tape.Headers{"upgrade": {"websocket"}}}
		sd.Chunks = []tape.Chunk{{Ex: 1, Side: side, T: 1e6, Data: body}}
		sd.End = &tape.End{Ex: 1, Side: side, T: 2e6, Outcome: tape.Outcome("upstream_error" + visibletest.Hostile), Bytes: int64(len(body))}
	}
	rep := inspect.Inspect(&tape.Capture{Name: "ws.ndjson", Exchanges: []*tape.Exchange{x}}, inspect.Options{})
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := textreport.Write(&b, rep, color); err != nil {
			t.Fatal(err)
		}
		if err := visibletest.Check(b.String()); err != nil {
			t.Errorf("text report: %v", err)
		}
		for _, want := range []string{"upstream_error␛]52", "bad␛]52", `"a":"␛]52`} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("text report lacks %q:\n%s", want, b.String())
			}
		}
	}
}
