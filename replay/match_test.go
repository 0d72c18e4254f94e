package replay

import (
	"bytes"
	"strings"
	"testing"
)

// chat builds a Chat Completions body from its messages (JSON).
func chat(extra string, msgs ...string) string {
	return `{"model":"gpt-5","stream":true` + extra + `,"messages":[` + strings.Join(msgs, ",") + `]}`
}

const (
	user      = `{"role":"user","content":"weather in Paris and Rome?"}`
	callsAB   = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_A","type":"function","function":{"name":"w","arguments":"{\"c\":\"Paris\"}"}},{"id":"call_B","type":"function","function":{"name":"w","arguments":"{\"c\":\"Rome\"}"}}]}`
	resultA   = `{"role":"tool","tool_call_id":"call_A","content":"sunny"}`
	resultB   = `{"role":"tool","tool_call_id":"call_B","content":"rain"}`
	callsXY   = `{"tool_calls":[{"function":{"arguments":"{\"c\":\"Paris\"}","name":"w"},"type":"function","id":"call_X"},{"id":"call_Y","type":"function","function":{"name":"w","arguments":"{\"c\":\"Rome\"}"}}],"content":null,"role":"assistant"}`
	resultX   = `{"content":"sunny","tool_call_id":"call_X","role":"tool"}`
	resultY   = `{"role":"tool","content":"rain","tool_call_id":"call_Y"}`
	swappedA  = `{"role":"tool","tool_call_id":"call_A","content":"rain"}`
	swappedB  = `{"role":"tool","tool_call_id":"call_B","content":"sunny"}`
	anthCall  = `{"role":"assistant","content":[{"type":"text","text":"checking"},{"type":"tool_use","id":"toolu_01","name":"w","input":{"c":"Paris"}},{"type":"tool_use","id":"toolu_02","name":"w","input":{"c":"Rome"}}]}`
	anthRes   = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"sunny"},{"type":"tool_result","tool_use_id":"toolu_02","content":"rain"}]}`
	anthCall2 = `{"role":"assistant","content":[{"type":"text","text":"checking"},{"type":"tool_use","id":"toolu_91","name":"w","input":{"c":"Paris"}},{"type":"tool_use","id":"toolu_92","name":"w","input":{"c":"Rome"}}]}`
	anthRes2  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_91","content":"sunny"},{"type":"tool_result","tool_use_id":"toolu_92","content":"rain"}]}`
	anthSwap  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_92","content":"sunny"},{"type":"tool_result","tool_use_id":"toolu_91","content":"rain"}]}`
)

func responses(callID, itemID, prev string) string {
	return `{"model":"gpt-5","previous_response_id":"` + prev + `","input":[{"role":"user","content":"capital of France?"},` +
		`{"type":"function_call","id":"` + itemID + `","call_id":"` + callID + `","name":"cap","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"` + callID + `","output":"Paris"}]}`
}

func TestCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		a, b   string
		ignore []string
		same   bool
	}{
		{"key order and whitespace", chat("", user), `{ "messages": [ {"content":"weather in Paris and Rome?","role":"user"} ], "stream": true, "model": "gpt-5" }`, nil, true},
		{"ignored volatile fields", chat("", user), chat(`,"stream_options":{"include_usage":true},"user":"u-1","metadata":{"user_id":"x"},"store":false,"prompt_cache_key":"k","safety_identifier":"s","service_tier":"auto"`, user), nil, true},
		{"a field that changes generation", chat(`,"temperature":0.2`, user), chat(`,"temperature":0.7`, user), nil, false},
		{"stream matters", chat("", user), strings.Replace(chat("", user), `"stream":true`, `"stream":false`, 1), nil, false},
		{"only top-level fields are ignored", chat("", `{"role":"user","content":"hi","user":"a"}`), chat("", `{"role":"user","content":"hi","user":"b"}`), nil, false},
		{"ServerOptions.Ignore extends the list", chat(`,"seed":1`, user), chat(`,"seed":2`, user), []string{"seed"}, true},
		{"chat tool call ids renumbered", chat("", user, callsAB, resultA, resultB), chat("", user, callsXY, resultX, resultY), nil, true},
		{"chat results swapped between calls", chat("", user, callsAB, resultA, resultB), chat("", user, callsAB, swappedA, swappedB), nil, false},
		{"chat results in the other order", chat("", user, callsAB, resultA, resultB), chat("", user, callsAB, resultB, resultA), nil, false},
		{"anthropic tool_use ids renumbered", chat("", user, anthCall, anthRes), chat("", user, anthCall2, anthRes2), nil, true},
		{"anthropic results swapped", chat("", user, anthCall2, anthRes2), chat("", user, anthCall2, anthSwap), nil, false},
		{"responses call_id, item id and previous_response_id renumbered", responses("call_1", "fc_1", "resp_1"), responses("call_9", "fc_9", "resp_9"), nil, true},
		{"responses output linked to another call", responses("call_1", "fc_1", "resp_1"), strings.Replace(responses("call_1", "fc_1", "resp_1"), `"call_id":"call_1","output"`, `"call_id":"call_2","output"`, 1), nil, false},
		{"anthropic tool input ids are data", chat("", user, strings.Replace(anthCall, `{"c":"Paris"}`, `{"id":"user_1"}`, 1)), chat("", user, strings.Replace(anthCall, `{"c":"Paris"}`, `{"id":"user_2"}`, 1)), nil, false},
		{"responses tool output ids are data", `{"model":"m","input":[{"type":"function_call_output","call_id":"c1","output":{"id":"order_1"}}]}`, `{"model":"m","input":[{"type":"function_call_output","call_id":"c1","output":{"id":"order_2"}}]}`, nil, false},
		{"numbers compare by value", chat(`,"temperature":1,"top_p":100`, user), chat(`,"temperature":1.0,"top_p":1e2`, user), nil, true},
		{"numbers with other values differ", chat(`,"temperature":1`, user), chat(`,"temperature":1.01`, user), nil, false},
		{"large integers keep every digit", chat(`,"seed":9007199254740993`, user), chat(`,"seed":9007199254740992`, user), nil, false},
		{"unicode escapes", chat("", `{"role":"user","content":"caf\u00e9 \u003c"}`), chat("", `{"role":"user","content":"café <"}`), nil, true},
		{"trailing garbage is not JSON", `{"model":"m"}garbage`, `{"model":"m"}`, nil, false},
		{"trailing bracket is not JSON", `{"model":"m"}}`, `{"model":"m"}`, nil, false},
		{"not JSON: bytes", `hello`, `hello`, nil, true},
		{"not JSON: other bytes", `hello`, `hello!`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := Canonical([]byte(tt.a), tt.ignore), Canonical([]byte(tt.b), tt.ignore)
			if same := bytes.Equal(a, b); same != tt.same {
				t.Errorf("same = %v, want %v\n a: %s\n b: %s", same, tt.same, a, b)
			}
		})
	}
}

func TestCanonicalForm(t *testing.T) {
	t.Parallel()
	got := string(Canonical([]byte(chat(`,"user":"u","temperature":1.50`, user, callsXY, resultX)), nil))
	for _, want := range []string{
		`{"messages":[{"content":"weather in Paris and Rome?","role":"user"}`,
		`"id":"seam-id-1"`, `"id":"seam-id-2"`, `"tool_call_id":"seam-id-1"`,
		`"temperature":1.5`, // numbers by value
	} {
		if !strings.Contains(got, want) {
			t.Errorf("canonical form lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"user":"u"`) || strings.Contains(got, "call_X") {
		t.Errorf("canonical form keeps an ignored field or an id:\n%s", got)
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		got, rec  string
		want      string
		wantClose string // with several candidates: the label expected
	}{
		{
			name: "role differs in the last message",
			got:  chat("", user, callsAB, resultA, user),
			rec:  chat("", user, callsAB, resultA, resultB),
			want: `closest is X (same model, first 3 of 4 messages equal); message 4 differs: role "user" vs recorded "tool"`,
		},
		{
			name: "model differs",
			got:  strings.Replace(chat("", user), "gpt-5", "gpt-4o", 1),
			rec:  chat("", user),
			want: `closest is X (other model, the one message equal); model "gpt-4o" vs recorded "gpt-5"`,
		},
		{
			name: "content differs, long strings cut",
			got:  chat("", `{"role":"user","content":"`+strings.Repeat("a", 60)+`"}`),
			rec:  chat("", user),
			want: `closest is X (same model, first 0 of 1 message equal); message 1 differs: content "` + strings.Repeat("a", 40) + `"… vs recorded "weather in Paris and Rome?"`,
		},
		{
			name: "request goes further than the recording",
			got:  chat("", user, callsAB, resultA),
			rec:  chat("", user, callsAB),
			want: `closest is X (same model, first 2 of 3 messages equal); message 3 is not in the recording (role "tool")`,
		},
		{
			name: "recording goes further",
			got:  chat("", user),
			rec:  chat("", user, callsAB, resultA),
			want: `closest is X (same model, first 1 of 1 message equal); the recording has 2 more messages after message 1`,
		},
		{
			name: "another field",
			got:  chat(`,"temperature":0.2`, user),
			rec:  chat(`,"temperature":0.7`, user),
			want: `closest is X (same model, the one message equal); temperature 0.2 vs recorded 0.7`,
		},
		{
			name: "a field the recording lacks",
			got:  chat(`,"tool_choice":"auto"`, user),
			rec:  chat("", user),
			want: `closest is X (same model, the one message equal); tool_choice "auto" is not in the recording`,
		},
		{
			name: "results swapped",
			got:  chat("", user, callsAB, swappedB, swappedA),
			rec:  chat("", user, callsAB, resultA, resultB),
			want: `closest is X (same model, first 2 of 4 messages equal); message 3 differs: tool_call_id is id #2 vs recorded id #1 (ids compare by order of first appearance)`,
		},
		{
			name: "responses input items",
			got:  `{"model":"gpt-5","input":[{"role":"user","content":"capital of Spain?"}]}`,
			rec:  responses("call_1", "fc_1", "resp_1"),
			want: `closest is X (same model, first 0 of 1 input item equal); input item 1 differs: content "capital of Spain?" vs recorded "capital of France?"`,
		},
		{
			name: "anthropic block differs",
			got:  chat("", user, strings.Replace(anthCall, `"Rome"`, `"Milan"`, 1)),
			rec:  chat("", user, anthCall),
			want: `closest is X (same model, first 1 of 2 messages equal); message 2 differs: content[2].input.c "Milan" vs recorded "Rome"`,
		},
		{
			name: "no messages",
			got:  `{"model":"gpt-5"}`,
			rec:  chat("", user),
			want: `closest is X (same model, no messages vs recorded 1); the recording has 1 more message`,
		},
	}
	ignore := ignoreSet(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := explain("X", newRequest([]byte(tt.got), ignore), newRequest([]byte(tt.rec), ignore))
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if strings.ContainsAny(got, "\n") || strings.HasSuffix(got, ".") {
				t.Errorf("not one line without a trailing period: %q", got)
			}
		})
	}
}
