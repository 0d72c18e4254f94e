// Package inspect turns a capture into an answer: it has each side's chunks
// parsed and assembled by package protocol (events mapped back to chunk,
// byte offset and time; one assembly per provider protocol), has package
// clients emulate what real clients end up with (VS Code Copilot Chat,
// Obsidian Copilot's XML era, openai-node, openai-python, the Anthropic
// SDKs: each exchange by the clients that read its protocol) and says
// where they disagree, diffs streamed against final and upstream against
// client, links each exchange into its session (package session), and
// runs a registry of detectors. It returns data; WriteJSON renders it as
// the JSON below, package textreport as terminal text.
//
// # JSON schema (version 1, SchemaVersion)
//
// WriteJSON emits one object:
//
//	{ "schema": 1, "capture": name, "warnings": [string],
//	  "exchanges": [ {
//	    "ex", "method", "url", "endpoint", "model", "protocol",
//	    "status", "outcome", "error", "ttfb_ns", "duration_ns", "events",
//	    "metrics": Metrics, "session": SessionRef,
//	    "sides": [ { "side", "status", "outcome", "error", "bytes", "chunks",
//	                 "events", "comments", "ttfb_ns", "duration_ns", "stream",
//	                 "framing": "sse"|"ndjson"|"json-array"|"eventstream",
//	                 "encoding", "decoded_bytes", "message": Message,
//	                 "metrics": Metrics } ],
//	    "clients": [ { "client", "rule", "text", "reasoning", "refusal",
//	                   "tool_calls": [ToolCall], "finish_reason", "error",
//	                   "xml_calls": [{ "name", "args", "start", "end", "closed" }],
//	                   "display" } ],
//	    "disagreements": [ { "field", "values": [ { "client", "value" } ] } ],
//	    "findings": [ { "id", "severity": "info"|"warn"|"error", "message",
//	                    "at": Pointer, "peer": Pointer, "evidence" } ],
//	    "diffs": [ { "kind", "a", "b", "equal",
//	                 "hunks": [ { "a_off", "b_off", "at": Pointer,
//	                              "region": "preamble"|"tool-block"|"between-blocks"|"tail",
//	                              "converted",
//	                              "lines": [ { "op": " "|"-"|"+", "text" } ] } ] } ],
//	    "request_diff": RequestDiff,
//	    "notes": [string], "origin", "websocket": WebSocket } ],
//	  "sessions": [Session] }
//
//	Message  = { "protocol", "id", "model", "choices": [ { "index", "role", "text",
//	             "reasoning", "refusal", "tool_calls": [ToolCall],
//	             "server_tools": [ServerTool], "finish_reason",
//	             "signature", "reasoning_details" (a JSON array, as a string) } ],
//	             "usage": { "input", "output", "total", "reasoning", "cache_read",
//	             "cache_creation" }, "status", "error", "final": Message }
//	ToolCall = { "index", "id", "name", "arguments", "custom", "signature" }
//	ServerTool = { "index", "id", "name", "input", "result" }  (a tool the provider
//	           ran itself: no call for the client to answer)
//	Pointer  = { "ex", "side", "event", "chunk", "off", "t" }  (-1 when not applicable;
//	           "off" counts decoded bytes on a side with an "encoding")
//	RequestDiff = { "identical", "url": Change, "model": Change,
//	                "params": [ { "name", "client", "upstream" } ],
//	                "tools_added", "tools_removed", "tools_changed": [string],
//	                "client_messages", "upstream_messages",
//	                "messages": [ { "op": "removed"|"added"|"changed", "client_index",
//	                                "upstream_index", "client_role", "upstream_role",
//	                                "client", "upstream" } ],
//	                "rewritten" }   (sandwich recordings only)
//	Change   = { "client", "upstream" }
//	Metrics  = { "gaps", "gap_p50_ns", "gap_p99_ns", "gap_max_ns", "stalls", "stall_ns",
//	             "tokens_in", "tokens_out", "tokens_per_s" }
//	SessionRef = { "id", "turn", "parent": ExchangeRef, "repeats": ExchangeRef,
//	               "messages", "continues" }
//	Session  = { "id", "exchanges": [ExchangeRef], "turns", "tool_calls", "tokens_in",
//	             "tokens_out", "usage_turns", "start", "end", "duration_ns", "failed",
//	             "rewrites", "models": [string] }
//	ExchangeRef = { "capture", "ex" }
//	WebSocket = { "extensions", "subprotocol",
//	              "messages": [ { "side", "opcode", "off", "chunk", "t", "frames", "compressed",
//	                              "bytes", "text", "clipped", "type", "close_code",
//	                              "close_reason", "incomplete" } ],
//	              "realtime": { "session_id", "model",
//	                            "inputs": [ { "item_id", "kind", "text", "message" } ],
//	                            "responses": [ { "id", "status", "status_details", "usage", "message",
//	                                             "parts": [ { "item_id", "content_index", "kind",
//	                                                          "text", "done", "has_done", "name",
//	                                                          "call_id", "deltas", "message" } ] } ],
//	                            "errors": [ { "type", "code", "message", "event_id", "message_index" } ],
//	                            "client_events", "server_events",
//	                            "input_audio_bytes", "output_audio_bytes" } }
//
// "metrics" are the side's gaps between chunks (nearest-rank p50 and p99,
// the largest), how many exceed the stall threshold ("stall_ns", 1 s unless
// Options.Stall says otherwise), the usage it reports and output tokens per
// second from its first chunk to its last; on the exchange they are those
// of the side clients received, its usage taken from the upstream side when
// it reports none. "session" places the exchange in its session (see
// Sessions): its id, its turn, the exchange whose history it extends and
// how many messages its history holds. "sessions" lists the sessions the
// report's exchanges form, with their totals; a report made for several
// captures at once carries them apart.
//
// "error" is what the provider said when it failed (the message of a
// non-2xx body, as its SDK reports it; of an in-band error event; of an
// "error:" SSE field line, which no client hears), from the side clients
// received, else the upstream's. A failed status is named in a verdict as
// "http 400" rather than by the recorded outcome.
//
// "origin" (scheme://host) is set when the request names its host (a
// forward-proxy recording). "websocket" is set for an exchange that
// switched to WebSocket: its sides are the two directions (upstream: the
// server's frames, client: the client's), decoded into messages in time
// order; an event pointer's "event" is then the message index.
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
//   - A client side that is the upstream side's very bytes cut at the
//     same places (a pass-through proxy's; protocol.Side.Mirrors) shares
//     its events' data, decoded payloads and assembly; its own chunk
//     times still time its events, gaps and metrics.
//   - Inspector.Run inspects the exchanges of a capture on GOMAXPROCS
//     workers, a few exchanges ahead of the report and never the whole
//     capture. What reads one exchange alone runs there; its session and
//     the detectors that read the exchanges before it (session.*,
//     exchange.retry-seam) run in capture order as each report is handed
//     over, so the report is the same, byte for byte, on any number of
//     workers.
//   - Upstream and client are compared part by part as well as by text
//     (structure.go, sidecalls.go): every tool call (name, id, arguments as a string and,
//     when both parse, as JSON values), finish reason, usage, error,
//     reasoning, refusal and model, per choice, on the normalized Message of
//     any protocol. A tool call counts whether it is structured or an
//     Obsidian <use_tool> block in the text, so a converting proxy's calls
//     match and a dropped one does not; against XML, scalars compare by
//     their text (XML has no types). Calls pair by id, then name and
//     arguments, then name, then (a rename) equal arguments. Findings point
//     at the event where the part was born on the client side (the call's
//     last event for changed arguments) with the upstream's as peer. No
//     comparison when the client hung up (client_aborted).
//   - Upstream-vs-client hunks carry their region relative to the tool
//     blocks (preamble, tool-block, between-blocks, tail: upstream text's
//     blocks when it has any, else the client's); a hunk holding only calls
//     converted unchanged is marked converted and is not a text change.
//     Text missing at the client's end is not the proxy's loss when the
//     engine's declared transforms drop it (suppress-tail, stop-after-tools:
//     diff.text-shaped) or the client side did not end with the stream (it
//     hung up, or is still open); any other change is diff.upstream-client,
//     an error.
//   - Options.Live (a capture still being recorded) reads a side without
//     an end line as open: its last event or field line still arriving is
//     not read, and the detectors that judge a stream's end (endOfStream,
//     live.go) and those comparing the sides wait for the end lines.
package inspect
