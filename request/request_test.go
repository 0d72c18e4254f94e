package request

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// roles returns each message as "role:text" with its calls and the call
// it answers, for comparing with a literal.
func roles(ms []Message) []string {
	var out []string
	for _, m := range ms {
		s := m.Role + ":" + m.Text
		for _, c := range m.ToolCalls {
			s += " call " + c.ID + " " + c.Name + c.Arguments
		}
		if m.ToolCallID != "" {
			s += " answers " + m.ToolCallID
		}
		out = append(out, s)
	}
	return out
}

// TestParseConversations: the same conversation, a prompt, a call and its
// result, reads as the same messages in the three protocols: the system
// prompt first, the call on the assistant message, the result a tool
// message; a Responses item list is kept item by item too.
func TestParseConversations(t *testing.T) {
	t.Parallel()
	want := []string{"system:be brief", "user:list files", "assistant:Let me look. call call_1 ls{}", "tool:a.md answers call_1"}
	for name, body := range map[string]string{
		"chat": `{"model":"gpt","stream":true,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"list files"},` +
			`{"role":"assistant","content":"Let me look.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"ls","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"call_1","content":"a.md"}]}`,
		"anthropic": `{"model":"claude","stream":true,"system":"be brief","messages":[{"role":"user","content":[{"type":"text","text":"list files"}]},` +
			`{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"call_1","name":"ls","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"a.md"}]}]}`,
		"responses": `{"model":"gpt","stream":true,"instructions":"be brief","input":[{"role":"user","content":"list files"},` +
			`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me look."}]},` +
			`{"type":"function_call","call_id":"call_1","name":"ls","arguments":"{}"},{"type":"reasoning","summary":[]},` +
			`{"type":"function_call_output","call_id":"call_1","output":"a.md"}]}`,
	} {
		r := Parse([]byte(body))
		if got := roles(r.Messages); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: messages\n%q\nwant\n%q", name, got, want)
		}
		if !r.Stream || r.Model == "" {
			t.Errorf("%s: model %q stream %v", name, r.Model, r.Stream)
		}
		if name != "responses" && r.Items != nil {
			t.Errorf("%s: items %v", name, r.Items)
		}
	}
	r := Parse([]byte(`{"instructions":"be brief","previous_response_id":"resp_1","input":[{"role":"assistant","content":"a"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}`))
	if got, want := roles(r.Items), []string{"system:be brief", "assistant:a", "assistant: call c f{}"}; !reflect.DeepEqual(got, want) {
		t.Errorf("items %q, want %q (a call on its own)", got, want)
	}
	if r.PrevResponse != "resp_1" {
		t.Errorf("previous_response_id %q", r.PrevResponse)
	}
}

// TestParseTools: tools declared in each protocol's shape, with their
// parameters, which are required, whether any other is allowed and their
// schema as sent.
func TestParseTools(t *testing.T) {
	t.Parallel()
	r := Parse([]byte(`{"tools":[` +
		`{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"path":{},"n":{}},"required":["path"],"additionalProperties":false}}},` +
		`{"type":"function","name":"tree","parameters":{"type":"object","properties":{}}},` +
		`{"name":"search","input_schema":{"properties":{"q":{}}}},{"type":"web_search"}]}`))
	want := map[string]*Tool{
		"read":   {Name: "read", Params: map[string]bool{"path": true, "n": false}, Strict: true, Source: "tools", Schema: `{"type":"object","properties":{"path":{},"n":{}},"required":["path"],"additionalProperties":false}`},
		"tree":   {Name: "tree", Params: map[string]bool{}, Void: true, Source: "tools", Schema: `{"type":"object","properties":{}}`},
		"search": {Name: "search", Params: map[string]bool{"q": false}, Source: "tools", Schema: `{"properties":{"q":{}}}`},
	}
	if !reflect.DeepEqual(r.Tools, want) {
		t.Errorf("tools %+v", r.Tools)
	}
	if !r.NativeTools() || (*Request)(nil).NativeTools() {
		t.Error("NativeTools")
	}
}

// TestParseCatalogue: without a tools field, the tools are those of the
// XML catalogue in the system prompt, or in the first user turn Obsidian
// Copilot also sent it as; they are not native tools.
func TestParseCatalogue(t *testing.T) {
	t.Parallel()
	catalogue := "<getFileTree><description>files</description><parameters></parameters></getFileTree>" +
		"<localSearch><description>search</description><parameters><query>q</query><salientTerms>t</salientTerms></parameters></localSearch>"
	want := map[string]*Tool{
		"getFileTree": {Name: "getFileTree", Params: map[string]bool{}, Void: true, Strict: true, Source: "system-prompt"},
		"localSearch": {Name: "localSearch", Params: map[string]bool{"query": false, "salientTerms": false}, Strict: true, Source: "system-prompt"},
	}
	for _, body := range []string{
		`{"messages":[{"role":"system","content":` + quote(catalogue) + `},{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"user","content":` + quote("Tools: "+catalogue) + `}]}`,
	} {
		r := Parse([]byte(body))
		if !reflect.DeepEqual(r.Tools, want) || r.NativeTools() {
			t.Errorf("%s: tools %+v", body, r.Tools)
		}
	}
}

// TestParseNotARequest: a body that is not JSON, or not a request, reads
// as an empty request.
func TestParseNotARequest(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", "{", `[1,2]`, `"text"`} {
		r := Parse([]byte(body))
		if r.Model != "" || len(r.Messages) != 0 || len(r.Tools) != 0 || r.Items != nil {
			t.Errorf("%q: %+v", body, r)
		}
	}
}

func quote(s string) string {
	return `"` + s + `"`
}

// TestReaderForgets: a Reader whose memory fills forgets its older half
// and reads every request as Parse does all along, within its budget.
func TestReaderForgets(t *testing.T) {
	rd := NewReader(128 << 10)
	rd.least = 1
	if rd.budget != 64<<10 {
		t.Fatalf("NewReader(128 KiB) keeps %d bytes a half, want 64 KiB", rd.budget)
	}
	forgot := false
	for round := range 3 {
		for turns := range 10 {
			for name, body := range agentTurn(turns) {
				if got, want := rd.Parse(body), Parse(body); !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d, %s turn %d: Reader.Parse differs from Parse\n%+v\n%+v", round, name, turns, got, want)
				}
				forgot = forgot || rd.mem.old[messagesList] != nil || rd.mem.old[inputList] != nil
				if rd.mem.size > rd.budget {
					t.Fatalf("%d bytes kept, budget %d", rd.mem.size, rd.budget)
				}
				if rd.toolsSize > rd.budget/4 {
					t.Fatalf("tools lists: %d bytes kept, budget %d", rd.toolsSize, rd.budget/4)
				}
			}
		}
	}
	if !forgot {
		t.Fatal("the memories never filled: the test does not reach forgetting")
	}
}

// TestReaderShared: goroutines reading with one Reader (as inspect's
// workers do), its memory filling and flipping meanwhile, each read every
// request as Parse does. Run with -race, it checks the Reader's locking.
func TestReaderShared(t *testing.T) {
	rd := &Reader{least: 1, budget: 32 << 10}
	var bodies [][]byte
	for turns := range 10 {
		for _, body := range agentTurn(turns) {
			bodies = append(bodies, body)
		}
	}
	want := make([]*Request, len(bodies))
	for i, b := range bodies {
		want[i] = Parse(b)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 5 {
				for k := range bodies {
					i := (k + g*7) % len(bodies)
					if got := rd.Parse(bodies[i]); !reflect.DeepEqual(got, want[i]) {
						t.Errorf("goroutine %d, round %d, body %d: Reader.Parse differs from Parse", g, round, i)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestReaderManyMessages: a body of many short messages fills a Reader's
// memory with entries, not bytes; what it keeps stays within its budget
// counted by entry too.
func TestReaderManyMessages(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"model":"m","messages":[`)
	for i := range 20000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":"message %06d, padded to be remembered: %s"}`, i, strings.Repeat("x", 40))
	}
	b.WriteString(`]}`)
	body := []byte(b.String())
	rd := NewReader(512 << 10)
	rd.least = 1
	if got, want := rd.Parse(body), Parse(body); !reflect.DeepEqual(got, want) {
		t.Fatal("Reader.Parse differs from Parse")
	}
	entries := 0
	for _, half := range [][2]map[string][]remembered{rd.mem.cur, rd.mem.old} {
		for _, m := range half {
			for _, cands := range m {
				entries += len(cands)
			}
		}
	}
	if most := 2 * rd.budget / (keyLen + 96); entries > most { // a key and its entry
		t.Errorf("%d texts kept, budget %d bytes a half: at most %d", entries, rd.budget, most)
	}
}
