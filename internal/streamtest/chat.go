package streamtest

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Chunk is one Chat Completions SSE event whose choice 0 carries delta (a
// JSON object) and no finish reason.
func Chunk(delta string) string { return ChunkFinish(delta, "") }

// ChunkFinish is one Chat Completions SSE event whose choice 0 carries
// delta and finish as its finish reason (null when empty).
func ChunkFinish(delta, finish string) string {
	fr := "null"
	if finish != "" {
		fr = strconv.Quote(finish)
	}
	return `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fr + "}]}\n\n"
}

const (
	// ChatRole is the first delta of an assistant message.
	ChatRole = `{"role":"assistant","content":""}`
	// Done is the [DONE] event that ends a Chat Completions stream.
	Done = "data: [DONE]\n\n"
)

// ChatText is a clean Chat Completions stream whose content deltas are
// parts: the role, the parts, finish reason stop, [DONE].
func ChatText(parts ...string) string {
	var b strings.Builder
	b.WriteString(Chunk(ChatRole))
	for _, p := range parts {
		b.WriteString(Chunk(`{"content":` + JSONString(p) + `}`))
	}
	b.WriteString(ChunkFinish(`{}`, "stop"))
	b.WriteString(Done)
	return b.String()
}

// Tool is a tool_calls delta for one call; an empty id or name is
// omitted, as in the deltas after a call's first.
func Tool(index int, id, name, args string) string {
	tc := map[string]any{"index": index, "type": "function"}
	fn := map[string]any{"arguments": args}
	if id != "" {
		tc["id"] = id
	}
	if name != "" {
		fn["name"] = name
	}
	tc["function"] = fn
	b, _ := json.Marshal(map[string]any{"tool_calls": []any{tc}})
	return string(b)
}

// ChatCalls is a clean stream making the given calls, each {id, name,
// arguments}, in one delta each, finish reason tool_calls.
func ChatCalls(calls ...[3]string) string {
	var b strings.Builder
	b.WriteString(Chunk(ChatRole))
	for i, c := range calls {
		b.WriteString(Chunk(Tool(i, c[0], c[1], c[2])))
	}
	b.WriteString(ChunkFinish(`{}`, "tool_calls"))
	b.WriteString(Done)
	return b.String()
}

// JSONString is s as a JSON string.
func JSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
