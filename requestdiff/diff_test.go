package requestdiff

import (
	"strings"
	"testing"

	"github.com/seam-dev/seam/request"
	"github.com/seam-dev/seam/tape"
)

func req(body string) *tape.Request {
	return &tape.Request{Method: "POST", URL: "/v1/chat/completions", Body: []byte(body)}
}

// compareLegs is Compare of two legs, the client's parsed as inspect
// parses it.
func compareLegs(client, upstream *tape.Request) *Diff {
	return Compare(client, upstream, request.Parse(client.Body))
}

func reqMessages(msgs string) string {
	return `{"model":"m","stream":true,"messages":[` + msgs + `]}`
}

const (
	userMsg     = `{"role":"user","content":"list my files"}`
	assistantTC = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"getFileTree","arguments":"{}"}}]}`
	toolResult1 = `{"role":"tool","tool_call_id":"call_1","content":"a.md"}`
	systemMsg   = `{"role":"system","content":"be brief"}`
)

// TestDiffRequestsHistory: the message alignment says which client turn
// the proxy dropped, which it changed and which it added, and only drops
// and changes count as a rewrite.
func TestDiffRequestsHistory(t *testing.T) {
	t.Parallel()
	client := reqMessages(systemMsg + "," + userMsg + "," + assistantTC + "," + toolResult1)
	up := reqMessages(`{"role":"system","content":"be verbose"}` + "," + userMsg + "," + toolResult1 + `,{"role":"user","content":"also this"}`)
	d := compareLegs(req(client), req(up))
	var got []string
	for _, m := range d.Messages {
		got = append(got, m.Op+" "+m.ClientRole+m.UpstreamRole)
	}
	want := []string{"changed systemsystem", "removed assistant", "added user"}
	if strings.Join(got, "|") != strings.Join(want, "|") || !d.Rewritten || d.ClientMessages != 4 || d.UpstreamMessages != 4 {
		t.Fatalf("changes %q (rewritten %v, %d/%d messages), want %q", got, d.Rewritten, d.ClientMessages, d.UpstreamMessages, want)
	}
	if d.Messages[1].ClientIndex != 2 || d.Messages[2].UpstreamIndex != 3 {
		t.Errorf("indexes %+v", d.Messages)
	}
	lines := strings.Join(d.Lines(), "\n")
	for _, w := range []string{"messages: 4 from the client, 4 upstream; the history was rewritten", "- client [2] assistant dropped: call getFileTree({})", "+ upstream [3] user added: \"also this\""} {
		if !strings.Contains(lines, w) {
			t.Errorf("lines lack %q:\n%s", w, lines)
		}
	}

	// Only adding (a system prompt in front) is not a rewrite.
	d = compareLegs(req(reqMessages(userMsg)), req(reqMessages(systemMsg+","+userMsg)))
	if d.Rewritten || len(d.Messages) != 1 || d.Messages[0].Op != "added" || d.Messages[0].UpstreamIndex != 0 {
		t.Errorf("added system prompt: %+v rewritten %v", d.Messages, d.Rewritten)
	}
}

// TestDiffRequestsAcrossProtocols: a proxy that turns a Responses request
// into a Chat Completions one, carrying everything, changes nothing that
// matters (max_output_tokens is max_tokens, instructions the system
// message, function tools the same tools); one that drops a tool and a
// turn on the way is caught.
func TestDiffRequestsAcrossProtocols(t *testing.T) {
	t.Parallel()
	responses := `{"model":"gpt-4o","stream":true,"max_output_tokens":50,"instructions":"be brief",` +
		`"input":[{"role":"user","content":[{"type":"input_text","text":"list my files"}]}],` +
		`"tools":[{"type":"function","name":"getFileTree","parameters":{"type":"object","properties":{}}},{"type":"function","name":"read","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]}`
	chat := `{"model":"gpt-4o","stream":true,"max_tokens":50,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"list my files"}],` +
		`"tools":[{"type":"function","function":{"name":"getFileTree","parameters":{"type":"object","properties":{}}}},{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]}`
	d := compareLegs(&tape.Request{URL: "/v1/chat/completions", Body: []byte(responses)}, req(chat))
	if d.Identical || d.URL != nil || !d.Equal() {
		t.Fatalf("converted request: %+v\n%s", d, strings.Join(d.Lines(), "\n"))
	}
	lossy := `{"model":"gpt-4o","stream":true,"max_tokens":50,"messages":[{"role":"user","content":"list my files"}],` +
		`"tools":[{"type":"function","function":{"name":"getFileTree","parameters":{"type":"object","properties":{}}}}]}`
	d = compareLegs(&tape.Request{URL: "/v1/responses", Body: []byte(responses)}, req(lossy))
	if d.URL == nil || d.URL.Upstream != "/v1/chat/completions" || len(d.ToolsRemoved) != 1 || d.ToolsRemoved[0] != "read" || !d.Rewritten {
		t.Fatalf("lossy conversion: %+v", d)
	}

	// A turn with a call: the Responses function_call item joins the
	// assistant message before it, and its output (content parts) is the
	// tool result's text, as Chat Completions carries them.
	respTurn := `{"model":"gpt-4o","input":[{"role":"user","content":"list my files"},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me look."}]},` +
		`{"type":"function_call","call_id":"call_1","name":"getFileTree","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"a.md"}]}]}`
	chatTurn := `{"model":"gpt-4o","messages":[{"role":"user","content":"list my files"},` +
		`{"role":"assistant","content":"Let me look.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"getFileTree","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","content":"a.md"}]}`
	d = compareLegs(&tape.Request{URL: "/v1/chat/completions", Body: []byte(respTurn)}, req(chatTurn))
	if !d.Equal() || d.ClientMessages != 3 {
		t.Fatalf("converted turn with a call: %+v\n%s", d, strings.Join(d.Lines(), "\n"))
	}
}
