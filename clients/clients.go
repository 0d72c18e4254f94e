package clients

import (
	"github.com/seam-dev/seam/protocol"
)

// Client names, as Result.Client gives them.
const (
	// Spec is the protocol's own assembly rules, the baseline.
	Spec = "spec"
	// VSCode is VS Code Copilot Chat.
	VSCode = "vscode"
	// Obsidian is Obsidian Copilot in its XML era (3.0–3.1).
	Obsidian = "obsidian"
	// OpenAINode and OpenAIPython are the OpenAI SDKs (openai for Node,
	// openai for Python).
	OpenAINode   = "openai-node"
	OpenAIPython = "openai-python"
	// AnthropicTS and AnthropicPython are the Anthropic SDKs
	// (@anthropic-ai/sdk for TypeScript, anthropic for Python).
	AnthropicTS     = "anthropic-ts"
	AnthropicPython = "anthropic-python"
)

// All lists every emulated client, in report order. Spec is the
// protocol's own assembly rules, the baseline. An exchange is read only by
// the clients that speak its protocol (For).
func All() []string {
	return []string{Spec, VSCode, Obsidian, OpenAINode, OpenAIPython, AnthropicTS, AnthropicPython}
}

// For lists the clients that read a stream of protocol p, in report
// order: the OpenAI SDKs read Chat Completions and Responses, the Anthropic
// SDKs read Messages, VS Code Copilot Chat and Obsidian Copilot read all
// three (Obsidian through the vendor SDK). A protocol seam does not
// assemble has only the spec reading.
func For(p protocol.Protocol) []string {
	switch p {
	case protocol.Chat, protocol.Responses:
		return []string{Spec, VSCode, Obsidian, OpenAINode, OpenAIPython}
	case protocol.Anthropic:
		return []string{Spec, VSCode, Obsidian, AnthropicTS, AnthropicPython}
	}
	return []string{Spec}
}

// Result is what one client ends up with after reading a stream.
type Result struct {
	Client string `json:"client"`
	// Rule summarises the assembly rule the emulator follows.
	Rule         string              `json:"rule"`
	Text         string              `json:"text"`
	Reasoning    string              `json:"reasoning,omitempty"`
	Refusal      string              `json:"refusal,omitempty"`
	ToolCalls    []protocol.ToolCall `json:"tool_calls,omitempty"`
	FinishReason string              `json:"finish_reason,omitempty"`
	// Error is what the client reports instead of (or besides) a result.
	Error string `json:"error,omitempty"`
	// XMLCalls and Display are set for Obsidian: the calls parseXMLToolCalls
	// reads from the text, and the text the chat view shows.
	XMLCalls []XMLToolCall `json:"xml_calls,omitempty"`
	Display  *string       `json:"display,omitempty"`
}

// Emulate runs every client that reads protocol m.Protocol (For) over one
// side of an exchange: se, its parsed events (nil reads as none), m, what
// the protocol's rules assemble them to (the Spec result), and stream,
// whether the body was a stream (a non-stream body is read as is by
// every client). The results are in For's order; a protocol the emulated
// clients do not speak has the Spec result alone.
func Emulate(se *protocol.Side, m *protocol.Message, stream bool) []Result {
	spec := Result{Client: Spec, Rule: m.Protocol.Rule(), Error: m.Error}
	if len(m.Choices) > 0 {
		c := m.Choices[0]
		spec.Text, spec.Reasoning, spec.Refusal, spec.ToolCalls, spec.FinishReason = c.Text, c.Reasoning, c.Refusal, c.ToolCalls, c.FinishReason
	}
	out := []Result{spec}
	switch m.Protocol {
	case protocol.Gemini, protocol.BedrockConverse, protocol.BedrockInvoke, protocol.Cohere, protocol.Ollama:
		// The emulated clients speak the OpenAI and Anthropic APIs only:
		// this protocol's answer is what its own SDK makes of it (spec).
		return out
	}
	if !stream {
		for _, name := range For(m.Protocol)[1:] {
			r := spec
			r.Client, r.Rule = name, "non-stream body: read as is"
			if name == Obsidian {
				r = obsidianResult(r.Text, spec)
			}
			out = append(out, r)
		}
		return out
	}
	if se == nil {
		se = &protocol.Side{}
	}
	return emulateStream(out, m.Protocol, se, spec)
}

// emulateStream appends to out the results of the clients of protocol p
// after Spec over a stream. Spec-following SDK parsers discard an
// unterminated last event: they read the first n events only.
func emulateStream(out []Result, p protocol.Protocol, se *protocol.Side, spec Result) []Result {
	n := len(se.Events)
	if n > 0 && !se.Events[n-1].Terminated {
		n--
	}
	switch p {
	case protocol.Chat:
		node := nodeChat(se, n)
		return append(out, vscodeChat(se), obsidianResult(node.Text, spec), node, pythonChat(se, n))
	case protocol.Responses:
		objs := se.ObjEvents()
		vs := vscodeResponses(se.Events, objs)
		node := sdkResponses(OpenAINode, se.Events[:n], objs[:n])
		py := sdkResponses(OpenAIPython, se.Events[:n], objs[:n])
		return append(out, vs, obsidianResult(spec.Text, spec), node, py)
	case protocol.Anthropic:
		objs := se.ObjEvents()
		vs := vscodeAnthropic(se.Events, objs)
		ts := sdkAnthropic(AnthropicTS, se.Events[:n], objs[:n])
		py := ts
		py.Client = AnthropicPython
		return append(out, vs, obsidianResult(spec.Text, spec), ts, py)
	}
	return out
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
