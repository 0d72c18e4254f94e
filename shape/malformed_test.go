package shape

import (
	"strings"
	"testing"
)

// What a reshaping engine cannot decode reaches the client as it came:
// never dropped, never guessed at.
func TestUndecodableEventsForwarded(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		profile string
		body    string
		want    []string // substrings of the client stream, in order
		not     []string
	}{
		"broken JSON is not decoded leniently": {
			ProfileObsidianXML,
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n" +
				"data: {\"choices\"[{\"index\":0,\"delta\":{\"content\":\"guess\"}}]}\n\n" +
				"data: [DONE]\n\n",
			[]string{`"content":"hi"`, "data: {\"choices\"[{\"index\":0,\"delta\":{\"content\":\"guess\"}}]}\n\n", "data: [DONE]\n\n"},
			[]string{`{"content":"guess"},"finish_reason"`},
		},
		"a cut last event stays cut": {
			ProfileObsidianXML,
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" there\"}}]}",
			[]string{`"content":"hi"`},
			[]string{`"content":" there"}}]}` + "\n\n", "[DONE]"},
		},
		"arguments for a block never started": {
			ProfilePassthrough + "+holdback",
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"role\":\"assistant\"}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":1}\"}}\n\n" +
				"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
			[]string{`"index":3,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}`, "message_stop"},
			nil,
		},
		// The engine numbers its own blocks (here text 0, tool 1): a stray
		// delta whose upstream index is 1 must not land in the tool call
		// the engine numbered 1 (found by FuzzEngine).
		"arguments for a block never started, under an index the engine gave a tool": {
			ProfilePassthrough + "+holdback",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\"}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n",
			[]string{`"index":1,"content_block":{"type":"tool_use"`, `"index":2,"delta":{"type":"input_json_delta","partial_json":"{}"}`},
			[]string{`"index":1,"delta":{"type":"input_json_delta"`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			profile, set := tc.profile, map[string]string(nil)
			if p, ok := strings.CutSuffix(profile, "+holdback"); ok {
				profile, set = p, map[string]string{SwHoldback: "on"}
			}
			got := string(join(run(mustEngine(t, profile, set), [][]byte{[]byte(tc.body)})))
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("client stream lacks %q (in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("client stream holds %q:\n%s", n, got)
				}
			}
			if name == "a cut last event stays cut" {
				// Its lines, but not the blank line that would dispatch it.
				if !strings.HasSuffix(got, `" there"}}]}`+"\n") {
					t.Errorf("the cut event should end the stream unterminated:\n%q", got)
				}
			}
		})
	}
}
