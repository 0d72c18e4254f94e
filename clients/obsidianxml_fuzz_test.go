package clients

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParseXMLToolCalls: the Obsidian XML parser never panics on any text,
// is deterministic, finds nothing without an opener, and reports blocks as
// ordered, non-overlapping byte ranges of the text that start with the
// opener. The chat view's strip never lengthens the text and, short of
// fences, leaves nothing of a block.
func FuzzParseXMLToolCalls(f *testing.F) {
	for _, s := range []string{
		"<use_tool>\n<name>getFileTree</name>\n</use_tool>",
		"<use_tool><name>writeToFile</name><path>a.md</path><content># x</content></use_tool<use_tool><name>x</name></use_tool>",
		"<use_tool><name>t</name><args>{}</args>",
		"text <use_tool><name></name></use_tool> tail",
		"<use_tool><name>q</name><items>[\"a\", \"b\"]</items><n><![CDATA[<x>]]></n></use_tool>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		calls := ParseXMLToolCalls(text)
		if !reflect.DeepEqual(calls, ParseXMLToolCalls(text)) {
			t.Fatal("not deterministic")
		}
		if !strings.Contains(text, XMLOpen) && len(calls) > 0 {
			t.Fatalf("%d calls without an opener", len(calls))
		}
		prev := 0 // the previous block's end: blocks never overlap
		for _, c := range calls {
			if c.Start < prev || c.End < c.Start || c.End > len(text) || !strings.HasPrefix(text[c.Start:], XMLOpen) {
				t.Fatalf("bad range %d-%d (previous end %d) in %q", c.Start, c.End, prev, text)
			}
			if c.Name == "" {
				t.Fatalf("a call without a name")
			}
			prev = c.End
		}
		shown := StripToolCallXML(text)
		if len(shown) > len(text) {
			t.Fatalf("stripping made the text longer: %d > %d bytes", len(shown), len(text))
		}
		if !strings.Contains(text, "`") {
			// Without fences (whose removal can join the pieces of a new
			// tag, as Obsidian's regexps would), nothing of a block is
			// left: no complete block and no opener, and stripping again
			// changes nothing.
			if strings.Contains(shown, XMLOpen) {
				t.Fatalf("%q still holds %q after stripping %q", shown, XMLOpen, text)
			}
			if again := StripToolCallXML(shown); again != shown {
				t.Fatalf("stripping is not idempotent: %q then %q", shown, again)
			}
		}
	})
}
