// Package protocol turns one side of an exchange into an assembled message.
// It parses the side's chunks into events (each mapped back to the chunk,
// byte offset and time it came from), tells which provider protocol they
// speak, and follows that protocol's assembly rules: text, reasoning, tool
// calls, finish reason, usage and errors, and the protocol's terminal
// signal. What an assembler notices on the way (an event after the
// terminal, a tool call never closed, an error payload) is returned as an
// Anomaly with a stable detector id; package inspect turns anomalies into
// findings and adds client emulation, diffs and reports.
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
