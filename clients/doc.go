// Package clients emulates what real clients end up with when they read a
// stream: VS Code Copilot Chat's Chat Completions, Responses and Messages
// processors, Obsidian Copilot's XML era (its <use_tool> parser
// ParseXMLToolCalls, its view StripToolCallXML and the tool catalogue of
// its prompt, XMLCatalogue), openai-node, openai-python and the Anthropic
// SDKs, each as the released code reads the bytes (docs/PROTOCOLS.md),
// beside the protocol's own rules (Spec).
//
// Emulate takes one side already parsed and assembled by package
// protocol and returns each client's Result: text, reasoning, refusal,
// tool calls, finish reason and the error it reports. It judges nothing:
// comparing the clients (where they disagree) and reporting findings is
// package inspect's.
package clients
