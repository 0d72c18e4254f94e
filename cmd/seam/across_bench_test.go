package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// benchCaptures generates, in a temporary directory removed when b ends,
// captures of about SEAM_BENCH_BYTES bytes (1 GB by default): agent
// sessions of eight turns whose requests carry the growing history and
// whose streams are recorded on both sides, 40 MB per capture. It returns
// the directory and its size. With SEAM_BENCH_DIR set, the captures are
// written there and kept (to time the seam command on them), or read from
// there when they already are.
func benchCaptures(b *testing.B) (string, int64) {
	want := int64(1 << 30)
	if n, err := strconv.ParseInt(os.Getenv("SEAM_BENCH_BYTES"), 10, 64); err == nil && n > 0 {
		want = n
	}
	dir := os.Getenv("SEAM_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	} else if found, _ := filepath.Glob(filepath.Join(dir, "seam-*.ndjson")); len(found) > 0 {
		var total int64
		for _, f := range found {
			if st, err := os.Stat(f); err == nil {
				total += st.Size()
			}
		}
		return dir, total
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var total int64
	for file := 0; total < want; file++ {
		n, err := writeBenchCapture(filepath.Join(dir, fmt.Sprintf("seam-%04d.ndjson", file)), file, min(40<<20, want-total))
		if err != nil {
			b.Fatal(err)
		}
		total += n
	}
	return dir, total
}

// writeBenchCapture writes a capture of about size bytes and returns its
// size.
func writeBenchCapture(path string, file int, size int64) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := tape.Header{V: 1, Seam: "bench", ID: strconv.Itoa(file), Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC).Add(time.Duration(file) * time.Hour),
		Upstream: "https://api.openai.com", Engine: tape.Engine{Profile: "passthrough"}}
	buf := tape.AppendHeader(nil, h)
	var written int64
	ex := 0
	words := strings.Fields("the proxy reshapes each delta of the stream and the client assembles what it receives into one message that a user reads")
	for session := 0; written+int64(len(buf)) < size; session++ {
		msgs := []map[string]any{
			{"role": "system", "content": strings.Repeat("You are a careful coding agent working in a large repository. ", 30)},
			{"role": "user", "content": fmt.Sprintf("fix issue %d-%d in the parser", file, session)},
		}
		model := []string{"gpt-5", "gpt-5-mini", "claude-sonnet-4"}[session%3]
		for turn := 1; turn <= 8; turn++ {
			ex++
			t0 := int64(ex) * int64(3*time.Second)
			body, _ := json.Marshal(map[string]any{"model": model, "stream": true, "messages": msgs})
			buf = tape.AppendRequest(buf, tape.Request{Ex: ex, T: t0, Method: "POST", URL: "/v1/chat/completions", Headers: tape.Headers{"content-type": {"application/json"}}, Body: body})
			for _, side := range []tape.Side{tape.Upstream, tape.Client} {
				buf = tape.AppendResponse(buf, tape.Response{Ex: ex, Side: side, T: t0 + 3e8, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}})
			}
			head := fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion.chunk","model":%q,"choices":[{"index":0,"delta":`, ex, model)
			var events []string
			for i := range 60 {
				events = append(events, head+fmt.Sprintf(`{"content":"%s %s "},"finish_reason":null}]}`, words[(i+turn)%len(words)], words[(i*7+ex)%len(words)]))
			}
			call := fmt.Sprintf("call_%d", ex)
			args := fmt.Sprintf(`{"path":"src/parser_%d.go","line":%d}`, turn, ex%500)
			events = append(events, head+fmt.Sprintf(`{"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":"read_file","arguments":%q}}]},"finish_reason":null}]}`, call, args),
				head+`{},"finish_reason":"tool_calls"}]}`,
				fmt.Sprintf(`{"id":"chatcmpl-%d","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, ex, 900+len(body)/4, 130, 1030+len(body)/4), "[DONE]")
			var off int64
			t := t0 + 3e8
			for i, e := range events {
				t += int64(time.Duration(3+i%17) * time.Millisecond)
				if i == 30 && ex%23 == 0 {
					t += int64(2 * time.Second) // a stall now and then
				}
				data := []byte("data: " + e + "\n\n")
				for _, side := range []tape.Side{tape.Upstream, tape.Client} {
					buf = tape.AppendChunk(buf, tape.Chunk{Ex: ex, Side: side, T: t, Off: off, Data: data})
				}
				off += int64(len(data))
			}
			for _, side := range []tape.Side{tape.Upstream, tape.Client} {
				buf = tape.AppendEnd(buf, tape.End{Ex: ex, Side: side, T: t, Outcome: tape.Complete, Bytes: off})
			}
			if len(buf) > 1<<20 {
				n, err := f.Write(buf)
				written += int64(n)
				if err != nil {
					return written, err
				}
				buf = buf[:0]
			}
			text := ""
			for i := range 60 {
				text += words[(i+turn)%len(words)] + " " + words[(i*7+ex)%len(words)] + " "
			}
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": text, "tool_calls": []any{map[string]any{"id": call, "type": "function", "function": map[string]any{"name": "read_file", "arguments": args}}}},
				map[string]any{"role": "tool", "tool_call_id": call, "content": strings.Repeat(fmt.Sprintf("func parse%d() {}\n", turn), 20)})
		}
	}
	n, err := f.Write(buf)
	return written + int64(n), err
}

// benchRun runs seam with args over the generated captures, output
// discarded, and reports MB/s of capture read.
func benchRun(b *testing.B, args ...string) {
	dir, size := benchCaptures(b)
	b.SetBytes(size)
	b.ReportAllocs()
	e := testEnv(nil, io.Discard, io.Discard)
	for b.Loop() {
		if err := run(context.Background(), append(args, dir), e); err != nil && err != errNoMatch {
			b.Fatal(err)
		}
	}
}

// BenchmarkStats1GB: seam stats over about 1 GB of captures (every
// exchange inspected, findings included, sessions linked).
func BenchmarkStats1GB(b *testing.B) { benchRun(b, "stats", "--json") }

// BenchmarkStatsBySession1GB: seam stats --by session.
func BenchmarkStatsBySession1GB(b *testing.B) { benchRun(b, "stats", "--by", "session", "--json") }

// BenchmarkGrep1GB: seam grep for a word in every scope (assembled text,
// tool calls, request messages, headers).
func BenchmarkGrep1GB(b *testing.B) { benchRun(b, "grep", "-l", "parser_7") }

// BenchmarkGrepWhere1GB: seam grep with a filter on findings, which
// inspects every exchange in full.
func BenchmarkGrepWhere1GB(b *testing.B) {
	benchRun(b, "grep", "-l", "--where", "stalls>0 sev>=info", "parser_7")
}
