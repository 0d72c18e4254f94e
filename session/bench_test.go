package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/request"
)

// BenchmarkHistory fingerprints the history of an agent's tenth turn: a
// system prompt and nine turns of text, a tool call and a tool result of
// about 2 KB each. MB/s counts the messages' text.
func BenchmarkHistory(b *testing.B) {
	result := strings.Repeat("\tif err := step(ctx, \"naïve café\"); err != nil {\n\t\treturn fmt.Errorf(\"step: %w\", err)\n\t}\n", 24)
	r := &request.Request{Messages: []request.Message{{Role: "system", Text: strings.Repeat("You are a careful coding agent. ", 40)}, {Role: "user", Text: "Fix the parser."}}}
	for i := range 9 {
		id := fmt.Sprintf("call_%d", i)
		r.Messages = append(r.Messages,
			request.Message{Role: "assistant", Text: "Let me read the next file.", ToolCalls: []protocol.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"src/f%d.go"}`, i)}}},
			request.Message{Role: "tool", ToolCallID: id, Text: result})
	}
	size := 0
	for _, m := range r.Messages {
		size += len(m.Text)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		History(r)
	}
}
