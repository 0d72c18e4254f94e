package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/seam-dev/seam/tape"
)

// family is one protocol family of the generated capture: where its
// requests go, what its streams are (recorded bodies from fixtures/) and
// how its request body carries an agent's history.
type family struct {
	name        string
	url         func(model string) string
	contentType string
	models      []string
	streams     []string // paths under the fixtures directory
	body        func(model string, h history) any
	// split cuts a stream body into the reads that carried it.
	split func(r *rand.Rand, body []byte) [][]byte
}

// history is an agent's conversation so far: a system prompt, the user's
// task, then per turn the assistant's text with a tool call and the tool's
// result.
type history struct {
	system, task string
	turns        []turn
	tools        []map[string]any
}

type turn struct{ text, call, args, result string }

// families are the protocols a capture mixes, each with the recorded
// streams that fixtures/ carries for it.
var families = []family{
	{name: "openai-chat", url: func(string) string { return "/v1/chat/completions" }, contentType: "text/event-stream",
		models: []string{"gpt-4o", "gpt-4.1-mini"},
		streams: []string{"realworld/openai-chat-long-text.sse", "realworld/openai-chat-parallel-tool-calls.sse",
			"realworld/openai-chat-n3-choices.sse", "realworld/openai-chat-refusal.sse", "realworld/openai-chat-finish-length.sse",
			"providers/openai-compatible/together-stream-text.sse", "providers/mistral/mistral-stream-text.sse",
			"providers/mistral/mistral-stream-tool-call.sse", "providers/openai-compatible/openrouter-langchaingo-stream-processing-comment.sse"},
		body: chatBody, split: splitEvents},
	{name: "anthropic", url: func(string) string { return "/v1/messages" }, contentType: "text/event-stream",
		models: []string{"claude-sonnet-4-20250514"},
		streams: []string{"realworld/anthropic-sdk-basic-response.sse", "realworld/anthropic-sdk-tool-use-response.sse",
			"realworld/anthropic-sdk-incomplete-partial-json-response.sse"},
		body: anthropicBody, split: splitEvents},
	{name: "responses", url: func(string) string { return "/v1/responses" }, contentType: "text/event-stream",
		models: []string{"gpt-4o"},
		streams: []string{"realworld/pydantic-ai-openai-responses-stream.1.sse", "realworld/pydantic-ai-openai-responses-stream.2.sse",
			"realworld/pydantic-ai-openai-responses-streaming-usage.sse"},
		body: responsesBody, split: splitEvents},
	{name: "gemini", url: func(m string) string { return "/v1beta/models/" + m + ":streamGenerateContent?alt=sse" }, contentType: "text/event-stream",
		models: []string{"gemini-2.5-flash"},
		streams: []string{"providers/gemini/gemini-fb-googleai-basic-reply-long.sse", "providers/gemini/gemini-fb-googleai-thinking-function-call.sse",
			"providers/gemini/gemini-openinference-sse-parallel-function-calls.sse", "providers/gemini/gemini-fb-googleai-code-execution.sse"},
		body: geminiBody, split: splitEvents},
	{name: "cohere", url: func(string) string { return "/v2/chat" }, contentType: "text/event-stream",
		models:  []string{"command-r-plus"},
		streams: []string{"providers/cohere/cohere-v2-stream-text.sse", "providers/cohere/cohere-v2-stream-two-tool-calls.sse"},
		body:    chatBody, split: splitEvents},
	{name: "ollama", url: func(string) string { return "/api/chat" }, contentType: "application/x-ndjson",
		models: []string{"llama3.2"},
		streams: []string{"providers/ollama/ollama-langchaingo-chat-stream-long.ndjson", "providers/ollama/ollama-openllmetry-chat-stream-llama3.ndjson",
			"providers/ollama/ollama-openinference-chat-stream-thinking.ndjson"},
		body: chatBody, split: splitLines},
	{name: "bedrock", url: func(m string) string { return "/model/" + m + "/converse-stream" }, contentType: "application/vnd.amazon.eventstream",
		models:  []string{"anthropic.claude-3-haiku-20240307-v1:0"},
		streams: []string{"providers/bedrock/bedrock-converse-stream-claude3-tool-use.eventstream"},
		body:    anthropicBody, split: splitBytes},
}

// familyWeights says how often each family's exchanges come, in the order
// of families: mostly OpenAI and Anthropic traffic, as an agent gateway
// sees it.
var familyWeights = []int{40, 25, 12, 8, 5, 6, 4}

func chatBody(model string, h history) any {
	msgs := []map[string]any{{"role": "system", "content": h.system}, {"role": "user", "content": h.task}}
	for i, t := range h.turns {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": t.text, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": t.call, "arguments": t.args}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": t.result})
	}
	tools := make([]any, len(h.tools))
	for i, t := range h.tools {
		tools[i] = map[string]any{"type": "function", "function": t}
	}
	return map[string]any{"model": model, "stream": true, "stream_options": map[string]any{"include_usage": true}, "messages": msgs, "tools": tools}
}

func anthropicBody(model string, h history) any {
	msgs := []map[string]any{{"role": "user", "content": h.task}}
	for i, t := range h.turns {
		id := fmt.Sprintf("toolu_%02d", i)
		var input any
		json.Unmarshal([]byte(t.args), &input)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": t.text}, map[string]any{"type": "tool_use", "id": id, "name": t.call, "input": input}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": t.result}}})
	}
	tools := make([]any, len(h.tools))
	for i, t := range h.tools {
		tools[i] = map[string]any{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}
	}
	return map[string]any{"model": model, "max_tokens": 8192, "stream": true, "system": h.system, "messages": msgs, "tools": tools}
}

func responsesBody(model string, h history) any {
	input := []any{map[string]any{"role": "user", "content": h.task}}
	for i, t := range h.turns {
		id := fmt.Sprintf("call_%d", i)
		input = append(input,
			map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": t.text}}},
			map[string]any{"type": "function_call", "call_id": id, "name": t.call, "arguments": t.args},
			map[string]any{"type": "function_call_output", "call_id": id, "output": t.result})
	}
	tools := make([]any, len(h.tools))
	for i, t := range h.tools {
		tools[i] = map[string]any{"type": "function", "name": t["name"], "description": t["description"], "parameters": t["parameters"]}
	}
	return map[string]any{"model": model, "stream": true, "instructions": h.system, "input": input, "tools": tools}
}

func geminiBody(_ string, h history) any {
	contents := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": h.task}}}}
	for _, t := range h.turns {
		var args any
		json.Unmarshal([]byte(t.args), &args)
		contents = append(contents,
			map[string]any{"role": "model", "parts": []any{map[string]any{"text": t.text}, map[string]any{"functionCall": map[string]any{"name": t.call, "args": args}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": t.call, "response": map[string]any{"content": t.result}}}}})
	}
	decls := make([]any, len(h.tools))
	for i, t := range h.tools {
		decls[i] = t
	}
	return map[string]any{"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": h.system}}}, "contents": contents,
		"tools": []any{map[string]any{"functionDeclarations": decls}}}
}

// splitEvents cuts an SSE body as a network does: mostly one to three
// whole events a read, now and then a read ending inside an event.
func splitEvents(r *rand.Rand, body []byte) [][]byte {
	return splitAt(r, body, []byte("\n\n"))
}

// splitLines cuts an NDJSON body into reads of one to three lines, now and
// then one ending inside a line.
func splitLines(r *rand.Rand, body []byte) [][]byte { return splitAt(r, body, []byte("\n")) }

func splitAt(r *rand.Rand, body, sep []byte) [][]byte {
	var out [][]byte
	for len(body) > 0 {
		n := 0
		for range 1 + r.IntN(3) {
			i := bytes.Index(body[n:], sep)
			if i < 0 {
				n = len(body)
				break
			}
			n += i + len(sep)
		}
		if r.IntN(20) == 0 && n < len(body) {
			n += r.IntN(min(64, len(body)-n)) // a read ending inside the next event
		}
		out = append(out, body[:n])
		body = body[n:]
	}
	return out
}

// splitBytes cuts a binary body into reads of 64 to 1,087 bytes.
func splitBytes(r *rand.Rand, body []byte) [][]byte {
	var out [][]byte
	for len(body) > 0 {
		n := min(len(body), 64+r.IntN(1024))
		out = append(out, body[:n])
		body = body[n:]
	}
	return out
}

// readCaptureName is the generated capture's name in its directory (the
// name cmd/seam's BenchmarkStats1GB and friends find with SEAM_BENCH_DIR).
const readCaptureName = "seam-read-bench.ndjson"

// genCapture writes a capture of at least size bytes to path as "seam
// record" writes one (the same tape.Writer, passthrough: each read written
// once with the client's copy mirrored on its line, a coalescing client
// side now and then, four exchanges in flight at a time), deterministically
// from seed, and returns its size and exchange count.
func genCapture(path, fixtures string, size int64, seed uint64) (int64, int, error) {
	streams := map[string][]byte{}
	for _, f := range families {
		for _, s := range f.streams {
			b, err := os.ReadFile(filepath.Join(fixtures, s))
			if err != nil {
				return 0, 0, fmt.Errorf("read the fixtures (run from the repository's root, or give -fixtures): %w", err)
			}
			streams[s] = b
		}
	}
	out, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	defer out.Close()
	bw := bufio.NewWriterSize(out, 1<<20)
	w := tape.NewWriter(bw, tape.WriterOptions{MaxQueued: 256 << 20})
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	w.Header(tape.Header{V: tape.Version, Seam: "seam-bench", ID: fmt.Sprintf("read-%d", seed), Started: start,
		Upstream: "https://gateway.example", Engine: tape.Engine{Profile: "passthrough"}})
	r := rand.New(rand.NewPCG(seed, 0x5ea3))
	g := &generator{r: r, streams: streams}
	for w.Written() < size {
		g.batch(w)
		for w.Stats().InFlight > 0 { // one batch queued at a time: nothing is dropped
			time.Sleep(100 * time.Microsecond)
		}
		if err := w.Err(); err != nil {
			return 0, 0, err
		}
	}
	if err := w.Close(); err != nil {
		return 0, 0, err
	}
	if st := w.Stats(); st.Incomplete > 0 {
		return 0, 0, fmt.Errorf("generating %s: %d exchanges lost data", path, st.Incomplete)
	}
	if err := bw.Flush(); err != nil {
		return 0, 0, err
	}
	st, err := out.Stat()
	if err != nil {
		return 0, 0, err
	}
	return st.Size(), g.ex, out.Close()
}

// generator makes the exchanges of agent sessions, one batch at a time.
type generator struct {
	r       *rand.Rand
	streams map[string][]byte
	ex      int
	t       int64 // ns since the capture started
	// sessions in progress: each next turn extends its history.
	sessions []*session
}

type session struct {
	fam   int
	model string
	h     history
	left  int // turns still to come
}

// exchange is one exchange being written: its reads still to come.
type pending struct {
	x          *tape.ExchangeWriter
	reads      [][]byte
	t          int64
	coalescing bool
	held       []byte // a coalescing client's bytes not yet written
}

// batch writes four concurrent exchanges, their lines interleaved read by
// read as a recorder writes them.
func (g *generator) batch(w *tape.Writer) {
	var ps []*pending
	for range 4 {
		ps = append(ps, g.start(w))
	}
	for open := len(ps); open > 0; {
		open = 0
		for _, p := range ps {
			if len(p.reads) == 0 {
				continue
			}
			open++
			p.t += int64(time.Duration(2+g.r.IntN(30)) * time.Millisecond)
			data := p.reads[0]
			p.reads = p.reads[1:]
			if !p.coalescing {
				p.x.Mirror(p.t, p.t+40_000, data)
			} else {
				p.x.Chunk(tape.Upstream, p.t, data)
				p.held = append(p.held, data...)
				if len(p.held) > 200 || len(p.reads) == 0 {
					p.x.ClientChunk(p.t+60_000, p.held, -1)
					p.held = p.held[:0]
				}
			}
			if len(p.reads) == 0 {
				p.x.End(tape.Upstream, p.t, tape.Complete, "")
				p.x.End(tape.Client, p.t+70_000, tape.Complete, "")
			}
		}
	}
	g.t += int64(time.Duration(50+g.r.IntN(400)) * time.Millisecond)
}

// start begins the next exchange: the next turn of a session in progress,
// or the first of a new one.
func (g *generator) start(w *tape.Writer) *pending {
	var s *session
	if len(g.sessions) < 6 || g.r.IntN(4) == 0 {
		s = g.newSession()
		g.sessions = append(g.sessions, s)
	} else {
		s = g.sessions[g.r.IntN(len(g.sessions))]
	}
	f := families[s.fam]
	stream := g.streams[f.streams[g.r.IntN(len(f.streams))]]
	body, _ := json.Marshal(f.body(s.model, s.h))
	g.ex++
	g.t += int64(time.Duration(g.r.IntN(20)) * time.Millisecond)
	x := w.Exchange(g.ex)
	x.Request(tape.Request{T: g.t, Method: "POST", URL: f.url(s.model), Body: body, Headers: tape.Headers{
		"authorization": {"[redacted]"}, "content-type": {"application/json"}, "user-agent": {"seam-bench-agent/1.0"}, "accept": {f.contentType}}})
	t := g.t + int64(time.Duration(150+g.r.IntN(900))*time.Millisecond)
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		x.Response(tape.Response{Side: side, T: t, Status: 200, Headers: tape.Headers{"content-type": {f.contentType},
			"x-request-id": {fmt.Sprintf("req_%08x", g.r.Uint32())}, "date": {"Fri, 20 Nov 2026 09:00:00 GMT"}}})
	}
	s.h.turns = append(s.h.turns, g.turn())
	if s.left--; s.left == 0 {
		for i, o := range g.sessions {
			if o == s {
				g.sessions = append(g.sessions[:i], g.sessions[i+1:]...)
				break
			}
		}
	}
	return &pending{x: x, reads: f.split(g.r, stream), t: t, coalescing: g.r.IntN(10) == 0}
}

func (g *generator) newSession() *session {
	fam := pick(g.r, familyWeights)
	f := families[fam]
	s := &session{fam: fam, model: f.models[g.r.IntN(len(f.models))], left: 1 + g.r.IntN(12)}
	s.h.system = strings.Repeat(agentPrompt, 2+g.r.IntN(8))
	s.h.task = fmt.Sprintf("Fix issue #%d: %s", 1000+g.r.IntN(9000), sentence(g.r, 20+g.r.IntN(60)))
	for _, name := range []string{"read_file", "edit_file", "run_tests", "grep", "list_dir"}[:2+g.r.IntN(4)] {
		s.h.tools = append(s.h.tools, map[string]any{"name": name, "description": sentence(g.r, 25),
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "line": map[string]any{"type": "integer"}}, "required": []any{"path"}}})
	}
	return s
}

// turn is one more assistant turn and its tool result: a paragraph, a
// call, and a file excerpt of a few hundred bytes to several KB.
func (g *generator) turn() turn {
	calls := []string{"read_file", "edit_file", "run_tests", "grep"}
	path := fmt.Sprintf("src/pkg%d/file_%d.go", g.r.IntN(40), g.r.IntN(200))
	var res strings.Builder
	for range 5 + g.r.IntN(120) {
		fmt.Fprintf(&res, "\tif err := step%d(ctx, %q); err != nil {\n\t\treturn fmt.Errorf(\"step: %%w\", err)\n\t}\n", g.r.IntN(100), sentence(g.r, 3))
	}
	return turn{text: sentence(g.r, 10+g.r.IntN(80)), call: calls[g.r.IntN(len(calls))],
		args: fmt.Sprintf(`{"path":%q,"line":%d}`, path, g.r.IntN(900)), result: res.String()}
}

const agentPrompt = "You are a careful coding agent working in a large Go repository. Read the code before you change it, keep each change small, run the tests after every edit and report what you changed and why. Never guess an API: look it up in the source. "

var words = strings.Fields("the proxy reshapes each delta of the stream and the client assembles what it receives into one message that a user reads while tools run tests parse files and report errors back to the model über naïve café 日本語")

func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

func pick(r *rand.Rand, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

// compressCapture writes src zstd-compressed to dst, as a .ndjson.zst
// capture.
func compressCapture(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer out.Close()
	zw, err := zstd.NewWriter(out)
	if err != nil {
		return err
	}
	if _, err := io.Copy(zw, in); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return out.Close()
}
