package clients

import (
	"encoding/json"
	"regexp"
	"testing"
)

// TestObsidianTable reproduces, case by case, what Obsidian Copilot's
// parser and view make of the XML (docs/PROTOCOLS.md#obsidian-xml).
func TestObsidianTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		calls    string // JSON of [{name,args}]
		strip    string
	}{
		{"args-void", `<use_tool><name>getFileTree</name><args>{}</args></use_tool>`, `[{"name":"getFileTree","args":{"args":{}}}]`, ""},
		{"args-nested", `<use_tool><name>localSearch</name><args>{"query":"x","salientTerms":["x"]}</args></use_tool>`,
			`[{"name":"localSearch","args":{"args":{"query":"x","salientTerms":["x"]}}}]`, ""},
		{"no-params", "<use_tool>\n<name>getFileTree</name>\n</use_tool>", `[{"name":"getFileTree","args":{}}]`, ""},
		{"merged", "A\n<use_tool><name>getFileTree</name></use_tool<use_tool><name>localSearch</name><query>q</query></use_tool>\nB",
			`[{"name":"getFileTree","args":{"name":"localSearch","query":"q"}}]`, "A\n\nB"},
		{"trailing-text", "<use_tool><name>getFileTree</name></use_tool>\nfinal answer text", `[{"name":"getFileTree","args":{}}]`, "final answer text"},
		{"unclosed", `<use_tool><name>writeToFile</name><path>a.md</path><content>hello`, `[{"name":"writeToFile","args":{"path":"a.md"}}]`, ""},
		{"unclosed-after", "Before <use_tool><name>localSearch</name><query>q</query>\n\nAfter text", `[{"name":"localSearch","args":{"query":"q"}}]`, "Before"},
		{"blank-name", `<use_tool><name>  </name></use_tool>`, `null`, ""},
		{"fenced", "```xml\n<use_tool><name>getFileTree</name></use_tool>\n```", `[{"name":"getFileTree","args":{}}]`, ""},
		{"entities", `<use_tool><name>s</name><q>&lt;b&gt;</q><c><![CDATA[<b>x</b>]]></c></use_tool>`, `[{"name":"s","args":{"c":{"b":"x"},"q":"\u0026lt;b\u0026gt;"}}]`, ""},
		{"scalars", `<use_tool><name>s</name><n>5</n><salientTerms></salientTerms><items><item>a</item><item>[1]</item></items></use_tool>`,
			`[{"name":"s","args":{"items":["a",[1]],"n":"5","salientTerms":[]}}]`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			type nc struct {
				Name string         `json:"name"`
				Args map[string]any `json:"args"`
			}
			var got []nc
			for _, c := range ParseXMLToolCalls(tc.in) {
				got = append(got, nc{c.Name, c.Args})
			}
			b, _ := json.Marshal(got)
			if string(b) != tc.calls {
				t.Errorf("calls = %s, want %s", b, tc.calls)
			}
			if s := StripToolCallXML(tc.in); s != tc.strip {
				t.Errorf("strip = %q, want %q", s, tc.strip)
			}
		})
	}
}

// TestRemoveCompleteBlocksMatchesRegexp checks the hand-written block
// removal against the regexp it replaced.
func TestRemoveCompleteBlocksMatchesRegexp(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`(?s)<use_tool>.*?</use_tool>`)
	for _, in := range []string{
		"", "plain", "<use_tool>", "</use_tool>", "<use_tool></use_tool>", "a<use_tool>b</use_tool>c",
		"a<use_tool>b</use_tool>c<use_tool>d</use_tool>e", "<use_tool>a<use_tool>b</use_tool>c</use_tool>d",
		"x<use_tool>open only", "</use_tool><use_tool>y</use_tool>", "<use_tool>\n<name>f</name>\n</use_tool>\n\ntail<use_tool>",
		"<use_tool><use_tool></use_tool></use_tool>", "<use_tool</use_tool><use_tool>z</use_tool>",
	} {
		if got, want := removeCompleteBlocks(in), re.ReplaceAllString(in, ""); got != want {
			t.Errorf("removeCompleteBlocks(%q) = %q, regexp gives %q", in, got, want)
		}
	}
}

// TestXMLCatalogue reads the tools of an Obsidian prompt's catalogue: a
// tool is the tag right before a <description> followed by <parameters>;
// its parameters are the tags in <parameters>, trimmed, each once; a tag
// without parameters, or a description elsewhere in the prose, is no tool.
func TestXMLCatalogue(t *testing.T) {
	t.Parallel()
	prompt := "You can use tools.\n<getFileTree>\n<description>List files</description>\n<parameters></parameters>\n</getFileTree>\n" +
		"<writeToFile><description>Write</description> <parameters><path>p</path><content>c</content><path>again</path></parameters></writeToFile>\n" +
		"<note><description>no parameters element</description></note> and a <description>stray</description> in the prose."
	got := XMLCatalogue(prompt)
	want := []CatalogueTool{{Name: "getFileTree"}, {Name: "writeToFile", Params: []string{"path", "content"}}}
	b, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(b) != string(w) {
		t.Errorf("catalogue %s, want %s", b, w)
	}
}
