// Package protocol turns one side of an exchange into an assembled message.
// It parses the side's chunks into events (each mapped back to the chunk,
// byte offset and time it came from), tells which provider protocol they
// speak, and follows that protocol's assembly rules: text, reasoning, tool
// calls, finish reason, usage and errors, and the protocol's terminal
// signal. What an assembler notices on the way (an event after the
// terminal, a tool call never closed, an error payload) is returned as an
// Anomaly with a stable detector id; package inspect turns anomalies into
// findings and adds client emulation, diffs and reports. The wire rules
// are those of docs/PROTOCOLS.md, cited by anchor (docs/PROTOCOLS.md#chat).
//
// # Assembly: one driver, a table of families, handlers per family
//
// Every streamed protocol is assembled by one driver, drive (drive.go),
// run with two things of the family's:
//
//   - its row of the families table (families.go): what ends its streams
//     (terminal events, or the semantic end its handlers mark, such as a
//     finish reason), what a data: [DONE] is in them (the terminal, due
//     after it, or stray), where clients stop reading, what an in-band
//     error looks like, the event a stream must open with, how clients
//     treat SSE names, and the message of every detector the driver
//     raises for it. The terminal rules of all the families are read there,
//     in one place; the recorder's Watch (watch.go) applies the same ends
//     on the proxy's read path, which a test checks.
//   - its handlers (a handlers value in its own file: chat.go,
//     responses.go, anthropic.go, gemini.go, bedrock.go for ConverseStream,
//     invoke.go for InvokeModelWithResponseStream, cohere.go, ollama.go):
//     how to decode a payload, its routing key, a table of event type →
//     handler func, the family's own detectors (anthropic.order,
//     responses.untyped-data, chat.no-done…) and how the message is built
//     at the end.
//
// The driver owns what every family shares, in one order for all: an
// event-stream exception or error message; data: [DONE]; events after the
// point where clients stop reading (stream.after-terminal) and a [DONE]
// there (stream.trailing-done); invalid JSON (payload.invalid-json);
// payloads without a type; SSE names against types; events after the end
// that clients still read (stream.after-end); the opening event; marking
// the terminal event; and, at the end, a stream that never reached its end
// (stream.no-terminal). Handlers see only the events that got through.
// AssembleRealtime (realtime.go), a WebSocket session rather than a
// stream, has no terminal and raises no anomalies: it is not driven.
//
// # Adding a provider
//
//  1. Its rules go in docs/PROTOCOLS.md under an anchor of its own.
//  2. A Protocol constant (protocol.go), and how Detect tells it:
//     FromURL, FromEventName, FromPayload.
//  3. A row in families.go: aliases (--protocol), rule (Protocol.Rule),
//     routing key, ends and endsBy, stops, done, errors, the opening event,
//     names, and the messages of the shared detectors it can raise.
//  4. A file with the state, the decoder (one pass over the payload) and
//     the handlers value; its assembleX calls drive; a case in assemble
//     (assemble.go), and in AssembleBody if a non-stream body exists. A
//     detector of its own is raised by the handlers' own method with its
//     id as a literal, and registered in inspect (whose
//     TestEmittedIDsAreRegistered reads the ids at every flag call).
//  5. The Watch (watch.go) must end the stream where the row does
//     (TestWatchKnowsEveryEnd; TestFamiliesWired checks the rest).
//  6. Recorded streams of it in fixtures/providers with their provenance,
//     tests on them, and scripts/inspect-compare.sh before and after to
//     show what changed for the others: nothing.
//
// # Decoding
//
// Every event payload is decoded once per side, in one pass per JSON level
// (the single-pass reader of internal/jsontext, which validates as it
// reads), into small records:
// ChatSide for Chat Completions, ObjEvent for the typed-event protocols. The
// assembler, inspect's client emulators and its detectors all read these
// records instead of re-parsing the payload with path lookups. Strings are
// substrings of the event data, so decoding allocates little. When both
// sides of an exchange carry the same events (a pass-through proxy), the
// second side reuses the first side's body and records (see ParseSide).
//
// # Decisions
//
//   - An event's Chunk is the chunk holding its first byte; its T is the time
//     of the chunk that completed it (when a client could first see it).
//   - Truth assembly keys Chat tool calls by index, as the protocol says;
//     index/id conflicts are reported rather than "fixed".
//   - Unterminated last events are assembled (they show intent) and
//     reported.
package protocol
