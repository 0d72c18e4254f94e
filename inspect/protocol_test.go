package inspect_test

import (
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// TestProtocolPerSide: a proxy that answers a Responses request from a Chat
// Completions upstream (seam's responses profile) has each side assembled in
// its own protocol, with no protocol-mixing findings.
func TestProtocolPerSide(t *testing.T) {
	c, err := fixtures.Load("responses-adapter.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	x := inspect.Inspect(c, inspect.Options{}).Exchanges[0]
	want := map[tape.Side]protocol.Protocol{tape.Upstream: protocol.Chat, tape.Client: protocol.Responses}
	if len(x.Sides) != 2 {
		t.Fatalf("%d sides, want upstream and client", len(x.Sides))
	}
	for _, s := range x.Sides {
		if s.Message.Protocol != want[s.Side] {
			t.Errorf("%s side assembled as %s, want %s", s.Side, s.Message.Protocol, want[s.Side])
		}
		if len(s.Message.Choices) == 0 || len(s.Message.Choices[0].ToolCalls) != 2 {
			t.Errorf("%s side: want the two tool calls", s.Side)
		}
	}
	for _, f := range x.Findings {
		if f.Severity >= inspect.Warn {
			t.Errorf("finding %s %s at %s", f.Severity, f.ID, f.Pointer)
		}
	}
}
