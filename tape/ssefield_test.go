package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// chunkLine returns the "chunk" line AppendChunk writes for data, without
// its newline.
func chunkLine(data []byte) []byte {
	return bytes.TrimSuffix(AppendChunk(nil, Chunk{Ex: 2, Side: Upstream, T: 5, Off: 9, Data: data}), []byte("\n"))
}

// dataLine returns the line format v2 wrote for data ("data" or
// "data_b64"), without its newline.
func dataLine(data []byte) []byte {
	return bytes.TrimSuffix(appendChunkV2(nil, Chunk{Ex: 2, Side: Upstream, T: 5, Off: 9, Data: data}), []byte("\n"))
}

// checkChunkLine decodes line with both decoders and fails unless each gives
// data back exactly, the line is valid JSON, and it is no longer than the
// line format v2 wrote.
func checkChunkLine(t *testing.T, line, data []byte) {
	t.Helper()
	if !json.Valid(line) {
		t.Fatalf("not valid JSON: %s", line)
	}
	fast, ok := parseChunkFast(line)
	if !ok {
		t.Fatalf("the fast path does not read %s", line)
	}
	if !bytes.Equal(fast.Data, data) || fast.Ex != 2 || fast.Side != Upstream || fast.T != 5 || fast.Off != 9 {
		t.Fatalf("the fast path reads %s as %+v (%q), want %q", line, fast, fast.Data, data)
	}
	slow, err := decodeKind(KindChunk, line)
	if err != nil {
		t.Fatalf("encoding/json path: %v on %s", err, line)
	}
	if !bytes.Equal(slow.Chunk.Data, data) {
		t.Fatalf("the encoding/json path reads %s as %q, want %q", line, slow.Chunk.Data, data)
	}
	if old := dataLine(data); len(line) > len(old) {
		t.Fatalf("line of %d bytes is longer than the v2 line of %d:\n%s\n%s", len(line), len(old), line, old)
	}
}

// openAIChunk and anthropicChunk are reads from real streams (the bytes of
// fixtures/realworld/openai-chat-long-text.sse and
// anthropic-sdk-tool-use-response.sse), a read ending inside an event.
const (
	openAIChunk    = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" \\\"quoted\\\" naïve\"},\"finish_reason\":null}]}\n\ndata: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	anthropicChunk = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\": \\\"Paris\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_st"
)

// TestAppendChunkSSE pins down which bytes become an "sse" piece: only an
// event whose one data line is a valid JSON object or array ended by
// exactly "\n\n"; everything else stays text, and the bytes always come
// back exactly.
func TestAppendChunkSSE(t *testing.T) {
	t.Parallel()
	deep := "data: " + strings.Repeat("[", maxRawDepth+1) + strings.Repeat("]", maxRawDepth+1) + "\n\n"
	deepOK := "data: " + strings.Repeat("[", maxRawDepth) + strings.Repeat("]", maxRawDepth) + "\n\n"
	tests := []struct {
		name, data, want string // want: the line's data field; "" for "data" as before
	}{
		{"openai", openAIChunk, `"sse":[{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" \"quoted\" naïve"},"finish_reason":null}]},{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]},"data: [DONE]\n\n"]`},
		{"anthropic, cut inside an event", anthropicChunk, `"sse":["event: content_block_delta\n",{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"Paris"}},"event: content_block_stop\ndata: {\"type\":\"content_block_st"]`},
		{"task example", "data: {\"a\":1}\n\ndata: {\"b\"", `"sse":[{"a":1},"data: {\"b\""]`},
		{"array", "data: [1,2.5e-3,true,null,\"x\"]\n\n", `"sse":[[1,2.5e-3,true,null,"x"]]`},
		{"empty object", "data: {}\n\n", `"sse":[{}]`},
		{"spaces and tabs inside", "data: { \"a\" :\t[ 1 , 2 ] }\n\n", `"sse":[{ "a" :	[ 1 , 2 ] }]`},
		{"lone surrogate escape (valid JSON)", "data: {\"a\":\"\\ud800\"}\n\n", `"sse":[{"a":"\ud800"}]`},
		{"nested to the limit", deepOK, `"sse":[` + deepOK[6:len(deepOK)-2] + `]`},
		{"text after", "data: {}\n\n: ping\n", `"sse":[{},": ping\n"]`},
		{"after a line", "id: 7\ndata: {}\n\n", `"sse":["id: 7\n",{}]`},
		{"two data lines", "data: {}\ndata: {}\n\n", `"sse":["data: {}\n",{}]`},
		{"nested too deep", deep, ""},
		{"one newline", "data: {}\n", ""},
		{"no newline", "data: {}", ""},
		{"CRLF", "data: {}\r\n\r\n", ""},
		{"CR inside", "data: {\r}\n\n", ""},
		{"LF then CR", "data: {}\n\r\n", ""},
		{"no space", "data:{}\n\n", ""},
		{"two spaces", "data:  {}\n\n", ""},
		{"trailing space", "data: {} \n\n", ""},
		{"not at a line start", "xdata: {}\n\n", ""},
		{"after CR only", "a\rdata: {}\n\n", ""},
		{"done", "data: [DONE]\n\n", ""},
		{"string", "data: \"x\"\n\n", ""},
		{"number", "data: 1\n\n", ""},
		{"leading zero", "data: [01]\n\n", ""},
		{"bare fraction", "data: [1.]\n\n", ""},
		{"bad exponent", "data: [1e]\n\n", ""},
		{"plus sign", "data: [+1]\n\n", ""},
		{"bad literal", "data: [tru]\n\n", ""},
		{"unquoted key", "data: {a:1}\n\n", ""},
		{"trailing comma", "data: [1,]\n\n", ""},
		{"two values", "data: {}{}\n\n", ""},
		{"unclosed", "data: {\"a\":[1}\n\n", ""},
		{"control character in a string", "data: [\"a\tb\"]\n\n", ""},
		{"bad escape", "data: [\"\\x\"]\n\n", ""},
		{"short unicode escape", "data: [\"\\u12\"]\n\n", ""},
		{"single quotes", "data: ['a']\n\n", ""},
		{"NaN", "data: [NaN]\n\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := []byte(tt.data)
			line := chunkLine(data)
			want := tt.want
			if want == "" {
				want = string(dataLine(data)[len(`{"type":"chunk","ex":2,"side":"upstream","t":5,"off":9,`):])
				want = want[:len(want)-1]
			}
			if got := line[len(`{"type":"chunk","ex":2,"side":"upstream","t":5,"off":9,`) : len(line)-1]; string(got) != want {
				t.Errorf("%q is written as\n%s\nwant\n%s", tt.data, got, want)
			}
			checkChunkLine(t, line, data)
		})
	}
}

// FuzzAppendChunk writes arbitrary bytes, and bytes made of SSE events
// around them, as a chunk line and checks that both decoders give them back
// exactly, that the line is valid JSON and never longer than in format v2.
func FuzzAppendChunk(f *testing.F) {
	f.Add([]byte(openAIChunk), []byte(`{"a":"\u00e9"}`))
	f.Add([]byte(anthropicChunk), []byte(`[1,{"b":[true,false,null]}]`))
	f.Add([]byte("data: {\"a\":1}\r\n\r\n"), []byte(`{"a":"\ud83d\ude42"}`))
	f.Add([]byte{0xff, '\n'}, []byte(`{"a":1e5}`))
	f.Add([]byte("event: x\n"), []byte(`{`))
	f.Fuzz(func(t *testing.T, text, value []byte) {
		checkChunkLine(t, chunkLine(text), text)
		// An event whose data is value, between two pieces of text.
		ev := append(append(append(append([]byte{}, text...), "\ndata: "...), value...), "\n\n"...)
		ev = append(ev, text...)
		line := chunkLine(ev)
		checkChunkLine(t, line, ev)
		if json.Valid(value) && utf8.Valid(ev) && len(value) > 0 && isOpen(value[0]) && isClose(value[len(value)-1]) &&
			bytes.IndexAny(value, "\r\n") < 0 && bytes.Count(value, []byte("["))+bytes.Count(value, []byte("{")) <= maxRawDepth {
			// A valid event in valid UTF-8 is a piece, its text as it is.
			piece := append([]byte{','}, value...)
			if !bytes.Contains(line, append(piece, ',')) && !bytes.Contains(line, append(piece, ']')) {
				t.Fatalf("event %s is not an sse piece: %s", value, line)
			}
		}
	})
}

// TestFixtureChunksInSSE re-encodes every chunk of the committed fixture
// captures and of the realworld streams (read whole and in 1 KiB reads):
// each comes back exactly through both decoders, and the captures are
// smaller than format v2 wrote them.
func TestFixtureChunksInSSE(t *testing.T) {
	t.Parallel()
	var chunks [][]byte
	files, _ := filepath.Glob("../fixtures/*.ndjson")
	for _, f := range files {
		c, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range c.Exchanges {
			for _, s := range []*SideData{&x.Upstream, &x.Client} {
				for _, ch := range s.Chunks {
					chunks = append(chunks, ch.Data)
				}
			}
		}
	}
	streams, _ := filepath.Glob("../fixtures/realworld/*.sse")
	for _, f := range streams {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, b)
		for len(b) > 1024 {
			chunks = append(chunks, b[:1024])
			b = b[1024:]
		}
		chunks = append(chunks, b)
	}
	if len(files) < 10 || len(streams) < 8 {
		t.Fatalf("found %d fixture captures and %d streams", len(files), len(streams))
	}
	var v2, v3, pieces int
	for _, data := range chunks {
		line := chunkLine(data)
		checkChunkLine(t, line, data)
		v2 += len(dataLine(data))
		v3 += len(line)
		if bytes.Contains(line, []byte(`"sse":[`)) {
			pieces++
		}
	}
	t.Logf("%d chunks, %d in sse pieces: %d bytes of lines in v2, %d in v3 (%.3f×)", len(chunks), pieces, v2, v3, float64(v3)/float64(v2))
	if pieces < len(chunks)/2 || float64(v3) > 0.95*float64(v2) {
		t.Errorf("%d of %d chunks in sse pieces, v3 lines %.3f× the v2 ones: want most, and smaller", pieces, len(chunks), float64(v3)/float64(v2))
	}
}

// TestSSELineReadByOtherTools reads a v3 chunk line with jq and Python, as
// FORMAT.md shows: the events' JSON is there to query, not a string.
func TestSSELineReadByOtherTools(t *testing.T) {
	t.Parallel()
	line := append(chunkLine([]byte(openAIChunk)), '\n')
	for _, tool := range []struct {
		name string
		args []string
	}{
		{"jq", []string{"-r", `.sse[]|objects|.choices[0].delta.content // empty`}},
		{"python3", []string{"-c", `import json,sys
line = json.loads(sys.stdin.readline())
print("\n".join(p["choices"][0]["delta"]["content"] for p in line["sse"] if isinstance(p, dict) and "content" in p["choices"][0]["delta"]))`}},
	} {
		t.Run(tool.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(tool.name); err != nil {
				t.Skipf("%s is not installed: %v", tool.name, err)
			}
			cmd := exec.Command(tool.name, tool.args...)
			cmd.Stdin = bytes.NewReader(line)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tool.name, err, out)
			}
			if got := strings.TrimSuffix(string(out), "\n"); got != ` "quoted" naïve` {
				t.Errorf("%s reads the content as %q from %s", tool.name, got, line)
			}
		})
	}
}

// TestDecodeSSEErrors: a malformed "sse" field is an error naming the file,
// the line and what was expected; an empty array is an empty chunk.
func TestDecodeSSEErrors(t *testing.T) {
	t.Parallel()
	const pre = `{"type":"chunk","ex":1,"side":"upstream","t":1,"off":0,`
	tests := []struct{ field, want string }{
		{`"sse":5`, `x.ndjson:2: decode chunk line: "sse" is a number (5): want an array of strings, objects and arrays`},
		{`"sse":null`, `x.ndjson:2: decode chunk line: "sse" is null: want an array`},
		{`"sse":"data: {}\n\n"`, `x.ndjson:2: decode chunk line: "sse" is a string: want an array`},
		{`"sse":{"a":1}`, `x.ndjson:2: decode chunk line: "sse" is an object: want an array`},
		{`"sse":["a",12]`, `x.ndjson:2: decode chunk line: "sse" piece 2 is a number (12): want a string, an object or an array`},
		{`"sse":[null]`, `x.ndjson:2: decode chunk line: "sse" piece 1 is null: want a string, an object or an array`},
		{`"sse":[{},true]`, `x.ndjson:2: decode chunk line: "sse" piece 2 is a boolean (true): want a string`},
		{`"sse":[{}],"data":"x"`, `x.ndjson:2: decode chunk line: "sse" and one of "data", "data_b64", "ref" set`},
		{`"sse":[{}],"data_b64":"eA=="`, `x.ndjson:2: decode chunk line: "sse" and one of`},
		{`"sse":[{"a":}]`, `x.ndjson:2: malformed line: invalid character '}'`},
		{`"sse":[{}`, `x.ndjson:2: malformed line: invalid character '}' after array element`},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(headerLine+pre+tt.field+"}\n"), "x.ndjson")
		var c *Capture
		if err == nil {
			c, err = Read(strings.NewReader(headerLine+pre+tt.field+"}\n"), "x.ndjson")
			if len(c.Warnings) > 0 {
				err = c.Warnings[0]
			}
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.field, err, tt.want)
		}
	}
	// A reference to upstream bytes is not "sse" either.
	ref := headerLine + pre + `"data":"abc"}` + "\n" + `{"type":"chunk","ex":1,"side":"client","t":1,"off":0,"ref":0,"len":1,"sse":[]}` + "\n"
	if c, err := Read(strings.NewReader(ref), "x.ndjson"); err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Error(), `x.ndjson:3: decode chunk line: "sse" and one of`) {
		t.Errorf("ref and sse: %v %v", err, c.Warnings)
	}
	d := NewDecoder(strings.NewReader(headerLine+pre+`"sse":[ ]}`+"\n"), "x.ndjson")
	d.Next()
	rec, err := d.Next()
	if err != nil || rec.Chunk == nil || len(rec.Chunk.Data) != 0 {
		t.Errorf("empty sse: %+v %v", rec, err)
	}
	if _, err := d.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the chunk: %v", err)
	}
}

// TestSSEHashChecked alters one character of an "sse" piece in the example
// capture: the end line's SHA-256 no longer matches the chunks joined, and
// the reader says so.
func TestSSEHashChecked(t *testing.T) {
	t.Parallel()
	file, err := os.ReadFile("testdata/example.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(file, []byte(`{"content":"Hé"}`), []byte(`{"content":"Hè"}`), 1)
	if bytes.Equal(bad, file) {
		t.Fatal("the example has no sse piece to alter")
	}
	c, err := Read(bytes.NewReader(bad), "x.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Error(), "x.ndjson:11: exchange 1: the client side's 63 bytes (its chunks joined in order) have SHA-256") {
		t.Errorf("warnings %v, want the client side's hash reported wrong on line 11", c.Warnings)
	}
}

// TestFormatDocExample: the example in FORMAT.md is testdata/example.ndjson,
// which TestExampleCapture decodes, so the spec shows what seam writes.
func TestFormatDocExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("testdata/example.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(doc), "\n## Example\n")
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	if block != string(file) {
		t.Errorf("FORMAT.md's example is not testdata/example.ndjson:\n%s", block)
	}
}
