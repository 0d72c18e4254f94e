package convert

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/protocol"
)

// TestImportConverseJSONL imports the JSON lines the AWS SDK for
// JavaScript yields (JSON.stringify of each event of response.stream) for
// three real Bedrock ConverseStream bodies (fixtures/round3/README.md):
// each imports as one Bedrock ConverseStream exchange, one CRC-valid
// event-stream message per line named by its union member, and seam
// assembles from it exactly what it assembles from the real body: text,
// tool calls, stop reason and usage.
func TestImportConverseJSONL(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"bedrock-converse-stream-claude3-tool-use",
		"bedrock-converse-stream-nova-guardrail-mask",
		"bedrock-converse-stream-titan-guardrail",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lines, err := os.ReadFile(filepath.Join(round3Dir, name+".sdk-events.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			capt, err := Import(bytes.NewReader(lines), name+".jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if f := capt.Header.Imported.Format; f != "bedrock converse jsonl" {
				t.Errorf("format %q", f)
			}
			x := capt.Exchanges[0]
			if ct := x.Upstream.Response.Headers["content-type"]; len(ct) != 1 || ct[0] != "application/vnd.amazon.eventstream" {
				t.Errorf("content-type %q", ct)
			}
			want := strings.Count(string(lines), "\n")
			if len(x.Upstream.Chunks) != want {
				t.Errorf("%d chunks for %d events", len(x.Upstream.Chunks), want)
			}
			checkFrames(t, x.Upstream.Body(), lines)

			real, err := os.ReadFile(filepath.Join("..", "fixtures", "providers", "bedrock", name+".eventstream"))
			if err != nil {
				t.Fatal(err)
			}
			wire, err := Import(bytes.NewReader(real), name+".eventstream")
			if err != nil {
				t.Fatal(err)
			}
			got := inspect.Inspect(capt, inspect.Options{}).Exchanges[0]
			ref := inspect.Inspect(wire, inspect.Options{}).Exchanges[0]
			if got.Protocol != protocol.BedrockConverse {
				t.Errorf("protocol %q", got.Protocol)
			}
			a, _ := json.Marshal(got.Sides[0].Message)
			b, _ := json.Marshal(ref.Sides[0].Message)
			if !bytes.Equal(a, b) {
				t.Errorf("assembled from the SDK's events:\n%s\nfrom the body Bedrock sent:\n%s", a, b)
			}
			if len(got.Findings) != len(ref.Findings) {
				t.Errorf("findings %+v, from the body Bedrock sent %+v", got.Findings, ref.Findings)
			}
		})
	}
}

// checkFrames checks that body is one CRC-valid event-stream message per
// line of lines, its :event-type the line's member and its payload the
// member's object.
func checkFrames(t *testing.T, body, lines []byte) {
	t.Helper()
	type message struct{ eventType, messageType, payload string }
	var msgs []message
	p := framing.New(framing.EventStream, func(pr framing.Problem) {
		t.Errorf("the body does not decode as event-stream messages: %s at %d", pr.Msg, pr.Off)
	})
	emit := func(f framing.Frame, data []byte) {
		msgs = append(msgs, message{f.Header(":event-type"), f.Header(":message-type"), string(data)})
	}
	p.Feed(body, emit)
	p.Close(emit)
	want := bytes.Split(bytes.TrimSpace(lines), []byte("\n"))
	if len(msgs) != len(want) {
		t.Fatalf("%d messages for %d lines", len(msgs), len(want))
	}
	for i, line := range want {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatal(err)
		}
		for k, v := range obj {
			if m := msgs[i]; m.eventType != k || m.messageType != "event" || m.payload != string(v) {
				t.Errorf("message %d: %+v, want :event-type %s and payload %s", i+1, m, k, v)
			}
		}
	}
}

// TestImportConverseShapes: the same events as boto3 gives them and
// Python's json.dumps writes them (spaces after : and ,), as a JSON array
// written at once, and an exception member, which becomes an exception
// message whose text is the stream's error.
func TestImportConverseShapes(t *testing.T) {
	t.Parallel()
	py := `{"messageStart": {"role": "assistant"}}
{"contentBlockDelta": {"delta": {"text": "Hel"}, "contentBlockIndex": 0}}

{"contentBlockDelta": {"delta": {"text": "lo"}, "contentBlockIndex": 0}}
{"contentBlockStop": {"contentBlockIndex": 0}}
{"messageStop": {"stopReason": "end_turn"}}
{"metadata": {"usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}, "metrics": {"latencyMs": 120}}}
`
	arr := "[" + strings.Join(strings.Fields(strings.ReplaceAll(strings.ReplaceAll(py, ": ", ":"), ", ", ",")), ",") + "]"
	for _, c := range []struct{ name, in, format string }{
		{"python", py, "bedrock converse jsonl"},
		{"array", arr, "bedrock converse json"},
	} {
		capt, err := Import(strings.NewReader(c.in), c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if capt.Header.Imported.Format != c.format {
			t.Errorf("%s: format %q", c.name, capt.Header.Imported.Format)
		}
		m := inspect.Inspect(capt, inspect.Options{}).Exchanges[0].Sides[0].Message
		if m.Text() != "Hello" || m.Choices[0].FinishReason != "end_turn" || m.Usage == nil || m.Usage.Output != 2 {
			t.Errorf("%s: assembled %+v usage %+v", c.name, m.Choices, m.Usage)
		}
	}

	exc := `{"messageStart":{"role":"assistant"}}
{"contentBlockDelta":{"delta":{"text":"Hi"},"contentBlockIndex":0}}
{"throttlingException":{"message":"Too many tokens, please wait before trying again."}}
`
	capt, err := Import(strings.NewReader(exc), "exc.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var hs []string
	p := framing.New(framing.EventStream, nil)
	p.Feed(capt.Exchanges[0].Upstream.Body(), func(f framing.Frame, _ []byte) {
		if v := f.Header(":exception-type"); v != "" {
			hs = append(hs, v+"/"+f.Header(":message-type"))
		}
	})
	if len(hs) != 1 || hs[0] != "throttlingException/exception" {
		t.Errorf("exception headers %q", hs)
	}
	m := inspect.Inspect(capt, inspect.Options{}).Exchanges[0].Sides[0].Message
	if !strings.Contains(m.Error, "Too many tokens") {
		t.Errorf("stream error %q, want the exception's message", m.Error)
	}
}

// TestImportConverseRefuses: a file that starts as SDK-level events and
// then holds something else is refused at the line that is not one.
func TestImportConverseRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, reason string }{
		{"{\"messageStart\":{\"role\":\"assistant\"}}\n{\"foo\":{}}\n", "r.jsonl:2: not a ConverseStream event"},
		{"{\"messageStart\":{\"role\":\"assistant\"}}\n{\"messageStop\":{},\"metadata\":{}}\n", "r.jsonl:2: not a ConverseStream event"},
		{"{\"messageStart\":{\"role\":\"assistant\"}}\n{\"messageStop\":\n", "r.jsonl:2: not JSON"},
		{`[{"messageStart":{"role":"assistant"}},3]`, "element 2 is not a ConverseStream event"},
	} {
		_, err := Import(strings.NewReader(c.in), "r.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("Import(%q) = %v, want %q", c.in, err, c.reason)
		}
	}
}
