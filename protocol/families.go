package protocol

import "strings"

// family is what the assembly driver (drive.go) needs to know of a protocol
// family, and what a reader needs to know of how its streams end: one row
// of the families table below. The driver applies the rules a row states
// the same way for every family and raises the shared detectors with the
// row's messages; the detectors of the family's own (anthropic.order,
// responses.untyped-data…) are raised by its handlers' own method, in its
// file, when a rule of the row calls for them.
type family struct {
	proto Protocol
	// aliases are what --protocol accepts for it (ParseName).
	aliases []string
	// rule names the assembly rule, in plain words, and the official
	// client whose behaviour it matches (Protocol.Rule).
	rule string
	// key is what routes an event to its handler: "type" (the payload's
	// type), "event" (the event-stream :event-type), or "" (one handler
	// reads every event).
	key string

	// ends are the events (by key) that end the stream: the driver marks
	// the first one terminal before its handler runs. endsBy says in words
	// what ends the stream, including the end the handlers mark where no
	// single event is it (a finish reason, a done line).
	ends   []string
	endsBy string
	// settles: a stream that reached its semantic end (handlers.settled)
	// without its terminal event is the family's own ownSettled, not a cut
	// stream.
	settles bool
	// exceptions: event-stream exception and error messages are the
	// stream's in-band errors and end it (bedrockError).
	exceptions bool
	// errors says what an in-band error looks like.
	errors string

	// stops is where a client stops reading; an event after that point
	// is lost (stream.after-terminal, not assembled). One after the end
	// that clients still read is late (stream.after-end, assembled;
	// lateOnce: flagged once; lateByName: its evidence is its name).
	stops      stopRule
	lost, late string
	lateOnce   bool
	lateByName bool
	// trailer is an event due after the terminal one, which closes the
	// stream in turn: an event after it is afterTrailer (stream.after-end).
	trailer      string
	afterTrailer string

	// done is what a data: [DONE] is; stray is the message for one the
	// rule does not expect (stream.after-terminal; stream.no-terminal under
	// doneStops), trailing for one after the client stopped
	// (stream.trailing-done).
	done            doneRule
	stray, trailing string

	// invalid is an event whose data is not the JSON the family carries
	// (payload.invalid-json).
	invalid string
	// typed: the payloads carry their type; one without is the family's
	// own ownUntyped.
	typed bool
	// names is how clients treat the SSE event name; renamed is the
	// message for a name that differs from the type under namesFollowType
	// (stream.event-name-mismatch).
	names   nameRule
	renamed string
	// start is the event a stream opens with; an event before it (other
	// than startFree) is the family's own ownEarly, a second one ownAgain.
	start     string
	startFree []string
	// noEnd is the message for a stream that never reached its end
	// (stream.no-terminal).
	noEnd string
}

// stopRule is where a client stops reading a stream.
type stopRule uint8

const (
	// stopNever: clients read to EOF; an event after the end is late.
	stopNever stopRule = iota
	// stopAtEnd: clients stop at the terminal event; an event after it is
	// lost.
	stopAtEnd
	// stopAtDone: clients stop at the data: [DONE] that follows the
	// terminal event; an event after the terminal is late, after [DONE]
	// lost.
	stopAtDone
)

// doneRule is what a data: [DONE] event is in a family's streams.
type doneRule uint8

const (
	// doneNone: not looked for; its data is not JSON (invalid).
	doneNone doneRule = iota
	// doneEnds: it is the terminal event.
	doneEnds
	// doneStops: it follows the terminal event and clients stop reading
	// there (stopAtDone); one before the terminal is stray, a second one
	// nothing more.
	doneStops
	// doneStray: the family has none: it is stray wherever it comes.
	doneStray
	// doneUntyped: the family has none, and one is data without a type:
	// the family's own ownDone.
	doneUntyped
)

// nameRule is how a family's clients treat the SSE event name.
type nameRule uint8

const (
	// namesFree: not checked.
	namesFree nameRule = iota
	// namesFollowType: clients follow the payload's type; a name that
	// differs from it is flagged once (stream.event-name-mismatch).
	namesFollowType
	// namesRoute: clients route by the name; a missing name (or
	// "message") is the family's own ownUnnamed, one that differs from the
	// type its ownRenamed.
	namesRoute
)

// own names the detectors of a family's own that the driver detects by the
// row's rules and the family's handlers raise (handlers.own).
type own uint8

const (
	ownDone    own = iota // a data: [DONE] under doneUntyped
	ownUntyped            // a payload without a type (family.typed)
	ownUnnamed            // an event without an SSE name (namesRoute)
	ownRenamed            // an SSE name that differs from the type (namesRoute)
	ownEarly              // the first event before family.start
	ownAgain              // a second family.start
	ownSettled            // the semantic end without the terminal (family.settles)
)

// fill renders a row's message for an event of type typ named name: {type}
// and {name} stand for them.
func fill(msg, typ, name string) string {
	if strings.IndexByte(msg, '{') < 0 {
		return msg
	}
	return strings.NewReplacer("{type}", typ, "{name}", name).Replace(msg)
}

// The families. Each row says, in one place, what ends the family's
// streams, what a data: [DONE] is in them, where clients stop reading, what
// an error looks like, and the message of every shared detector the driver
// raises for it. The wire rules are those of docs/PROTOCOLS.md (the anchor
// above the row).
var (
	// docs/PROTOCOLS.md#chat. The finish_reason is the answer's end and
	// [DONE] only the transport's: every SDK ends normally at EOF
	// (openai-node and openai-python leave their read loop, and openai-node
	// wants only a finish_reason per choice), so a stream whose every
	// choice finished and that lacks only [DONE] (Perplexity, some
	// OpenAI-compatible servers) is an info quirk (chat.no-done); one that
	// lacks both was cut.
	chatFamily = family{
		proto: Chat, aliases: []string{"chat", "openai-chat", "chat-completions", "completions"},
		rule:     "choices by index, tool calls by index (openai-node / openai-python accumulation)",
		endsBy:   "data: [DONE]; without it, the end of the body after every choice's finish_reason",
		settles:  true,
		errors:   `a top-level "error" (with or without choices), a vLLM {"object": "error"} payload, Groq's x_groq.error, finish_reason "error", an SSE event named error`,
		stops:    stopAtEnd,
		lost:     "event after [DONE]: clients stop reading at [DONE], so this is lost",
		done:     doneEnds,
		trailing: "a second data: [DONE]: clients stopped at the first",
		invalid:  "event data is not valid JSON: clients skip or fail on it",
		noEnd:    "no data: [DONE], and not every choice has a finish_reason: the stream was cut",
	}
	// docs/PROTOCOLS.md#responses
	responsesFamily = family{
		proto: Responses, aliases: []string{"responses", "openai-responses"},
		rule:   "items by output_index, checked against response.completed (openai SDKs)",
		key:    "type",
		ends:   []string{"response.completed", "response.incomplete", "response.failed"},
		endsBy: "the terminal response event: response.completed, or response.incomplete or response.failed (an answer that failed)",
		errors: `an error event ({"type": "error", "code", "message"}), which is not terminal; response.failed and response.incomplete end the stream failed`,
		stops:  stopAtEnd,
		lost:   "event after the terminal response event",
		done:   doneUntyped,
		// OpenRouter ends its Responses streams so: the SDKs read to the
		// terminal event and stop, and nothing is lost.
		trailing: "data: [DONE] after the terminal response event (a Chat Completions terminator; the SDKs stop before it)",
		invalid:  "event data is not valid JSON: VS Code rejects the whole response",
		typed:    true,
		names:    namesFollowType,
		renamed:  "SSE event name differs from the JSON type",
		noEnd:    "no response.completed, response.incomplete or response.failed event",
	}
	// docs/PROTOCOLS.md#anthropic
	anthropicFamily = family{
		proto: Anthropic, aliases: []string{"anthropic", "messages", "anthropic-messages"},
		rule:   "blocks by index, input_json_delta joined (anthropic SDKs)",
		key:    "type",
		ends:   []string{"message_stop"},
		endsBy: "message_stop (message_delta carries the stop_reason before it)",
		errors: `an error event ({"type": "error", "error": {type, message}}), after which the server closes the stream; only message_stop is terminal`,
		stops:  stopAtEnd,
		lost:   "event after message_stop",
		done:   doneStray,
		stray:  "data: [DONE] in an Anthropic stream",
		// Unnamed, so the SDKs drop it; VS Code skips [DONE].
		trailing:  "data: [DONE] after message_stop (a Chat Completions terminator the Anthropic clients skip)",
		invalid:   "event data is not valid JSON",
		names:     namesRoute,
		start:     "message_start",
		startFree: []string{"ping", "error"},
		noEnd:     "no message_stop at the end of the stream",
	}
	// docs/PROTOCOLS.md#gemini
	geminiFamily = family{
		proto: Gemini, aliases: []string{"gemini", "vertex", "google"},
		rule:   "google-genai GenerateContentResponse.text and function_calls per chunk, joined; thought parts as reasoning",
		endsBy: "the first chunk with a candidate's finishReason or a promptFeedback.blockReason, or an error chunk; there is no sentinel",
		errors: `a bare or array-wrapped {"error": {code, message, status}} chunk, which ends the stream`,
		stops:  stopNever,
		// Only chunks with candidates are late (geminiHandlers.matters).
		late:     "chunk after the one carrying finishReason: the SDKs still read it, a client stopping at the finish loses it",
		lateOnce: true,
		// Not a quirk here: @google/genai hands every data: event to JSON
		// parsing (HttpResponse.json), which throws on [DONE].
		done:    doneStray,
		stray:   "data: [DONE] in a Gemini stream (Gemini has no sentinel): @google/genai throws parsing it as JSON",
		invalid: "event data is not valid JSON: the Gemini SDKs fail on it",
		noEnd:   "no chunk with a finishReason or a promptFeedback.blockReason: the stream was cut",
	}
	// docs/PROTOCOLS.md#bedrock
	converseFamily = family{
		proto: BedrockConverse, aliases: []string{"bedrock-converse", "converse"},
		rule:         "the AWS SDKs' ConverseStream union, blocks by contentBlockIndex, toolUse input joined",
		key:          "event",
		ends:         []string{"messageStop"},
		endsBy:       "messageStop (with the stopReason), then the metadata event (usage), which closes the stream",
		exceptions:   true,
		errors:       "an exception message (its :exception-type and message) or an error message (:error-code, :error-message), which ends the stream",
		stops:        stopNever,
		late:         "{name} after messageStop",
		lateByName:   true,
		trailer:      "metadata",
		afterTrailer: "{name} after the metadata event, which ends a ConverseStream",
		invalid:      "{name} payload is not valid JSON: the AWS SDKs fail on it",
		start:        "messageStart",
		noEnd:        "no messageStop: the stream was cut",
	}
	// docs/PROTOCOLS.md#bedrock: InvokeModelWithResponseStream carries the
	// models' own events in its chunks' bytes (assembleInvoke). Anthropic's
	// follow anthropicFamily and Nova's converseFamily; this row is the
	// other models' (Titan, Llama, Mistral, Cohere Command, Claude's legacy
	// completion).
	invokeFamily = family{
		proto: BedrockInvoke, aliases: []string{"bedrock-invoke", "invoke"},
		rule:       "chunk bytes decoded into the model's own events: Anthropic's as the anthropic SDK's Bedrock client reads them, Nova's as ConverseStream events, the other models' text fields joined up to their stop reason",
		endsBy:     "the model's own end (InvokeChunkEnds): an Anthropic message_stop, Nova's messageStop, a text model's stop reason, a guardrail's intervention",
		exceptions: true,
		errors:     "an exception or error message, as in ConverseStream",
		stops:      stopNever,
		late:       "chunk after the one carrying the stop reason",
		invalid:    "decoded chunk bytes are not JSON",
		noEnd:      "no chunk with a stop reason: the stream was cut",
	}
	// docs/PROTOCOLS.md#cohere
	cohereFamily = family{
		proto: Cohere, aliases: []string{"cohere", "cohere-v2"},
		rule:    "cohere-python V2ChatStreamResponse by type, blocks and tool calls by index",
		key:     "type",
		ends:    []string{"message-end"},
		endsBy:  "message-end (finish reason, usage, error), then the data: [DONE] the API sends and the SDK stops at",
		errors:  "message-end's delta.error, or its finish_reason ERROR or TIMEOUT",
		stops:   stopAtDone,
		late:    "{type} after message-end",
		lost:    "event after data: [DONE], where the Cohere SDK stops reading",
		done:    doneStops,
		stray:   "data: [DONE] before message-end: the SDK stops here without a finish reason",
		invalid: "event data is not valid JSON: the Cohere SDK fails on it",
		names:   namesFollowType,
		renamed: "SSE event name differs from the JSON type (the SDK follows the type)",
		start:   "message-start",
		noEnd:   "no message-end: the stream was cut",
	}
	// docs/PROTOCOLS.md#ollama
	ollamaFamily = family{
		proto: Ollama, aliases: []string{"ollama"},
		rule:    "Ollama's own non-stream aggregation (content and thinking joined, tool_calls appended)",
		endsBy:  `the line with "done": true (done_reason, the counts), or an error line`,
		errors:  `an {"error": …} line, which ends the stream`,
		stops:   stopNever,
		late:    "line after the done line, which ends an Ollama stream",
		invalid: "line is not valid JSON: Ollama's clients fail on it",
		noEnd:   `no line with "done": true: the stream was cut`,
	}
)

// families lists the rows in the order --protocol help shows them.
var families = []*family{&chatFamily, &responsesFamily, &anthropicFamily, &geminiFamily,
	&converseFamily, &invokeFamily, &cohereFamily, &ollamaFamily}

// familyOf returns p's row, nil for a protocol this package does not
// assemble.
func familyOf(p Protocol) *family {
	for _, f := range families {
		if f.proto == p {
			return f
		}
	}
	return nil
}
