package shape

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/internal/goldenfile"
	"github.com/tidwall/gjson"
)

// incidentDir is where the incident fixtures live, relative to this package.
const incidentDir = "../fixtures/incident"

// jstr encodes s as a JSON string without HTML escaping.
func jstr(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// chatFixture writes Chat Completions chunks with a fixed id, time and model.
type chatFixture struct {
	id, model string
	b         strings.Builder
}

func (c *chatFixture) chunk(delta, finish string) {
	c.b.WriteString(`data: {"id":` + jstr(c.id) + `,"object":"chat.completion.chunk","created":1763337600,"model":` + jstr(c.model) +
		`,"choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}` + "\n\n")
}

func (c *chatFixture) role()                { c.chunk(`{"role":"assistant","content":""}`, "null") }
func (c *chatFixture) text(s string)        { c.chunk(`{"content":`+jstr(s)+`}`, "null") }
func (c *chatFixture) finish(reason string) { c.chunk(`{}`, jstr(reason)) }
func (c *chatFixture) done() string         { c.b.WriteString("data: [DONE]\n\n"); return c.b.String() }

func textStream(id string, deltas []string) string {
	c := &chatFixture{id: id, model: "gpt-5-codex"}
	c.role()
	for _, d := range deltas {
		c.text(d)
	}
	c.finish("stop")
	return c.done()
}

// incidentDeltas reads the 282 typed agent_message_delta strings of the
// codex proto log, in order (each delta is also present as an
// agent_message_content_delta and twice as a bare {"delta"} echo; only the
// typed agent_message_delta records are used).
func incidentDeltas(t testing.TB) []string {
	t.Helper()
	f, err := os.Open(realworld + "/codex-proto-upstream-use-tool.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if gjson.Get(line, "type").Str == "agent_message_delta" {
			out = append(out, gjson.Get(line, "delta").Str)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// fixtureBodies builds every upstream stream of fixtures/incident.
func fixtureBodies(t testing.TB) map[string]string {
	m := map[string]string{}
	m["codex-use-tool.upstream.sse"] = textStream("chatcmpl-HevrLsVQESL3K1M3_3dHi", incidentDeltas(t))
	m["class-c-overlap.upstream.sse"] = textStream("chatcmpl-class-c-overlap", []string{
		"Forecast from ", "www.time", "and", "date", ".com", " for Ten", "nessee", ".",
	})
	m["class-g-tail.upstream.sse"] = textStream("chatcmpl-class-g-tail", []string{
		"I'll list your vault.\n\n", "<", "use", "_tool", ">\n<", "name", ">", "getFileTree", "</", "name", ">\n", "</", "use", "_tool", ">",
		"\n\nCalling getFileTree", " now…",
	})
	c := &chatFixture{id: "chatcmpl-class-p-void-tool", model: "gpt-5-codex"}
	c.role()
	c.chunk(`{"tool_calls":[{"index":0,"id":"call_void1","type":"function","function":{"name":"getFileTree","arguments":""}}]}`, "null")
	c.chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}`, "null")
	c.finish("tool_calls")
	m["class-p-void-tool.upstream.sse"] = c.done()
	c = &chatFixture{id: "chatcmpl-class-f-cumulative", model: "gpt-5-codex"}
	c.role()
	c.chunk(`{"tool_calls":[{"index":0,"id":"call_f1","type":"function","function":{"name":"readNote","arguments":""}}]}`, "null")
	for _, a := range []string{`{"notePath"`, `: "Weather`, `.md"}`} {
		c.chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+jstr(a)+`}}]}`, "null")
	}
	c.finish("tool_calls")
	m["class-f-cumulative-args.upstream.sse"] = c.done()
	return m
}

// TestFixturesUpToDate checks fixtures/incident against the generator
// (SEAM_GEN=1 regenerates them).
func TestFixturesUpToDate(t *testing.T) {
	t.Parallel()
	for name, body := range fixtureBodies(t) {
		goldenfile.Check(t, filepath.Join(incidentDir, name), []byte(body), "SEAM_GEN=1 go test ./shape -run TestFixturesUpToDate")
	}
}

func TestIncidentDeltas(t *testing.T) {
	t.Parallel()
	d := incidentDeltas(t)
	if len(d) != 282 {
		t.Fatalf("got %d deltas, want 282", len(d))
	}
	all := strings.Join(d, "")
	if len(all) != 916 || len([]rune(all)) != 904 {
		t.Errorf("assembled %d bytes / %d runes, want 916 / 904", len(all), len([]rune(all)))
	}
	if got := strings.Join(d[14:18], "|"); got != "<|use|_tool|>\n" {
		t.Errorf("opener split as %q", got)
	}
}
