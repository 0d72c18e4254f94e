package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/request"
)

// chatLoop is an agent's tool loop in Chat Completions as its client
// sends it: each request carries the system prompt and the history so
// far; each reply calls read_file, and its result joins the history.
type chatLoop struct {
	capture string
	hist    []any
	turns   int
}

func newChatLoop(capture, prompt string) *chatLoop {
	return &chatLoop{capture: capture, hist: []any{map[string]any{"role": "user", "content": prompt}}}
}

// body is the next request's body.
func (l *chatLoop) body() []byte {
	msgs := append([]any{map[string]any{"role": "system", "content": "You are a coding agent."}}, l.hist...)
	b, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "messages": msgs})
	return b
}

// call is the reply of turn k: a call of read_file.
func call(k int) protocol.ToolCall {
	return protocol.ToolCall{ID: fmt.Sprintf("call_%d", k), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, k)}
}

// step returns exchange ex's turn, its reply calling read_file, and adds
// the reply and the tool's result to the history.
func (l *chatLoop) step(ex int) Turn {
	l.turns++
	k := l.turns
	c := call(k)
	reply := &protocol.Message{Protocol: protocol.Chat, Choices: []protocol.Choice{{ToolCalls: []protocol.ToolCall{c}, FinishReason: "tool_calls"}}}
	start := time.Date(2026, 11, 22, 9, 0, k, 0, time.UTC)
	in := Turn{Ref: ExchangeRef{Capture: l.capture, Ex: ex}, History: History(request.Parse(l.body())), Reply: Reply(reply), OK: true, Model: "m",
		Totals: Totals{ToolCalls: 1, TokensIn: 100 * k, TokensOut: 10 * k, Usage: true}, Start: start, End: start.Add(500 * time.Millisecond)}
	l.hist = append(l.hist,
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}}},
		map[string]any{"role": "tool", "tool_call_id": c.ID, "content": fmt.Sprintf("package f%d", k)})
	return in
}

// TestLinkLoop: a tool loop is one session whose turns each extend the
// one before, with the totals of its turns and the time from its first
// request to its last response.
func TestLinkLoop(t *testing.T) {
	t.Parallel()
	lk := NewLinker()
	l := newChatLoop("loop.ndjson", "fix the failing test")
	for ex := 1; ex <= 4; ex++ {
		ref, rs := lk.Link(l.step(ex))
		if len(rs) > 0 {
			t.Errorf("exchange %d: rewrites %+v", ex, rs)
		}
		if ref.Turn != ex || ref.Messages != 2*ex || (ex == 1) != (ref.Parent == nil) || ex > 1 && ref.Parent.Ex != ex-1 {
			t.Errorf("exchange %d: %+v", ex, ref)
		}
	}
	ss := lk.List()
	if len(ss) != 1 {
		t.Fatalf("%d sessions", len(ss))
	}
	s := ss[0]
	if s.Turns != 4 || s.ToolCalls != 4 || s.TokensIn != 1000 || s.TokensOut != 100 || s.UsageTurns != 4 || s.Dur != int64(3500*time.Millisecond) || len(s.Models) != 1 {
		t.Errorf("session %+v", s)
	}
	if got := lk.Of(ExchangeRef{Capture: "loop.ndjson", Ex: 3}); got == nil || got.ID != s.ID || got.Turn != 3 {
		t.Errorf("Of(#3) = %+v", got)
	}
	if lk.Of(ExchangeRef{Capture: "other.ndjson", Ex: 3}) != nil {
		t.Error("Of an exchange never linked")
	}
}

// TestRewrites: a request that leaves out a tool result of the history
// it continues, and goes on with the messages after it, drops it; one
// that changes a result it goes on after edits the history; each names
// the message and the exchange that had it.
func TestRewrites(t *testing.T) {
	t.Parallel()
	lk := NewLinker()
	l := newChatLoop("loop.ndjson", "fix the failing test")
	for ex := 1; ex <= 3; ex++ {
		lk.Link(l.step(ex))
	}
	// hist: user, a1, r1, a2, r2, a3, r3.
	full := l.hist
	l.hist = append(full[:4:4], full[5:]...) // r2 left out
	_, rs := lk.Link(l.step(4))
	if len(rs) != 1 || !rs[0].Dropped || rs[0].Evidence != "package f2" ||
		!strings.Contains(rs[0].Message, "leaves out message 5 (tool result for call_2) that exchange 3 had") {
		t.Errorf("dropped: %+v", rs)
	}
	l.hist = append([]any(nil), full...)
	l.hist[2] = map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "package other"}
	_, rs = lk.Link(l.step(5))
	if len(rs) != 1 || rs[0].Dropped || rs[0].Evidence != "package other" ||
		!strings.Contains(rs[0].Message, "message 3 (tool result for call_1) differs from the one exchange 4 had there") {
		t.Errorf("edited: %+v", rs)
	}
	if s := lk.List(); len(s) != 1 || s[0].Rewrites != 2 {
		t.Errorf("sessions %+v", s)
	}
}

// TestBranches: what a conversation does on its own is no rewrite: the
// user's next message after a reply (a branch), the same request sent
// again (a retry), the same conversation started again once the first
// request completed (a new session), another conversation under the same
// system prompt (its own session).
func TestBranches(t *testing.T) {
	t.Parallel()
	lk := NewLinker()
	l := newChatLoop("c.ndjson", "fix the failing test")
	lk.Link(l.step(1))
	branch := &chatLoop{capture: "c.ndjson", hist: append(append([]any(nil), l.hist...), map[string]any{"role": "user", "content": "look at f9.go instead"}), turns: 10}
	b, rs := lk.Link(branch.step(2))
	if len(rs) > 0 || b.Parent == nil || b.Parent.Ex != 1 {
		t.Errorf("branch %+v %+v", b, rs)
	}
	retry := *l
	retry.hist = append([]any(nil), l.hist...)
	lk.Link(l.step(3))
	r, rs := lk.Link(retry.step(4))
	if len(rs) > 0 || r.Repeats == nil || r.Repeats.Ex != 3 || r.ID != b.ID {
		t.Errorf("retry %+v %+v", r, rs)
	}
	again, _ := lk.Link(newChatLoop("c.ndjson", "fix the failing test").step(5))
	other, _ := lk.Link(newChatLoop("c.ndjson", "write a README").step(6))
	if again.ID == b.ID || again.Repeats == nil || again.Repeats.Ex != 1 || again.Turn != 1 || other.ID == b.ID || other.ID == again.ID {
		t.Errorf("again %+v, other %+v", again, other)
	}
	if n := len(lk.List()); n != 3 {
		t.Errorf("%d sessions, want 3", n)
	}
}

// TestRelink: an exchange linked again (a followed capture that grew:
// its reply arrived) keeps its place and counts once.
func TestRelink(t *testing.T) {
	t.Parallel()
	lk := NewLinker()
	l := newChatLoop("c.ndjson", "fix the failing test")
	lk.Link(l.step(1))
	second := l.step(2)
	open := second
	open.Reply, open.OK, open.Totals = nil, false, Totals{}
	lk.Link(open)
	ref, _ := lk.Link(second)
	third, _ := lk.Link(l.step(3))
	s := lk.List()
	if len(s) != 1 || s[0].Turns != 3 || s[0].TokensIn != 600 || s[0].UsageTurns != 3 || ref.Turn != 2 || third.Parent == nil || third.Parent.Ex != 2 {
		t.Errorf("session %+v, refs %+v %+v", s[0], ref, third)
	}
}

// TestContinuesResponse: a Responses request with previous_response_id
// continues the history of the exchange that gave that response, its
// instructions sent again not counted; one naming a response never
// linked says so.
func TestContinuesResponse(t *testing.T) {
	t.Parallel()
	lk := NewLinker()
	reply := &protocol.Message{Protocol: protocol.Responses, ID: "resp_1", Choices: []protocol.Choice{{Text: "Looking.", ToolCalls: []protocol.ToolCall{call(1)}}}}
	first := request.Parse([]byte(`{"instructions":"be brief","input":[{"role":"user","content":"fix it"}]}`))
	lk.Link(Turn{Ref: ExchangeRef{Capture: "r.ndjson", Ex: 1}, History: History(first), Reply: Reply(reply), ResponseID: "resp_1", OK: true})
	next := request.Parse([]byte(`{"instructions":"be brief","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"call_1","output":"ok"}]}`))
	ref, _ := lk.Link(Turn{Ref: ExchangeRef{Capture: "r.ndjson", Ex: 2}, History: History(next), PrevResponse: next.PrevResponse})
	// instructions, user, the text and the call (one item each), the result.
	if ref.Parent == nil || ref.Parent.Ex != 1 || ref.Turn != 2 || ref.Messages != 5 || ref.Continues != "" {
		t.Errorf("continued: %+v", ref)
	}
	lost, _ := lk.Link(Turn{Ref: ExchangeRef{Capture: "r.ndjson", Ex: 3}, History: History(next), PrevResponse: "resp_9"})
	if lost.Continues != "resp_9" || lost.Turn != 1 {
		t.Errorf("unknown response: %+v", lost)
	}
}

// TestArgumentsCompareAsJSON: a history carrying a call's arguments back
// with its keys in another order and other spacing still extends the
// exchange whose reply made the call.
func TestArgumentsCompareAsJSON(t *testing.T) {
	t.Parallel()
	lk := NewLinker()
	reply := &protocol.Message{Protocol: protocol.Chat, Choices: []protocol.Choice{{ToolCalls: []protocol.ToolCall{{ID: "c1", Name: "f", Arguments: `{"a":1,"b":[2]}`}}}}}
	lk.Link(Turn{Ref: ExchangeRef{Capture: "c", Ex: 1}, History: History(request.Parse([]byte(`{"messages":[{"role":"user","content":"go"}]}`))), Reply: Reply(reply), OK: true})
	next := `{"messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{ \"b\": [2], \"a\": 1 }"}}]},{"role":"tool","tool_call_id":"c1","content":"x"}]}`
	ref, rs := lk.Link(Turn{Ref: ExchangeRef{Capture: "c", Ex: 2}, History: History(request.Parse([]byte(next)))})
	if len(rs) > 0 || ref.Parent == nil || ref.Parent.Ex != 1 {
		t.Errorf("%+v %+v", ref, rs)
	}
}
