package clients

import "github.com/seam-dev/seam/protocol"

// obsidianResult emulates Obsidian Copilot's XML era (3.0.0–3.1.5,
// docs/PROTOCOLS.md#obsidian-xml): the text is the openai-node/LangChain
// concatenation of choices[0] content; tool calls come only from
// parseXMLToolCalls over that text (structured tool calls are ignored); the
// view shows stripToolCallXML of it.
func obsidianResult(text string, spec Result) Result {
	r := Result{Client: Obsidian, Rule: "Obsidian Copilot 3.0–3.1: tool calls parsed from <use_tool> XML in the text (parseXMLToolCalls), the view strips that XML; structured tool calls ignored",
		Text: text, FinishReason: spec.FinishReason, Error: spec.Error}
	if spec.Reasoning != "" {
		r.Text = "\n<think>" + spec.Reasoning + "</think>" + text
	}
	r.XMLCalls = ParseXMLToolCalls(r.Text)
	d := StripToolCallXML(r.Text)
	r.Display = &d
	for _, c := range r.XMLCalls {
		r.ToolCalls = append(r.ToolCalls, protocol.ToolCall{Index: len(r.ToolCalls), Name: c.Name, Arguments: c.Arguments()})
	}
	return r
}
