package inspect

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/sse"
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

// registry returns every detector, in documentation order.
func registry() []detector {
	return []detector{
		// The capture itself.
		det(tape.AnomalyOffsetGap, Error, "FORMAT.md chunk", "a chunk's offset is not where the side's previous chunks end: bytes missing or repeated", runTape),
		det(tape.AnomalyTimeBackwards, Warn, "FORMAT.md t", "a time is negative, earlier than the line before it on its side, or before the request", nil),
		det(tape.AnomalyBytesMismatch, Error, "FORMAT.md end", "an end line's byte count is not the sum of the side's chunks", nil),
		det(tape.AnomalyInterrupted, Warn, "FORMAT.md end", "a side has no end line: the recording was cut short (crash, kill -9) or is still running", nil),
		det(tape.AnomalyUnrecorded, Warn, "FORMAT.md write-behind", "the recorder stopped recording a side's data: the capture writer fell behind the wire (the stream went on)", nil),
		// Transport and SSE framing.
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
		// WebSocket and the OpenAI Realtime API.
		det("websocket.protocol", Warn, "RFC 6455, RFC 7692", "frames that break the WebSocket protocol (masking, fragmentation, close codes, reserved bits, deflate, UTF-8)", nil),
		det("websocket.close-error", Error, "PROTOCOLS.md#realtime; RFC 6455 §7.4", "the session closed with an error code (1011, ...) or dropped while a Realtime response was in progress: the SDK's response never completes", nil),
		det("websocket.close", Warn, "RFC 6455 §7.4", "the session closed with a code other than normal closure (1000) or going away (1001), or the server's side dropped with no close frame", nil),
		det("websocket.cap", Warn, "PROTOCOLS.md#realtime", "a WebSocket session past a cap seam reads within (inflated bytes per message or per session, bytes of messages kept): the rest is not shown", nil),
		det("realtime.error", Warn, "PROTOCOLS.md#realtime", "an error event in a Realtime session (most leave the session open)", nil),
		det("realtime.response-failed", Error, "PROTOCOLS.md#realtime", "a Realtime response.done with status failed or incomplete", nil),
		det("realtime.response-unfinished", Warn, "PROTOCOLS.md#realtime", "a Realtime response created but never done", nil),
		det("realtime.invalid-json", Warn, "PROTOCOLS.md#realtime", "a Realtime text message that is not JSON", nil),
		// Chat Completions.
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
		// Responses.
		det("final.mismatch", Error, "PROTOCOLS.md#responses; GLOSSARY.md (class A/H)", "the final output the stream claims differs from its joined deltas", nil),
		det("responses.item-id-rotation", Info, "PROTOCOLS.md#responses", "item_id changes between events of one item (route by output_index)", nil),
		det("responses.sequence", Warn, "GLOSSARY.md", "sequence_number gaps, repeats or decreases", nil),
		det("responses.failed", Error, "PROTOCOLS.md#responses; GLOSSARY.md", "response.failed or response.incomplete", nil),
		det("responses.untyped-data", Warn, "GLOSSARY.md (class N)", "untyped payloads or [DONE] inside a Responses stream", nil),
		det("responses.nonstandard-shape", Info, "GLOSSARY.md (class V)", "Responses events or items that strict clients reject (no output_item.added, no content_index, tool_use parts)", nil),
		// Anthropic.
		det("anthropic.event-name", Warn, "PROTOCOLS.md#anthropic", "missing or mismatched SSE event names: the SDKs route by name", nil),
		det("anthropic.order", Warn, "PROTOCOLS.md#anthropic", "events out of the message_start / block start-delta-stop order", nil),
		det("anthropic.block-unclosed", Warn, "PROTOCOLS.md#anthropic", "a content block never got content_block_stop", nil),
		// Bedrock and Cohere.
		det("bedrock.order", Warn, "PROTOCOLS.md#bedrock", "ConverseStream events out of the messageStart / block / messageStop / metadata order, or Invoke messages without chunk bytes", nil),
		det("bedrock.no-metadata", Info, "PROTOCOLS.md#bedrock", "no metadata event after messageStop (usage and latency missing)", nil),
		det("cohere.order", Warn, "PROTOCOLS.md#cohere", "Cohere events out of the message-start / start-delta-end order", nil),
		// Assembled text (Obsidian XML era).
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
		// Two-sided.
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
		// Request lint.
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
		// Sessions.
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

// runDetectors runs the detectors that read this exchange only, on the
// assemblies' anomalies and then in registry order; the ordered ones run
// in exCtx.settle.
func runDetectors(c *exCtx) {
	reg := detectors()
	if c.rep.WebSocket != nil {
		return // inspectWebSocket reported what applies
	}
	for _, s := range c.rep.Sides {
		if s.asm == nil {
			continue
		}
		for _, a := range s.asm.Anomalies {
			c.emit(a.ID, eventPointer(s.ev, c.x.Ex, s.Side, a.Event), a.Evidence, a.Msg)
		}
		if len(s.asm.More) == 0 {
			continue
		}
		for _, id := range slices.Sorted(maps.Keys(s.asm.More)) {
			c.emit(id, eventPointer(s.ev, c.x.Ex, s.Side, -1), "",
				fmt.Sprintf("%d more like the %d above on the %s side, not listed", s.asm.More[id], protocol.MaxPerID, s.Side))
		}
	}
	for _, d := range reg {
		if d.run != nil && !d.ordered {
			d.run(c)
		}
	}
}

// runOrdered runs the ordered detectors, in registry order.
func runOrdered(c *exCtx) {
	for _, d := range detectors() {
		if d.run != nil && d.ordered {
			d.run(c)
		}
	}
}

// cutShort are the findings that only say a stream stopped before its
// end: on a side seam's own shutdown cut (recorder_shutdown), that is what
// the cut did, and stream.recorder-shutdown says it once.
var cutShort = map[string]bool{
	"stream.no-terminal": true, "chat.finish-missing": true, "sse.unterminated-event": true,
	"encoding.cut": true, "framing.cut": true, "tool.unclosed": true,
	"anthropic.block-unclosed": true, "realtime.response-unfinished": true, "bedrock.no-metadata": true,
	"tool.args-invalid-json": true, // the arguments of the call being streamed, cut
}

func (c *exCtx) emit(id string, p Pointer, evidence, msg string) {
	if cutShort[id] && p.Side != "" {
		if sd := c.sides[p.Side]; sd != nil && sd.Outcome == tape.RecorderShutdown {
			return
		}
	}
	if c.open != nil && c.waits(id, p) {
		return
	}
	s, ok := c.sev[id]
	if !ok {
		s = Warn
	}
	c.rep.Findings = append(c.rep.Findings, Finding{ID: id, Severity: s, Message: msg, Pointer: p, Evidence: evidence})
}

// emitPair records a finding on two sides: at is where it was born on the
// side it concerns, peer (when not nil) where its counterpart was born on
// the other.
func (c *exCtx) emitPair(id string, at Pointer, peer *Pointer, evidence, msg string) {
	c.emit(id, at, evidence, msg)
	c.rep.Findings[len(c.rep.Findings)-1].Peer = peer
}

func (c *exCtx) reqPointer() Pointer {
	return Pointer{Ex: c.x.Ex, Event: -1, Chunk: -1, Off: -1, T: -1}
}

func (c *exCtx) sidePointer(s *SideReport, ev int) Pointer {
	return eventPointer(s.ev, c.x.Ex, s.Side, ev)
}

// runTape reports the places where the capture's lines contradict each
// other, found by tape as it read them, with the file and line.
func runTape(c *exCtx) {
	for _, a := range c.x.Anomalies {
		p := Pointer{Ex: c.x.Ex, Side: a.Side, Event: -1, Chunk: a.Chunk, Off: -1, T: -1}
		if a.Chunk >= 0 {
			p.Off, p.T = a.Off, a.T
		}
		msg := a.Message
		if a.Count > 1 {
			msg += " (" + strconv.Itoa(a.Count-1) + " more like it on this side)"
		}
		evidence := ""
		if a.Line > 0 {
			evidence = c.name + ":" + strconv.Itoa(a.Line)
		}
		c.emit(a.ID, p, evidence, msg)
	}
}

func runHTTPStatus(c *exCtx) {
	for _, s := range c.rep.Sides {
		if failed(s.Status) {
			msg := "HTTP " + strconv.Itoa(s.Status) + " on the " + string(s.Side) + " side"
			if s.Message.Error != "" {
				msg += ": " + excerpt.Clip(s.Message.Error, 120)
			}
			c.emit("http.status", c.sidePointer(s, -1), excerpt.Clip(string(head(s.ev.Chunks, 200)), 160), msg)
		} else if !s.Stream && s.Message.Error != "" {
			// A non-stream body under a success status that is an error.
			c.emit("stream.error-event", c.sidePointer(s, -1), excerpt.Clip(s.Message.Error, 160),
				"the "+string(s.Side)+" body is an error although the status is "+strconv.Itoa(s.Status)+": "+excerpt.Clip(s.Message.Error, 120))
		}
	}
}

func runOutcome(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.Outcome == "" || s.Outcome.Success() {
			continue
		}
		if s.Outcome == tape.RecorderShutdown {
			c.emit("stream.recorder-shutdown", c.sidePointer(s, len(s.ev.Events)-1), s.Error,
				"the "+string(s.Side)+" side was still streaming when seam shut down: seam cut it, not the client or the upstream")
			continue
		}
		if s.Outcome == tape.Truncated && s.Stream && s.Message.Protocol == protocol.Unknown {
			// The recorder calls a stream truncated when it saw no terminal
			// event it knows; for a protocol nobody knows, that says nothing.
			continue
		}
		if s.Outcome == tape.Truncated && errors.Is(s.codingErr, coding.ErrCut) && endedBeforeCut(s) {
			// Truncated only by the compressed stream, after the terminal
			// event: encoding.cut-after-end says so, nothing was lost.
			continue
		}
		c.emit("stream.outcome", c.sidePointer(s, len(s.ev.Events)-1), s.Error, string(s.Side)+" side ended "+string(s.Outcome))
	}
}

func runUnterminated(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.Framing != framing.SSE {
			continue // an NDJSON line without LF is still read; a cut element is framing.cut
		}
		n := len(s.ev.Events)
		if n > 0 && !s.ev.Events[n-1].Terminated {
			c.emit("sse.unterminated-event", c.sidePointer(s, n-1), excerpt.Clip(s.ev.Events[n-1].Data, 80),
				"the last event is not ended by a blank line: spec clients discard it")
		}
	}
}

func runQuirks(c *exCtx) {
	for _, s := range c.rep.Sides {
		seen := map[string]bool{}
		for _, e := range s.ev.Events {
			if e.Quirks == "" {
				continue
			}
			for _, q := range strings.Split(e.Quirks, "|") {
				if q == "comment" || q == "unknown-field" || seen[q] {
					// (sse.unknown-field shows the fields with their text.)
					continue
				}
				seen[q] = true
				msg := "SSE framing quirk " + q + " (first at this event)"
				if q == "too-long" {
					msg = "a line or the data of this event is longer than seam's cap of " + coding.Size(sse.MaxLine) +
						" (first at this event): only the bytes up to the cap were read"
				}
				c.emit("sse.quirk", c.sidePointer(s, e.Index), q, msg)
			}
		}
	}
}

func runComments(c *exCtx) {
	for _, s := range c.rep.Sides {
		if len(s.ev.Comments) == 0 {
			continue
		}
		cm := s.ev.Comments[0]
		p := Pointer{Ex: c.x.Ex, Side: s.Side, Event: -1, Chunk: cm.Chunk, Off: cm.Off, T: cm.T}
		c.emit("sse.comment", p, ": "+excerpt.Clip(cm.Text, 60), strconv.Itoa(len(s.ev.Comments))+" comment frame(s) in the "+string(s.Side)+" stream")
	}
}

func runDisagree(c *exCtx) {
	for _, d := range c.rep.Disagreements {
		var parts []string
		for _, v := range d.Values {
			parts = append(parts, v.Client+"="+strconv.Quote(excerpt.Clip(v.Value, 40)))
		}
		c.emit("client.disagree", c.reqPointer(), strings.Join(parts, " "), "clients end up with different "+d.Field)
	}
}

func runUpstreamClient(c *exCtx) {
	d := c.upDiff
	if d == nil || d.Equal {
		return
	}
	var changed, shaped []Hunk
	ex := c.explainer()
	for _, h := range d.Hunks {
		switch why := ex.explain(&h); why {
		case explainedNot:
			changed = append(changed, h)
		case explainedShaped:
			shaped = append(shaped, h)
		}
	}
	if len(shaped) > 0 {
		h := shaped[0]
		p := c.reqPointer()
		if h.At != nil {
			p = *h.At
		}
		c.emit("diff.text-shaped", p, hunkEvidence(h), pluralWord(len(shaped), "difference")+" between upstream and client text that the engine's declared transforms make ("+ex.declared()+")")
	}
	if len(changed) > 0 {
		h := changed[0]
		p := c.reqPointer()
		if h.At != nil {
			p = *h.At
		}
		where := ""
		if h.Region != "" {
			where = ", the first in the " + regionWords(h.Region)
		}
		c.emit("diff.upstream-client", p, hunkEvidence(h), pluralWord(len(changed), "difference")+" between upstream and client text"+where)
	}
	boundaryDedupe(c, c.sides[tape.Upstream], c.sides[tape.Client])
}

// regionWords names a region in a sentence.
func regionWords(r string) string {
	switch r {
	case RegionPreamble:
		return "preamble before the first tool block"
	case RegionToolBlock:
		return "tool block"
	case RegionBetween:
		return "text between tool blocks"
	case RegionTail:
		return "tail after the last tool block"
	}
	return r
}

func hunkEvidence(h Hunk) string {
	var parts []string
	for _, l := range h.Lines {
		if l.Op != " " {
			parts = append(parts, l.Op+excerpt.Clip(l.Text, 60))
		}
		if len(parts) == 4 {
			break
		}
	}
	return strings.Join(parts, " | ")
}

// runFraming reports a body that is not the framing its Content-Type
// declares, and the bytes the framing could not read.
func runFraming(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.mismatch && !(failed(s.Status) && !s.Stream) {
			// (An error body in JSON under a stream's Content-Type, as
			// Gemini sends a 400, is read as the error it is: SDKs read
			// a failed response's body whatever its Content-Type.)
			ct := ""
			if sd := c.x.Side(s.Side); sd.Response != nil && len(sd.Response.Headers["content-type"]) > 0 {
				ct = sd.Response.Headers["content-type"][0]
			}
			kind := s.Framing.String()
			if !s.Stream {
				kind = "one JSON document"
			}
			c.emit("framing.mismatch", c.bytePointer(s, 0), excerpt.Clip(strconv.Quote(string(head(s.ev.Chunks, 24))), 80),
				"the "+string(s.Side)+" body is "+kind+" although its Content-Type says "+strconv.Quote(ct)+": it was read as "+kind)
		}
		for _, p := range s.ev.Problems {
			at, ev := c.bytePointer(s, p.Off), bytesEvidence(s.ev.Chunks, p.Off, 16)
			msg := s.Framing.String() + " at byte " + strconv.FormatInt(p.Off, 10) + ": " + p.Msg
			if p.Kind == framing.Cut {
				c.emit("framing.cut", at, ev, msg)
			} else {
				c.emit("framing.corrupt", at, ev, msg)
			}
		}
	}
}

// runProtocolUnknown says once per side that a stream's protocol was not
// recognised, so its events were not assembled.
func runProtocolUnknown(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.Stream && s.Message.Protocol == protocol.Unknown && len(s.ev.Events) > 0 {
			c.emit("protocol.unknown", c.sidePointer(s, 0), excerpt.Clip(s.ev.Events[0].Data, 80),
				"protocol not recognised: the "+strconv.Itoa(len(s.ev.Events))+" "+s.Framing.String()+" events of the "+string(s.Side)+" side are shown raw, not assembled")
		}
	}
}

// bytePointer points at byte off of a side's body: the chunk holding it
// and that chunk's time.
func (c *exCtx) bytePointer(s *SideReport, off int64) Pointer {
	p := Pointer{Ex: c.x.Ex, Side: s.Side, Event: -1, Chunk: -1, Off: off, T: -1}
	chunks := s.ev.Chunks
	if len(chunks) == 0 {
		return p
	}
	i := sort.Search(len(chunks), func(i int) bool { return chunks[i].Off > off })
	if i > 0 {
		i--
	}
	p.Chunk, p.T = i, chunks[i].T
	return p
}

// bytesEvidence shows up to n body bytes from off, quoted.
func bytesEvidence(chunks []tape.Chunk, off int64, n int) string {
	var b []byte
	for _, ch := range chunks {
		end := ch.Off + int64(len(ch.Data))
		if end <= off || len(b) >= n {
			continue
		}
		from := max(off-ch.Off, 0)
		b = append(b, ch.Data[from:min(int64(len(ch.Data)), from+int64(n-len(b)))]...)
	}
	return strconv.Quote(string(b))
}

// endedBeforeCut reports whether a side whose compressed body was cut had
// its terminal event, ended, before the cut: a client that hangs up at
// [DONE] leaves the compressor's last block unsent (Cohere's and
// Mistral's SDKs do, with br and gzip), and lost nothing.
func endedBeforeCut(s *SideReport) bool {
	if s.asm == nil || s.asm.Terminal < 0 || s.asm.Terminal >= len(s.ev.Events) {
		return false
	}
	return s.ev.Events[s.asm.Terminal].Terminated
}

// runEncoding reports a compressed body that was cut (before its terminal
// event: truncated; after it: nothing lost), corrupt, or in a coding seam
// cannot decode.
func runEncoding(c *exCtx) {
	for _, s := range c.rep.Sides {
		err := s.codingErr
		if err == nil {
			continue
		}
		last := len(s.ev.Chunks) - 1
		p := c.bytePointer(s, s.Decoded)
		if last >= 0 {
			p.Chunk, p.T = last, s.ev.Chunks[last].T
		}
		var u *coding.UnsupportedError
		var capped *coding.CapError
		switch {
		case errors.As(err, &capped):
			c.emit("encoding.capped", p, "Content-Encoding: "+excerpt.Clip(s.Encoding, 60),
				"the "+string(s.Side)+" body decodes to more than seam's cap of "+coding.Size(capped.Cap)+" decoded per "+capped.Per+
					" (a compression bomb, or a body larger than seam reads): decoding stopped after "+strconv.FormatInt(s.Decoded, 10)+" bytes and the rest is not read")
		case errors.As(err, &u):
			c.emit("encoding.unsupported", c.bytePointer(s, 0), "Content-Encoding: "+excerpt.Clip(s.Encoding, 60),
				"the "+string(s.Side)+" body is in "+err.Error()+": it is not read")
		case errors.Is(err, coding.ErrCut) && endedBeforeCut(s):
			t := s.ev.Events[s.asm.Terminal]
			c.emit("encoding.cut-after-end", p, "Content-Encoding: "+excerpt.Clip(s.Encoding, 60),
				"the "+string(s.Side)+" body ends inside its "+s.Encoding+" stream after "+strconv.FormatInt(s.Decoded, 10)+
					" decoded bytes, after its terminal event (event "+strconv.Itoa(t.Index)+"): the compressor's last block never came, nothing of the answer is missing")
		case errors.Is(err, coding.ErrCut):
			c.emit("encoding.cut", p, "Content-Encoding: "+excerpt.Clip(s.Encoding, 60),
				"the "+string(s.Side)+" body is cut inside its "+s.Encoding+" stream after "+strconv.FormatInt(s.Decoded, 10)+" decoded bytes: it was truncated")
		default:
			c.emit("encoding.corrupt", p, excerpt.Clip(err.Error(), 120),
				"the "+string(s.Side)+" body does not decode as "+s.Encoding+" after "+strconv.FormatInt(s.Decoded, 10)+" decoded bytes: "+excerpt.Clip(err.Error(), 120))
		}
	}
}
