package capture

import "testing"

func TestIsTerminal(t *testing.T) {
	for _, tc := range []struct {
		typ, data string
		want      bool
	}{
		{"", "[DONE]", true},
		{"message", "[DONE]", true},
		{"", `{"choices":[{"delta":{"content":"[DONE]"}}]}`, false},
		{"message_stop", `{"type":"message_stop"}`, true},
		{"", `{"type":"message_stop"}`, true},
		{"", `{"type" : "response.completed","response":{}}`, true},
		{"", `{"type":"content_block_delta","delta":{"text":"say \"message_stop\""}}`, false},
		{"", `{"type":"response.output_text.delta","delta":"response.completed"}`, false},
		{"response.failed", `{}`, true},
		{"error", `{"error":{}}`, true},
		{"ping", `{"type":"message_stop"}`, false},
	} {
		if got := isTerminal(tc.typ, []byte(tc.data)); got != tc.want {
			t.Errorf("isTerminal(%q, %s) = %v, want %v", tc.typ, tc.data, got, tc.want)
		}
	}
}
