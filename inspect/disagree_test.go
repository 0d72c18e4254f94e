package inspect

import (
	"testing"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/protocol"
)

// TestCompleteStreamAgreed: the clients reading a complete Anthropic
// stream agree on every field.
func TestCompleteStreamAgreed(t *testing.T) {
	t.Parallel()
	ant := Inspect(exInput{url: "/v1/messages", client: antStream(true, antStart, antTextStart, antTextDelta, antStop0, antMsgDelta, antMsgStop)}.capture(), Options{}).Exchanges[0]
	if len(ant.Clients) != len(clients.For(protocol.Anthropic)) || len(ant.Disagreements) != 0 {
		t.Errorf("a complete anthropic stream: %d clients, disagreeing on %+v", len(ant.Clients), ant.Disagreements)
	}
}

// TestFinishReasonsComparedByMeaning checks that clients naming the same end
// differently do not disagree (VS Code's "stop" for Anthropic's end_turn,
// Responses' completed), while a different end still does.
func TestFinishReasonsComparedByMeaning(t *testing.T) {
	t.Parallel()
	rs := []clients.Result{{Client: clients.Spec, FinishReason: "end_turn"}, {Client: clients.VSCode, FinishReason: "stop"}}
	if d := disagreements(rs, protocol.Anthropic, false); len(d) != 0 {
		t.Errorf("end_turn and VS Code's stop: %+v", d)
	}
	rs[0].FinishReason = "max_tokens"
	if d := disagreements(rs, protocol.Anthropic, false); len(d) != 1 || d[0].Field != "finish_reason" {
		t.Errorf("max_tokens and VS Code's stop: %+v, want a finish_reason disagreement", d)
	}
	rs = []clients.Result{{Client: clients.Spec, FinishReason: "refusal"}, {Client: clients.VSCode, FinishReason: "DONE"}}
	if d := disagreements(rs, protocol.Anthropic, false); len(d) != 0 {
		t.Errorf("refusal and VS Code's DONE: %+v", d)
	}
	rs = []clients.Result{{Client: clients.Spec, FinishReason: ""}, {Client: clients.VSCode, FinishReason: "DONE"}, {Client: clients.OpenAINode, FinishReason: "stop"}}
	if d := disagreements(rs, protocol.Chat, false); len(d) != 1 {
		t.Errorf("no reason, VS Code's DONE and stop: %+v, want one disagreement", d)
	}
	// clients.Obsidian's XML era ignores structured tool calls: not a disagreement
	// when the request declares native tools, one when it found XML calls.
	calls := []protocol.ToolCall{{Name: "read", Arguments: "{}"}}
	rs = []clients.Result{{Client: clients.Spec, ToolCalls: calls}, {Client: clients.Obsidian}}
	if d := disagreements(rs, protocol.Chat, true); len(d) != 0 {
		t.Errorf("native tools, clients.Obsidian without XML calls: %+v", d)
	}
	if d := disagreements(rs, protocol.Chat, false); len(d) != 1 {
		t.Errorf("no native tools, clients.Obsidian without the calls: %+v, want a tool_calls disagreement", d)
	}
	rs = []clients.Result{{Client: clients.Spec}, {Client: clients.Obsidian, ToolCalls: calls, XMLCalls: []clients.XMLToolCall{{Name: "read"}}}}
	if d := disagreements(rs, protocol.Chat, true); len(d) != 1 {
		t.Errorf("clients.Obsidian's XML calls the others do not see: %+v, want a tool_calls disagreement", d)
	}
}
