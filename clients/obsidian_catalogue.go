package clients

import (
	"slices"
	"strings"

	"github.com/seam-dev/seam/internal/jsstring"
)

// CatalogueTool is one tool of the catalogue Obsidian Copilot's XML era
// put in its system prompt, the tools the model may call in <use_tool>
// blocks.
type CatalogueTool struct {
	Name string
	// Params names the tool's parameters, in the order they are listed,
	// each once; none when its <parameters> element is empty (the tool
	// takes no parameters).
	Params []string
}

// XMLCatalogue reads the tool catalogue of an Obsidian Copilot prompt
// (docs/PROTOCOLS.md#obsidian-xml):
// <toolName><description>…</description><parameters><p>…</p>…</parameters></toolName>,
// its parameter tags read as parseXMLToolCalls reads a block's. A tool
// without a <parameters> element right after its description is not one.
func XMLCatalogue(s string) []CatalogueTool {
	var out []CatalogueTool
	pos := 0
	for {
		i := strings.Index(s[pos:], "<description>")
		if i < 0 {
			return out
		}
		d := pos + i
		pos = d + len("<description>")
		// The tool's opening tag immediately precedes <description>.
		head := strings.TrimRight(s[:d], " \t\r\n")
		if !strings.HasSuffix(head, ">") {
			continue
		}
		lt := strings.LastIndexByte(head, '<')
		if lt < 0 {
			continue
		}
		name := head[lt+1 : len(head)-1]
		if name == "" || strings.ContainsAny(name, " /<") {
			continue
		}
		de := strings.Index(s[pos:], "</description>")
		if de < 0 {
			return out
		}
		after := strings.TrimLeft(s[pos+de+len("</description>"):], " \t\r\n")
		if !strings.HasPrefix(after, "<parameters>") {
			continue
		}
		pe := strings.Index(after, "</parameters>")
		if pe < 0 {
			continue
		}
		t := CatalogueTool{Name: name}
		forEachPair(after[len("<parameters>"):pe], func(tag, _ string) {
			if p := jsstring.Trim(tag); !slices.Contains(t.Params, p) {
				t.Params = append(t.Params, p)
			}
		})
		out = append(out, t)
	}
}
