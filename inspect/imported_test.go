package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/protocol"
)

func TestImportCassetteBodiesMatchExtractedSSE(t *testing.T) {
	t.Parallel()
	c, err := convert.Import(bytes.NewReader(readTestdata(t, "pydantic-ai-openai-responses-stream.yaml")), "cassette")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 2 {
		t.Fatalf("%d exchanges", len(c.Exchanges))
	}
	for i, name := range []string{"pydantic-ai-openai-responses-stream.1.sse", "pydantic-ai-openai-responses-stream.2.sse"} {
		x := c.Exchanges[i]
		if got, want := x.Upstream.Body(), readTestdata(t, name); !bytes.Equal(got, want) {
			t.Errorf("interaction %d body differs from %s (%d vs %d bytes)", i+1, name, len(got), len(want))
		}
		if x.Request == nil || x.Request.URL != "/v1/responses" || x.Request.Method != "POST" {
			t.Errorf("request = %+v", x.Request)
		}
	}
	r := Inspect(c, Options{})
	if got := r.Exchanges[1].Sides[0].Message.Text(); got != "The capital of France is Paris." {
		t.Errorf("text = %q", got)
	}
	for _, x := range r.Exchanges {
		for _, f := range x.Findings {
			if f.Severity == Error {
				t.Errorf("error finding on a clean cassette: %+v", f)
			}
		}
	}
}

func TestImportJSONLVercelToolNoArgs(t *testing.T) {
	t.Parallel()
	c, err := convert.Import(bytes.NewReader(readTestdata(t, "vercel-anthropic-tool-no-args.chunks.jsonl")), "vercel")
	if err != nil {
		t.Fatal(err)
	}
	r := Inspect(c, Options{})
	m := r.Exchanges[0].Sides[0].Message
	want := protocol.Choice{Index: 0, Role: "assistant", Text: "I'll update the issue list for you.", FinishReason: "tool_use",
		ToolCalls: []protocol.ToolCall{{Index: 1, ID: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", Name: "updateIssueList", Arguments: "{}"}}}
	if m.Protocol != protocol.Anthropic || len(m.Choices) != 1 {
		t.Fatalf("protocol %s, %d choices", m.Protocol, len(m.Choices))
	}
	got := m.Choices[0]
	got.Spans = nil
	got.FinishBorn = protocol.Born{}
	for i := range got.ToolCalls {
		got.ToolCalls[i] = withoutBorn(got.ToolCalls[i])
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("choice = %+v\nwant %+v", got, want)
	}
	if m.ID != "msg_01GE2RKp1VYsPzdFs3sS9z5S" || m.Usage.Output != 48 {
		t.Errorf("id %s usage %+v", m.ID, m.Usage)
	}
}

func TestImportSnapshotJSON(t *testing.T) {
	t.Parallel()
	c, err := convert.Import(bytes.NewReader(readTestdata(t, "codex-obsidian-responses-stream-tool.json")), "snap")
	if err != nil {
		t.Fatal(err)
	}
	r := Inspect(c, Options{})
	x := r.Exchanges[0]
	if x.Protocol != protocol.Responses || x.Events == 0 {
		t.Fatalf("protocol %s events %d", x.Protocol, x.Events)
	}
	found := false
	for _, f := range x.Findings {
		if f.ID == "responses.nonstandard-shape" {
			found = true
		}
	}
	if !found {
		t.Errorf("the proxy's tool_use content part is not reported: %+v", x.Findings)
	}
}

// TestImportSSELineEndings: a raw SSE body imports as one chunk per event
// whatever its line endings (LF, CRLF or CR), keeping every byte, and
// assembles to the same message.
func TestImportSSELineEndings(t *testing.T) {
	t.Parallel()
	lf := cc(chatRole) + cc(`{"content":"Hel"}`) + ccf(`{"content":"lo"}`, "stop") + done
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		t.Run(strconv.Quote(eol), func(t *testing.T) {
			t.Parallel()
			body := strings.ReplaceAll(lf, "\n", eol)
			c, err := convert.Import(strings.NewReader(body), "body.sse")
			if err != nil {
				t.Fatal(err)
			}
			x := c.Exchanges[0]
			if got := string(x.Upstream.Body()); got != body {
				t.Fatalf("body changed: %q", got)
			}
			if n := len(x.Upstream.Chunks); n != 4 {
				t.Errorf("%d chunks, want one per event (4)", n)
			}
			for i, ch := range x.Upstream.Chunks {
				if !strings.HasSuffix(string(ch.Data), eol+eol) {
					t.Errorf("chunk %d does not end at a blank line: %q", i, ch.Data)
				}
			}
			m := Inspect(c, Options{}).Exchanges[0].Sides[0].Message
			if m.Text() != "Hello" || m.Status != "done" {
				t.Errorf("text %q status %q", m.Text(), m.Status)
			}
		})
	}
}

// TestRealWorldStreamsHaveNoErrors checks that every clean real-world
// stream imports as one exchange per interaction, assembles in its protocol
// to a non-empty message that equals assembling the raw stream directly,
// and inspects without error findings (issue 4, point 3).
func TestRealWorldStreamsHaveNoErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		protocol protocol.Protocol
		// direct names the raw stream of each interaction.
		direct []string
	}{
		{"openai-chat-parallel-tool-calls.sse", protocol.Chat, nil},
		{"openai-chat-n3-choices.sse", protocol.Chat, nil},
		{"openai-chat-finish-length.sse", protocol.Chat, nil},
		{"openai-chat-long-text.sse", protocol.Chat, nil},
		{"openai-chat-refusal.sse", protocol.Chat, nil},
		{"pydantic-ai-openai-responses-stream.1.sse", protocol.Responses, nil},
		{"pydantic-ai-openai-responses-streaming-usage.sse", protocol.Responses, nil},
		{"anthropic-sdk-basic-response.sse", protocol.Anthropic, nil},
		{"anthropic-sdk-tool-use-response.sse", protocol.Anthropic, nil},
		{"anthropic-sdk-incomplete-partial-json-response.sse", protocol.Anthropic, nil},
		{"pydantic-ai-openai-responses-streaming-usage.yaml", protocol.Responses, []string{"pydantic-ai-openai-responses-streaming-usage.sse"}},
		{"pydantic-ai-openai-responses-stream.yaml", protocol.Responses, []string{"pydantic-ai-openai-responses-stream.1.sse", "pydantic-ai-openai-responses-stream.2.sse"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			direct := c.direct
			if direct == nil {
				direct = []string{c.name}
			}
			capture, err := convert.Import(bytes.NewReader(readTestdata(t, c.name)), c.name)
			if err != nil {
				t.Fatal(err)
			}
			r := Inspect(capture, Options{})
			if len(r.Exchanges) != len(direct) {
				t.Fatalf("%d exchanges, want %d", len(r.Exchanges), len(direct))
			}
			for i, x := range r.Exchanges {
				if x.Protocol != c.protocol || len(x.Sides) != 1 {
					t.Fatalf("exchange %d: protocol %s with %d sides, want %s on one side", x.Ex, x.Protocol, len(x.Sides), c.protocol)
				}
				m := x.Sides[0].Message
				if len(m.Choices) == 0 {
					t.Fatalf("exchange %d: no choices", x.Ex)
				}
				if ch := m.Choices[0]; ch.Text == "" && ch.Refusal == "" && len(ch.ToolCalls) == 0 {
					t.Errorf("exchange %d: no text, refusal or tool calls", x.Ex)
				}
				a, _ := assembleFile(t, direct[i], 0)
				got, _ := json.Marshal(m)
				want, _ := json.Marshal(&a.Message)
				if !bytes.Equal(got, want) {
					t.Errorf("exchange %d differs from assembling %s directly:\n got %s\nwant %s", x.Ex, direct[i], got, want)
				}
				for _, f := range x.Findings {
					if f.Severity == Error {
						t.Errorf("%s: %s", f.ID, f.Message)
					}
				}
			}
		})
	}
}

// TestWriteTextSaysEncodingFramingModel: the text report names a side's
// Content-Encoding with its decoded size, a framing other than SSE, and
// the model a Bedrock request names only in its path.
func TestWriteTextSaysEncodingFramingModel(t *testing.T) {
	t.Parallel()
	b0, err := os.ReadFile(filepath.Join("..", "fixtures", "providers", "bedrock", "bedrock-invoke-stream-claude3-tool-use.nock.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := convert.Import(bytes.NewReader(b0), "bedrock-invoke-stream-claude3-tool-use.nock.json")
	if err != nil {
		t.Fatal(err)
	}
	r := Inspect(c, Options{})
	var b bytes.Buffer
	if err := WriteText(&b, r, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"model anthropic.claude-3-sonnet-20240229-v1:0", "bytes, eventstream, complete"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
	body := chatText("Hello")
	gz := exInput{ce: "gzip", client: gzipped(body)}
	b.Reset()
	if err := WriteText(&b, Inspect(gz.capture(), Options{}), false); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(" bytes gzip (%d decoded), complete", len(body)); !strings.Contains(b.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, b.String())
	}
}
