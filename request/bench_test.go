package request

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// agentBodies are the requests of a coding agent's tenth turn in the three
// protocols: a system prompt, tool definitions, and nine turns of text, a
// tool call and a tool result of about 2 KB each (about 25 KB a body).
func agentBodies() map[string][]byte { return agentTurn(9) }

// agentTurn is agentBodies after turns turns of text, call and result.
func agentTurn(turns int) map[string][]byte {
	result := strings.Repeat("\tif err := step(ctx, \"naïve café\"); err != nil {\n\t\treturn fmt.Errorf(\"step: %w\", err)\n\t}\n", 24)
	system := strings.Repeat("You are a careful coding agent. Read the code before you change it. ", 20)
	tool := map[string]any{"name": "read_file", "description": "Read a file.", "parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}}
	chat := []any{map[string]any{"role": "system", "content": system}, map[string]any{"role": "user", "content": "Fix the parser."}}
	anthropic := []any{map[string]any{"role": "user", "content": "Fix the parser."}}
	responses := []any{map[string]any{"role": "user", "content": "Fix the parser."}}
	for i := range turns {
		id, args := fmt.Sprintf("call_%d", i), fmt.Sprintf(`{"path":"src/f%d.go"}`, i)
		text := fmt.Sprintf("Let me read file %d to see where the parser goes wrong.", i)
		chat = append(chat, map[string]any{"role": "assistant", "content": text, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "read_file", "arguments": args}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": result})
		anthropic = append(anthropic, map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}, map[string]any{"type": "tool_use", "id": id, "name": "read_file", "input": map[string]any{"path": fmt.Sprintf("src/f%d.go", i)}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result}}})
		responses = append(responses, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}},
			map[string]any{"type": "function_call", "call_id": id, "name": "read_file", "arguments": args},
			map[string]any{"type": "function_call_output", "call_id": id, "output": result})
	}
	enc := func(v any) []byte { b, _ := json.Marshal(v); return b }
	return map[string][]byte{
		"chat":      enc(map[string]any{"model": "gpt-4o", "stream": true, "messages": chat, "tools": []any{map[string]any{"type": "function", "function": tool}}}),
		"anthropic": enc(map[string]any{"model": "claude-sonnet-4", "stream": true, "system": system, "messages": anthropic, "tools": []any{map[string]any{"name": "read_file", "input_schema": tool["parameters"]}}}),
		"responses": enc(map[string]any{"model": "gpt-4o", "stream": true, "instructions": system, "input": responses, "tools": []any{tool}}),
	}
}

// BenchmarkParse reads an agent's request in each protocol with Parse and
// with the gjson reader it replaced (parseGJSON), which reads the same
// (FuzzParse).
func BenchmarkParse(b *testing.B) {
	for name, body := range agentBodies() {
		if !reflect.DeepEqual(Parse(body), parseGJSON(body)) {
			b.Fatalf("%s: Parse and parseGJSON differ", name)
		}
		for _, r := range []struct {
			name  string
			parse func([]byte) *Request
		}{{"scanner", Parse}, {"gjson", parseGJSON}} {
			b.Run("protocol="+name+"/reader="+r.name, func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					r.parse(body)
				}
			})
		}
	}
}

// BenchmarkReader reads the ten requests of an agent's session (each
// carrying the turns before it, agentTurn) with Parse and with a Reader
// of its own, which recalls the messages each request repeats.
func BenchmarkReader(b *testing.B) {
	sessions := map[string][][]byte{}
	for turns := range 10 {
		for name, body := range agentTurn(turns) {
			sessions[name] = append(sessions[name], body)
		}
	}
	for name, bodies := range sessions {
		n := 0
		rd := new(Reader)
		for _, body := range bodies {
			n += len(body)
			if !reflect.DeepEqual(rd.Parse(body), Parse(body)) {
				b.Fatalf("%s: Reader.Parse and Parse differ", name)
			}
		}
		for _, r := range []string{"Parse", "Reader"} {
			b.Run("protocol="+name+"/reader="+r, func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					parse := Parse
					if r == "Reader" {
						parse = new(Reader).Parse
					}
					for _, body := range bodies {
						parse(body)
					}
				}
			})
		}
	}
}
