package shape

import (
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dev/seam/sse"
)

func TestTextTransforms(t *testing.T) {
	t.Parallel()
	b1 := "<use_tool>\n<name>readNote</name>\n<notePath>a.md</notePath>\n</use_tool>"
	b2 := "<use_tool>\n<name>getFileTree</name>\n</use_tool>"
	for _, tc := range []struct {
		name   string
		deltas []string
		set    map[string]string
		want   string
	}{
		{"legit trailing < is flushed at the end", []string{"if a ", "<"}, nil, "if a <"},
		{"legit < mid-text", []string{"a <", "b> c <u", "se it"}, nil, "a <b> c <use it"},
		{"preamble and block in one delta, tail suppressed", []string{"Pre " + b1 + " tail"}, nil, "Pre " + b1},
		{"preamble and block in one delta, tail kept", []string{"Pre " + b1 + " tail"}, map[string]string{SwSuppressTail: "off"}, "Pre " + b1 + " tail"},
		{"narrative between blocks is kept, tail is not", []string{"A ", b1[:5], b1[5:], " mid ", b2, " tail"}, nil, "A " + b1 + " mid " + b2},
		{"stop after one block", []string{"A ", b1, " mid ", b2, " tail"}, map[string]string{SwStopAfterTools: "1", SwSuppressTail: "off"}, "A " + b1},
		{"unterminated block delivered at the end", []string{"x ", "<use_tool>", "<name>a</name>"}, nil, "x <use_tool><name>a</name>"},
		{"split closer with holdback", []string{"x ", b1[:len(b1)-4], b1[len(b1)-4:]}, nil, "x " + b1},
		{"overlap dedupe: repeated letters", []string{"a", "a", "a", "a", " ", "b", "b", "b", "b"}, map[string]string{SwOverlapDedupe: "on"}, "a b"},
		{"overlap dedupe: cumulative snapshots", []string{"Hel", "Hello", "Hello wor", "Hello world"}, map[string]string{SwOverlapDedupe: "on"}, "Hello world"},
		{"overlap dedupe: <use_tool> split at _to/ol>", []string{"<us", "e", "_to", "ol>"}, map[string]string{SwOverlapDedupe: "on", SwToolBlock: "off", SwHoldback: "off"}, "<use_tol>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := textStream("chatcmpl-t", tc.deltas)
			frames := run(mustEngine(t, ProfileObsidianXML, tc.set), sse.SplitEvents([]byte(body)))
			if got := assemble(t, join(frames)).text[0]; got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			last := string(frames[len(frames)-1])
			if last != "data: [DONE]\n\n" {
				t.Errorf("last frame %q", last)
			}
			if tc.set[SwStopAfterTools] == "1" {
				fin := string(frames[len(frames)-2])
				if !strings.Contains(fin, `"finish_reason":"stop"`) || strings.Count(string(join(frames)), "[DONE]") != 1 {
					t.Errorf("cut did not end the turn cleanly: %q", fin)
				}
			}
		})
	}
}

func TestRenderXML(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, args string
		void       bool
		want       string
	}{
		{"localSearch", `{"query":"weather","salientTerms":["a","b"],"limit":3,"exact":true,"z":null,"o":{"k":1}}`, false,
			"<use_tool>\n<name>localSearch</name>\n<query>weather</query>\n<salientTerms>[\"a\",\"b\"]</salientTerms>\n<limit>3</limit>\n<exact>true</exact>\n<z></z>\n<o>{\"k\":1}</o>\n</use_tool>"},
		{"getFileTree", "{}", false, "<use_tool>\n<name>getFileTree</name>\n</use_tool>"},
		{"getFileTree", " ", false, "<use_tool>\n<name>getFileTree</name>\n</use_tool>"},
		{"getFileTree", "{}", true, "<use_tool>\n<name>getFileTree</name>\n<args>{}</args>\n</use_tool>"},
		{"getFileTree", "", true, ""},
		{"raw", "not json", false, "<use_tool>\n<name>raw</name>\n<args>not json</args>\n</use_tool>"},
		{"arr", "[1,2]", false, "<use_tool>\n<name>arr</name>\n<args>[1,2]</args>\n</use_tool>"},
		{"", "{\"a\":\"x\"}\ufeff", false, "<use_tool>\n<name>tool</name>\n<a>x</a>\n</use_tool>"},
	} {
		if got := string(renderXML(nil, tc.name, tc.args, tc.void)); got != tc.want {
			t.Errorf("renderXML(%q, %q, %v) = %q, want %q", tc.name, tc.args, tc.void, got, tc.want)
		}
	}
}

// TestXMLToolsFromEveryProtocol: structured calls from each upstream protocol
// become one XML block each, in order, and no structured call reaches the
// client.
func TestXMLToolsFromEveryProtocol(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, want string }{
		{"openai-chat-parallel-tool-calls.sse", "<use_tool>\n<name>GetWeatherArgs</name>\n<city>Edinburgh</city>\n<country>GB</country>\n<units>c</units>\n</use_tool>" +
			"<use_tool>\n<name>get_stock_price</name>\n<ticker>AAPL</ticker>\n<exchange>NASDAQ</exchange>\n</use_tool>"},
		{"pydantic-ai-openai-responses-stream.1.sse", "<use_tool>\n<name>get_capital</name>\n<country>France</country>\n</use_tool>"},
		{"anthropic-sdk-tool-use-response.sse", "I'll check the current weather in Paris for you.<use_tool>\n<name>get_weather</name>\n<location>Paris</location>\n</use_tool>"},
	} {
		body := readFile(t, realworld+"/"+tc.file)
		a := assemble(t, join(run(mustEngine(t, ProfileObsidianXML, nil), sse.SplitEvents(body))))
		if a.text[0] != tc.want || len(a.tools) != 0 {
			t.Errorf("%s: got %q %q\nwant %q", tc.file, a.text[0], a.tools, tc.want)
		}
	}
}

// TestLongStreamBoundedMemory: a long answer keeps only a bounded window of
// text per choice, and blocks anywhere in it still come out whole.
func TestLongStreamBoundedMemory(t *testing.T) {
	t.Parallel()
	block := "<use_tool>\n<name>getFileTree</name>\n</use_tool>"
	var deltas []string
	var want strings.Builder
	for i := range 20000 {
		d := "word" + strconv.Itoa(i) + " "
		if i == 10000 {
			d = block
		}
		deltas = append(deltas, d)
		want.WriteString(d)
	}
	e := mustEngine(t, ProfileObsidianXML, map[string]string{SwSuppressTail: "off"})
	frames := run(e, sse.SplitEvents([]byte(textStream("chatcmpl-long", deltas))))
	if got := assemble(t, join(frames)).text[0]; got != want.String() {
		t.Fatalf("assembled text differs (len %d, want %d)", len(got), want.Len())
	}
	if n := e.(*shaper).choices[0].acc.Len(); n > compactAt+compactKeep {
		t.Errorf("choice holds %d bytes of text, want ≤ %d", n, compactAt+compactKeep)
	}
	blocks := 0
	for _, f := range frames {
		if strings.Contains(string(f), "<use_tool>") && strings.Contains(string(f), "</use_tool>") {
			blocks++
		}
	}
	if blocks != 1 {
		t.Errorf("%d frames carry the whole block, want 1", blocks)
	}
}
