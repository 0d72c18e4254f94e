package inspect

import (
	"slices"
	"sync"

	"github.com/seam-dev/seam/tape"
)

// DetectorInfo documents one detector.
type DetectorInfo struct {
	// ID is stable across releases, e.g. "xml.unclosed-closer".
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	// Source is where the rule is written, in the repository's docs: a
	// docs/PROTOCOLS.md anchor, a docs/GLOSSARY.md bug class, FORMAT.md.
	Source  string `json:"source"`
	Summary string `json:"summary"`
	// Catches says in plain words which client or proxy bug the detector
	// catches ("" when not written yet).
	Catches string `json:"catches,omitempty"`
}

type detector struct {
	info DetectorInfo
	// run inspects an exchange; nil for detectors fed by the assemblers.
	run func(c *exCtx)
	// ordered is set for a detector that reads the exchanges before this
	// one (its session, the previous exchange): it runs when the
	// exchanges before have been settled, in capture order, where the
	// others run on any goroutine (see exCtx.settle).
	ordered bool
}

func det(id string, sev Severity, source, summary string, run func(*exCtx)) detector {
	return detector{info: DetectorInfo{ID: id, Severity: sev, Source: source, Summary: summary}, run: run}
}

// inOrder marks d as an ordered detector.
func inOrder(d detector) detector {
	d.ordered = true
	return d
}

// registry returns every detector, in documentation order: by family,
// each family's in the order --list-detectors shows them.
func registry() []detector {
	return slices.Concat(
		captureDetectors(),
		transportDetectors(),
		websocketDetectors(),
		chatDetectors(),
		responsesDetectors(),
		anthropicDetectors(),
		bedrockCohereDetectors(),
		xmlTextDetectors(),
		twoSidedDetectors(),
		requestDetectors(),
		sessionDetectors(),
	)
}

// captureDetectors are the detectors that read the capture file itself.
func captureDetectors() []detector {
	return []detector{
		det(tape.AnomalyOffsetGap, Error, "FORMAT.md chunk", "a chunk's offset is not where the side's previous chunks end: bytes missing or repeated", runTape),
		det(tape.AnomalyTimeBackwards, Warn, "FORMAT.md t", "a time is negative, earlier than the line before it on its side, or before the request", nil),
		det(tape.AnomalyBytesMismatch, Error, "FORMAT.md end", "an end line's byte count is not the sum of the side's chunks", nil),
		det(tape.AnomalyInterrupted, Warn, "FORMAT.md end", "a side has no end line: the recording was cut short (crash, kill -9) or is still running", nil),
		det(tape.AnomalyUnrecorded, Warn, "FORMAT.md write-behind", "the recorder stopped recording a side's data: the capture writer fell behind the wire (the stream went on)", nil),
	}
}

// transportDetectors are the detectors that read the transport: HTTP
// status, outcome, SSE framing, content coding, the body's framing, the
// terminal signal.
func transportDetectors() []detector {
	return []detector{
		det("http.status", Error, "HTTP", "the response status is not 2xx", runHTTPStatus),
		det("stream.outcome", Warn, "FORMAT.md", "a side ended without finishing (truncated, aborted, upstream error, timeout)", runOutcome),
		det("stream.recorder-shutdown", Info, "FORMAT.md end", "seam's own shutdown cut a side that was still streaming: the recording stops there, and what a stream cut short lacks is not reported", nil),
		det("sse.unterminated-event", Warn, "PROTOCOLS.md#sse", "the last event has no blank line after it: spec clients discard it, VS Code loses the last line", runUnterminated),
		det("sse.quirk", Info, "PROTOCOLS.md#sse", "framing departs from the common form (CR or mixed line endings, no space after colon, BOM, multi-line data, unknown fields, ...)", runQuirks),
		det("sse.unknown-field", Info, "PROTOCOLS.md#sse", "a field line the SSE spec ignores (no client hears it), shown with its text; an \"error:\" line is a stream.error-event", runFields),
		det("sse.comment", Info, "GLOSSARY.md (class O)", "comment (keepalive) frames in the stream; fragile clients choke on them", runComments),
		det("encoding.cut", Warn, "PROTOCOLS.md#content-coding", "a compressed body ends before the end of its compressed stream (no gzip trailer, no last zstd or brotli block) and before its terminal event: it was truncated", runEncoding),
		det("encoding.cut-after-end", Info, "PROTOCOLS.md#content-coding", "a compressed body ends before the end of its compressed stream but after its terminal event (a client that hangs up at [DONE] before the compressor's last block): nothing of the answer is missing", nil),
		det("encoding.corrupt", Error, "PROTOCOLS.md#content-coding", "a compressed body that does not decode (a client's decoder fails on it)", nil),
		det("encoding.capped", Warn, "coding.MaxBody", "a compressed body decodes to more than seam reads (a compression bomb, or a huge body): decoding stopped at the cap, the rest is not read", nil),
		det("encoding.unsupported", Warn, "PROTOCOLS.md#content-coding", "a Content-Encoding seam cannot decode: the body is not read (undici passes such bytes undecoded and the client fails to parse them)", nil),
		det("framing.mismatch", Warn, "PROTOCOLS.md#gemini #bedrock", "the body is not the framing its Content-Type declares (e.g. binary event-stream served as text/event-stream)", runFraming),
		det("framing.corrupt", Error, "PROTOCOLS.md#bedrock", "bytes the framing cannot read: an event-stream message with a bad CRC or header, bytes that are not the JSON array", nil),
		det("framing.cut", Warn, "PROTOCOLS.md#gemini #bedrock", "the body ends inside a frame (an event-stream message, an array element, the array)", nil),
		det("protocol.unknown", Info, "PROTOCOLS.md", "the stream's protocol is not one seam assembles: its events are shown raw, with no protocol findings", runProtocolUnknown),
		det("stream.no-terminal", Warn, "GLOSSARY.md (class M)", "no terminal event ([DONE], message_stop, response.completed)", nil),
		det("stream.after-terminal", Error, "GLOSSARY.md (class L/M)", "events after the terminal event, which clients never read", nil),
		det("stream.trailing-done", Info, "PROTOCOLS.md#chat #responses", "data: [DONE] after a stream's terminal event (OpenRouter ends Responses streams so): the clients have stopped or skip it", nil),
		det("stream.error-event", Error, "PROTOCOLS.md#chat; GLOSSARY.md", "the stream carries an error event or error payload", nil),
		det("stream.event-name-mismatch", Info, "PROTOCOLS.md#responses", "SSE event name differs from the JSON type", nil),
		det("payload.invalid-json", Error, "PROTOCOLS.md#chat #responses", "event data that is not valid JSON", nil),
		det("stream.after-end", Warn, "PROTOCOLS.md#gemini #bedrock #ollama #cohere", "events after the end signal of a protocol whose SDKs read to EOF (finishReason, messageStop, done, message-end): a client stopping at the end loses them", nil),
		det("stream.blocked", Warn, "PROTOCOLS.md#gemini #bedrock #chat", "the provider blocked the prompt or withheld the answer (safety, recitation, guardrail, content filter)", nil),
		det("finish.abnormal", Warn, "PROTOCOLS.md#gemini #bedrock", "the answer ended for an abnormal reason (malformed function call or model output, context window exceeded, ...)", nil),
		det("tool.unclosed", Warn, "PROTOCOLS.md#bedrock #cohere", "a tool call never got its closing event: its arguments may be partial", nil),
	}
}

// websocketDetectors are the detectors that read WebSocket sessions and
// the OpenAI Realtime API.
func websocketDetectors() []detector {
	return []detector{
		det("websocket.protocol", Warn, "RFC 6455, RFC 7692", "frames that break the WebSocket protocol (masking, fragmentation, close codes, reserved bits, deflate, UTF-8)", nil),
		det("websocket.close-error", Error, "PROTOCOLS.md#realtime; RFC 6455 §7.4", "the session closed with an error code (1011, ...) or dropped while a Realtime response was in progress: the SDK's response never completes", nil),
		det("websocket.close", Warn, "RFC 6455 §7.4", "the session closed with a code other than normal closure (1000) or going away (1001), or the server's side dropped with no close frame", nil),
		det("websocket.cap", Warn, "PROTOCOLS.md#realtime", "a WebSocket session past a cap seam reads within (inflated bytes per message or per session, bytes of messages kept): the rest is not shown", nil),
		det("realtime.error", Warn, "PROTOCOLS.md#realtime", "an error event in a Realtime session (most leave the session open)", nil),
		det("realtime.response-failed", Error, "PROTOCOLS.md#realtime", "a Realtime response.done with status failed or incomplete", nil),
		det("realtime.response-unfinished", Warn, "PROTOCOLS.md#realtime", "a Realtime response created but never done", nil),
		det("realtime.invalid-json", Warn, "PROTOCOLS.md#realtime", "a Realtime text message that is not JSON", nil),
	}
}

// chatDetectors are the detectors that read Chat Completions streams.
func chatDetectors() []detector {
	return []detector{
		det("chat.bad-done", Error, "GLOSSARY.md (class M)", "the [DONE] terminator is quoted or malformed", nil),
		det("chat.index-id-conflict", Warn, "PROTOCOLS.md#chat; GLOSSARY.md (class T)", "one tool index carries two ids: index-keyed SDKs merge two calls, VS Code keeps them apart", nil),
		det("chat.index-not-zero", Warn, "PROTOCOLS.md#chat; GLOSSARY.md", "tool indexes do not start at 0 or have gaps: openai-python splits calls", nil),
		det("chat.index-out-of-range", Warn, "PROTOCOLS.md#chat", "a choice or tool call index outside 0–127: openai-node 7 throws on it", nil),
		det("chat.tool-index-missing", Warn, "PROTOCOLS.md#chat", "a tool call delta without index", nil),
		det("chat.repeated-fields", Info, "PROTOCOLS.md#chat; GLOSSARY.md", "role, id or name repeated in later deltas: openai-python concatenates them", nil),
		det("chat.content-with-tool-calls", Warn, "PROTOCOLS.md#chat; GLOSSARY.md", "content in the same delta as tool_calls: VS Code drops it", nil),
		det("chat.trailing-cr", Warn, "PROTOCOLS.md#chat; GLOSSARY.md", "a content delta ends in \\r: VS Code strips it", nil),
		det("chat.finish-missing", Warn, "PROTOCOLS.md#chat; GLOSSARY.md", "a choice without finish_reason", nil),
		det("chat.no-done", Info, "PROTOCOLS.md#chat", "every choice finished but no data: [DONE] came (Perplexity, some OpenAI-compatible servers): the SDKs end normally at EOF", nil),
		det("chat.finish-length-tools", Warn, "GLOSSARY.md (class S)", "finish_reason length/content_filter while tool calls are open", nil),
		det("chat.after-finish", Warn, "GLOSSARY.md (class L)", "content for a choice after its finish_reason", nil),
		det("chat.usage-before-finish", Info, "GLOSSARY.md (class M)", "usage chunk before every choice finished", nil),
		det("chat.cumulative-args", Error, "GLOSSARY.md (class F)", "tool arguments sent as cumulative snapshots instead of increments", nil),
		det("tool.args-invalid-json", Warn, "PROTOCOLS.md#chat #anthropic", "joined tool arguments are not valid JSON", nil),
	}
}

// responsesDetectors are the detectors that read Responses streams.
func responsesDetectors() []detector {
	return []detector{
		det("final.mismatch", Error, "PROTOCOLS.md#responses; GLOSSARY.md (class A/H)", "the final output the stream claims differs from its joined deltas", nil),
		det("responses.item-id-rotation", Info, "PROTOCOLS.md#responses", "item_id changes between events of one item (route by output_index)", nil),
		det("responses.sequence", Warn, "GLOSSARY.md", "sequence_number gaps, repeats or decreases", nil),
		det("responses.failed", Error, "PROTOCOLS.md#responses; GLOSSARY.md", "response.failed or response.incomplete", nil),
		det("responses.untyped-data", Warn, "GLOSSARY.md (class N)", "untyped payloads or [DONE] inside a Responses stream", nil),
		det("responses.nonstandard-shape", Info, "GLOSSARY.md (class V)", "Responses events or items that strict clients reject (no output_item.added, no content_index, tool_use parts)", nil),
	}
}

// anthropicDetectors are the detectors that read Anthropic Messages streams.
func anthropicDetectors() []detector {
	return []detector{
		det("anthropic.event-name", Warn, "PROTOCOLS.md#anthropic", "missing or mismatched SSE event names: the SDKs route by name", nil),
		det("anthropic.order", Warn, "PROTOCOLS.md#anthropic", "events out of the message_start / block start-delta-stop order", nil),
		det("anthropic.block-unclosed", Warn, "PROTOCOLS.md#anthropic", "a content block never got content_block_stop", nil),
	}
}

// bedrockCohereDetectors are the detectors that read Bedrock and Cohere streams.
func bedrockCohereDetectors() []detector {
	return []detector{
		det("bedrock.order", Warn, "PROTOCOLS.md#bedrock", "ConverseStream events out of the messageStart / block / messageStop / metadata order, or Invoke messages without chunk bytes", nil),
		det("bedrock.no-metadata", Info, "PROTOCOLS.md#bedrock", "no metadata event after messageStop (usage and latency missing)", nil),
		det("cohere.order", Warn, "PROTOCOLS.md#cohere", "Cohere events out of the message-start / start-delta-end order", nil),
	}
}

// xmlTextDetectors are the detectors that read the assembled text as
// Obsidian Copilot's XML era reads it.
func xmlTextDetectors() []detector {
	return []detector{
		det("xml.unclosed-closer", Error, "PROTOCOLS.md#obsidian-xml; GLOSSARY.md (class A)", "</use_tool not followed by '>' (e.g. </use_tool<use_tool>): Obsidian merges two calls", runXML),
		det("xml.partial-opener", Error, "GLOSSARY.md (class A)", "<use_tool not followed by '>'", nil),
		det("xml.nested-opener", Error, "PROTOCOLS.md#obsidian-xml; GLOSSARY.md (class A)", "<use_tool> before the previous block closed", nil),
		det("xml.duplicate-block", Warn, "GLOSSARY.md (class A/B)", "the same tool block twice in one message", nil),
		det("xml.args-param", Error, "PROTOCOLS.md#obsidian-xml; GLOSSARY.md (class P)", "<args> used as a parameter: Obsidian nests it as {args: …}", nil),
		det("xml.unclosed-block", Warn, "PROTOCOLS.md#obsidian-xml", "the last tool block is never closed: text after it is hidden", nil),
		det("xml.unclosed-param", Warn, "PROTOCOLS.md#obsidian-xml; GLOSSARY.md", "a parameter tag without its closer: Obsidian drops the parameter", nil),
		det("xml.text-after-tools", Warn, "GLOSSARY.md (class G)", "narrative after the last </use_tool> (hangs Copilot's \"Calling …\")", nil),
		det("text.protocol-dump", Error, "GLOSSARY.md (class R)", "assembled text holds raw protocol JSON", runProtocolDump),
		det("tool.duplicate-call", Warn, "GLOSSARY.md (class B)", "the same call (name and arguments) twice with different ids", runDuplicateCalls),
	}
}

// twoSidedDetectors are the detectors that compare the upstream and client sides.
func twoSidedDetectors() []detector {
	return []detector{
		det("diff.upstream-client", Error, "GLOSSARY.md (class C/H/I)", "the client text differs from the upstream text beyond what the engine declares it does: a proxy lost, added or changed text", runUpstreamClient),
		det("diff.text-shaped", Info, "shape (suppress-tail, stop-after-tools)", "upstream text the engine's declared transforms hold back or drop (suppress-tail, stop-after-tools)", nil),
		det("diff.boundary-dedupe", Error, "GLOSSARY.md (class C/D)", "characters lost at a delta boundary where the previous delta ended as the next began", nil),
		det("diff.tool-call-dropped", Error, "GLOSSARY.md", "an upstream tool call (structured or a <use_tool> block) never reaches the client", runStructure),
		det("diff.tool-call-added", Error, "GLOSSARY.md", "the client gets a tool call the upstream never made", nil),
		det("diff.tool-name-changed", Error, "GLOSSARY.md", "a tool call reaches the client under another name", nil),
		det("diff.tool-args-changed", Error, "GLOSSARY.md (class F/P)", "a tool call's arguments differ between upstream and client (as JSON when both parse)", nil),
		det("diff.tool-id-changed", Warn, "GLOSSARY.md", "a tool call reaches the client under another id", nil),
		det("diff.tool-call-converted", Info, "shape (xml-tools); PROTOCOLS.md#obsidian-xml", "tool calls carried between structured form and Obsidian XML in the text, unchanged", nil),
		det("diff.finish-changed", Warn, "GLOSSARY.md (class M/S)", "the finish reason differs between upstream and client (across protocols by meaning)", nil),
		det("diff.usage-changed", Warn, "GLOSSARY.md", "token usage differs between upstream and client, or one side has none", nil),
		det("diff.error-changed", Error, "GLOSSARY.md", "an upstream error never reaches the client, or the client gets one the upstream never sent", nil),
		det("diff.reasoning-changed", Warn, "GLOSSARY.md", "reasoning differs between upstream and client", nil),
		det("diff.refusal-changed", Warn, "GLOSSARY.md", "a refusal differs between upstream and client", nil),
		det("diff.model-changed", Info, "GLOSSARY.md", "the response names another model at the client than upstream", nil),
		det("client.disagree", Info, "PROTOCOLS.md#chat", "emulated clients end up with different results", runDisagree),
	}
}

// requestDetectors are the detectors that read the request.
func requestDetectors() []detector {
	return []detector{
		det("req.orphan-tool-result", Error, "GLOSSARY.md", "a tool result with no preceding assistant tool call", runRequestLint),
		det("req.resent-user-prompt", Warn, "GLOSSARY.md (class U)", "the user prompt is sent again right before a tool result", nil),
		det("req.unknown-tool-call-id", Error, "GLOSSARY.md", "a tool result whose id matches no call", nil),
		det("req.history-rewritten", Warn, "GLOSSARY.md", "the proxy under test changed, dropped or reordered messages of the client's history on their way upstream", runRequestLegs),
		det("req.tools-changed", Warn, "GLOSSARY.md", "the proxy under test added, removed or changed tools on their way upstream", nil),
		det("req.model-changed", Info, "GLOSSARY.md", "the proxy under test asked the upstream for another model", nil),
		det("req.params-changed", Info, "GLOSSARY.md", "the proxy under test changed request parameters on their way upstream", nil),
		det("schema.void-args", Error, "GLOSSARY.md (class P)", "a tool that takes no parameters is given some (e.g. <args>{}</args>)", runSchema),
		det("schema.missing-param", Error, "GLOSSARY.md", "a tool call lacks a required parameter", nil),
		det("schema.unknown-param", Warn, "GLOSSARY.md (class P)", "a tool call passes a parameter the tool does not declare", nil),
		det("schema.unknown-tool", Warn, "GLOSSARY.md", "a tool call names a tool the request does not declare", nil),
	}
}

// sessionDetectors are the detectors that read the exchanges before this one.
func sessionDetectors() []detector {
	return []detector{
		inOrder(det("session.turn-dropped", Error, "GLOSSARY.md", "the request continues an earlier exchange's history but leaves out messages of it (a tool result or a turn lost)", runSession)),
		det("session.turn-edited", Warn, "GLOSSARY.md", "the request changes, inserts or moves a message of an earlier exchange's history it otherwise continues", nil),
		inOrder(det("exchange.retry-seam", Warn, "PROTOCOLS.md#obsidian-xml", "the same request sent again after a failed stream (text of both attempts may be joined)", runRetrySeam)),
	}
}

// Detectors documents every detector, for --list-detectors.
func Detectors() []DetectorInfo {
	reg := detectors()
	out := make([]DetectorInfo, len(reg))
	for i, d := range reg {
		out[i] = d.info
		out[i].Catches = detectorCatches[d.info.ID]
	}
	return out
}

// detectors is the registry, built once; severityOf maps every detector id
// to its severity (read-only, shared by every exchange).
var (
	detectors  = sync.OnceValue(registry)
	severityOf = sync.OnceValue(func() map[string]Severity {
		reg := detectors()
		sev := make(map[string]Severity, len(reg))
		for _, d := range reg {
			sev[d.info.ID] = d.info.Severity
		}
		return sev
	})
)
