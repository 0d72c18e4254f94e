// Package shape is the stream-shaping engine: it turns the upstream's bytes
// into the bytes written to the client. It is pure: no net/http, no clock, no
// goroutines, so the recording proxy and the offline replayer run the same
// code, and a capture's header (profile plus every switch value, see
// [Resolve]) rebuilds exactly the engine that produced its client side.
//
// # Pipeline
//
// [New] returns [Passthrough] (the identity: each upstream read is one client
// write of the same bytes, nothing decoded, no allocation) when every switch
// has its passthrough value, or when the exchange is not a 2xx
// text/event-stream response. Otherwise the engine parses the upstream with
// package sse, tells the protocol from the first event (OpenAI Chat
// Completions, OpenAI Responses or Anthropic Messages; anything else is
// passed through unchanged, with its read boundaries), decodes each event
// into normalized events, runs them through the transforms and encodes them
// for the client. Each client SSE event is one frame, so a replay can compare
// frames and their boundaries. The client protocol is the upstream's, except
// that responses-adapter turns a Chat Completions upstream into Responses.
//
// # Normalized events
//
// Per choice: role, text delta, reasoning delta, tool-call start (index, id,
// name), tool-call arguments delta, tool-call end, finish (reason, in the
// Chat Completions vocabulary), usage, error and done; see [Kind]. An
// upstream event the decoder does not model (an Anthropic ping, a refusal
// delta, an unknown Responses event, an SSE comment) becomes an opaque event
// forwarded as it came: never dropped. Payloads are read with gjson, without
// unmarshalling. Lifecycle events that an encoder derives again (Responses
// in_progress and content_part.*, Anthropic content_block_start for text)
// carry no content of their own and are regenerated rather than forwarded.
// Encoders write fields in a fixed order, so output is byte-stable.
//
// # Nothing dropped silently
//
// Every upstream construct reaches the client, converted, as it came, or
// refused loudly:
//
//   - A tool call the client cannot receive as structure is converted:
//     under xml-tools every structured call (Chat tool_calls and the
//     deprecated delta.function_call, Responses function calls and custom
//     tool calls, whose free-form input becomes {"input": …}, Anthropic
//     tool_use) becomes a <use_tool> block; under responses-adapter a Chat
//     call (function_call included) becomes a function_call item.
//   - A Chat refusal becomes a Responses refusal part under
//     responses-adapter; a Responses refusal stays a refusal part.
//   - What the decoder does not model goes through opaque, as it came.
//     An Anthropic block of another type (server tool use, redacted
//     thinking) keeps its stop, and the engine numbers its own blocks
//     after it; a Responses item of another type (a web search, an MCP
//     call) is kept in the response.completed the engine writes.
//   - Under responses-adapter, where the client speaks another protocol, an
//     opaque Chat chunk cannot go through as it came: one carrying content
//     the engine does not model (its Event.Lost, e.g. delta.audio) is
//     refused with an error event naming it; one carrying nothing a client
//     shows (no choices, such as a content-filter report) is left out.
//   - An Anthropic stream cut before message_stop still gives the client
//     the message_delta (stop reason, usage) the upstream sent.
//   - Chat usage carried to Responses keeps its cached and reasoning token
//     details.
//
// # Transforms
//
// Each transform is a switch ([Switches] lists them with their defaults).
// The textual transforms keep the original engine's per-choice state:
// emitted (all accepted text), forwardedUpTo (what
// was sent), the complete-block scan position, the last block end and the
// tool buffer, in byte offsets.
//
//   - xml-tools: a structured tool call becomes Obsidian Copilot XML text,
//     <use_tool>, <name>T</name>, one <param>value</param> per top-level
//     argument, </use_tool>, one tag per line; a parameter-less call has no
//     children. String values are written raw (Obsidian does not decode
//     entities); other JSON values as their JSON text. The XML enters the
//     textual pipeline as one fragment, so the switches below apply to it.
//     The structured call itself is not forwarded.
//   - tool-block: the tool buffer arms at a "<use_tool" at or after
//     forwardedUpTo and holds text from there; each complete
//     <use_tool…</use_tool> block not yet forwarded is sent as one delta
//     (preceded by any unsent text before it). A block whose opener already
//     leaked as text is still sent whole: that is the incident.
//   - holdback: a trailing partial "<use_tool" or "</use_tool" is held until
//     the next fragment decides it, so the buffer can arm. Off reproduces
//     the </use_tool<use_tool> incident (bug class A) on real token splits.
//     Held text is flushed at the end of the choice.
//   - suppress-tail: text after the last complete block is held; it is sent
//     if another block follows and dropped at the end (bug class G).
//   - stop-after-tools=N: after the Nth block of a choice the turn ends:
//     every choice finishes with "stop", the terminal event is written and
//     the rest of the upstream is ignored. 0 disables it.
//   - responses-adapter: a Chat Completions upstream is encoded for the
//     client as a Responses stream (created, in_progress, one output item
//     per text run or call, function_call_arguments deltas as increments,
//     response.completed whose text is exactly the joined deltas).
//   - incremental-args: tool arguments go out as the increments received;
//     off sends the cumulative snapshot each time, as the original did
//     (bug class F).
//   - overlap-dedupe (historical, off): the original's acceptance rules,
//     dropping a fragment's prefix that repeats everything emitted so far or
//     the end of it; eats real characters (timeanddate → timeandate, bug
//     class C).
//   - void-args-tag (historical, off): a call with arguments {} renders as
//     <args>{}</args> and one with empty arguments renders nothing (bug
//     class P).
//
// Memory per choice is bounded: once 64 KiB of text is forwarded with no
// block pending, all but its last 4 KiB is dropped (so the snapshot rule of
// overlap-dedupe only sees snapshots shorter than that). The Responses
// encoder keeps the output it must repeat in response.completed; with n > 1
// choices it writes every choice into the same output items.
//
// Deliberate departures from the original: text before a block in the same
// fragment is sent (the original lost it), and held-back text is flushed at
// the end instead of lost. The first block does not end the choice's text
// (the original's drop flag); use suppress-tail or stop-after-tools.
//
// # Profiles
//
// passthrough (the default: identity), obsidian-xml (xml-tools, tool-block,
// holdback and suppress-tail on: Obsidian Copilot 3.0–3.1 clients) and
// responses (responses-adapter on). A switch set with --set overrides the
// profile's value; [Resolve] returns the full map.
//
// # Profile files
//
// [ParseProfile] reads a small line-based format:
//
//	# the pre-fix engine of the getFileTree incident
//	profile = obsidian-xml
//	holdback = off
//	stop-after-tools = 1
//
// Blank lines and lines starting with # are ignored. Every other line is
// "key = value" (spaces around '=' optional). "profile" names the built-in
// base profile (passthrough when absent); every other key is a switch name.
// Boolean switches take on/off (also true/false, yes/no, 1/0); counts take
// a decimal integer ≥ 0. A key may appear once. Errors name the file and
// line, and list the valid switches or profiles. The resulting engine
// records the base profile and every switch value, so replaying a capture
// does not need the file.
package shape
