// Package inspect turns a capture into an answer: it has each side's chunks
// parsed and assembled by package protocol (events mapped back to chunk,
// byte offset and time; one assembly per provider protocol), emulates what
// real clients end up with (VS Code Copilot Chat, Obsidian Copilot's XML
// era, openai-node, openai-python), diffs streamed against final and
// upstream against client, and runs a registry of detectors. It returns data; WriteText and
// WriteJSON render it to an io.Writer.
//
// # JSON schema (version 1, SchemaVersion)
//
// WriteJSON emits one object:
//
//	{ "schema": 1, "capture": name, "warnings": [string],
//	  "exchanges": [ {
//	    "ex", "method", "url", "endpoint", "model", "protocol",
//	    "status", "outcome", "ttfb_ns", "duration_ns", "events",
//	    "sides": [ { "side", "status", "outcome", "error", "bytes", "chunks",
//	                 "events", "comments", "ttfb_ns", "duration_ns", "stream",
//	                 "message": Message } ],
//	    "clients": [ { "client", "rule", "text", "reasoning", "refusal",
//	                   "tool_calls": [ToolCall], "finish_reason", "error",
//	                   "xml_calls": [{ "name", "args", "start", "end", "closed" }],
//	                   "display" } ],
//	    "disagreements": [ { "field", "values": [ { "client", "value" } ] } ],
//	    "findings": [ { "id", "severity": "info"|"warn"|"error", "message",
//	                    "at": Pointer, "evidence" } ],
//	    "diffs": [ { "kind", "a", "b", "equal",
//	                 "hunks": [ { "a_off", "b_off", "at": Pointer,
//	                              "lines": [ { "op": " "|"-"|"+", "text" } ] } ] } ],
//	    "notes": [string] } ] }
//
//	Message  = { "protocol", "id", "model", "choices": [ { "index", "role", "text",
//	             "reasoning", "refusal", "tool_calls": [ToolCall], "finish_reason" } ],
//	             "usage": { "input", "output", "total", "reasoning", "cache_read",
//	             "cache_creation" }, "status", "error", "final": Message }
//	ToolCall = { "index", "id", "name", "arguments" }
//	Pointer  = { "ex", "side", "event", "chunk", "off", "t" }  (-1 when not applicable)
//
// Fields are only added in later versions, never renamed or removed, within
// one schema number. Findings are sorted by severity (error first), then
// side, then event.
//
// # Decisions
//
//   - A finding on assembled text points at the event after which the text
//     first contains the offending bytes (the event adding its last byte).
//   - Unterminated last events are assembled by package protocol (they show
//     intent) and reported; the SDK emulators drop them as those clients do.
//   - Diffs strip the common prefix and suffix before semantic cleanup, so
//     a hunk starts at the first byte where the texts really differ.
//   - Each event payload is decoded once per side (package protocol); the
//     assembler, the client emulators and the detectors share the decoded
//     records, and text is joined in builders, so the cost stays linear in
//     the capture size.
//   - Import of JSONL names each event by its payload "type", restoring the
//     event: lines the Anthropic and Responses wire formats carry.
package inspect
