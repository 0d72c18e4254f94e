package inspect

import (
	"bytes"
	"testing"

	"github.com/seam-dev/seam/tape"
)

func TestImportCassetteBodiesMatchExtractedSSE(t *testing.T) {
	t.Parallel()
	c, err := Import(bytes.NewReader(readTestdata(t, "pydantic-ai-openai-responses-stream.yaml")), "cassette")
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
	c, err := Import(bytes.NewReader(readTestdata(t, "vercel-anthropic-tool-no-args.chunks.jsonl")), "vercel")
	if err != nil {
		t.Fatal(err)
	}
	r := Inspect(c, Options{})
	m := r.Exchanges[0].Sides[0].Message
	checkMessage(t, m, manifestCase{protocol: Anthropic, finish: "tool_use", text: "I'll update the issue list for you.",
		tools: []ToolCall{{Index: 1, ID: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", Name: "updateIssueList", Arguments: "{}"}}})
	if m.ID != "msg_01GE2RKp1VYsPzdFs3sS9z5S" || m.Usage.Output != 48 {
		t.Errorf("id %s usage %+v", m.ID, m.Usage)
	}
}

func TestImportSnapshotJSON(t *testing.T) {
	t.Parallel()
	c, err := Import(bytes.NewReader(readTestdata(t, "codex-obsidian-responses-stream-tool.json")), "snap")
	if err != nil {
		t.Fatal(err)
	}
	r := Inspect(c, Options{})
	x := r.Exchanges[0]
	if x.Protocol != Responses || x.Events == 0 {
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

// TestRealWorldStreamsHaveNoErrors checks that every clean real-world
// stream inspects without error findings (issue 4, point 3).
func TestRealWorldStreamsHaveNoErrors(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"openai-chat-parallel-tool-calls.sse", "openai-chat-n3-choices.sse", "openai-chat-finish-length.sse",
		"openai-chat-long-text.sse", "openai-chat-refusal.sse", "pydantic-ai-openai-responses-stream.1.sse",
		"pydantic-ai-openai-responses-streaming-usage.sse", "anthropic-sdk-basic-response.sse",
		"anthropic-sdk-tool-use-response.sse", "anthropic-sdk-incomplete-partial-json-response.sse",
		"pydantic-ai-openai-responses-streaming-usage.yaml",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := Import(bytes.NewReader(readTestdata(t, name)), name)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range Inspect(c, Options{}).Exchanges {
				for _, f := range x.Findings {
					if f.Severity == Error {
						t.Errorf("%s: %s", f.ID, f.Message)
					}
				}
			}
		})
	}
}

var _ = tape.Client
