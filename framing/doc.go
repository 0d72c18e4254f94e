// Package framing reads the ways a response body carries a stream of
// events, beside package sse: newline-delimited JSON (Ollama's
// application/x-ndjson), a JSON array that grows as the stream runs
// (Gemini's streamGenerateContent without alt=sse), and AWS event-stream
// binary messages (Bedrock's application/vnd.amazon.eventstream). An SSE
// adapter gives package sse's parser the same shape, so a reader handles
// every framing alike.
//
// Every parser is a push parser, fed the body in whatever reads it arrived
// in, and yields each event as a Frame with the byte offsets of its bytes
// in the body, so a finding can still point at chunk, byte and time. The
// event's data is handed over as a view valid during the callback, as
// sse.Parser.FeedView does. What the parser cannot read (a message whose
// CRC does not match, a body cut inside a frame, bytes that are not the
// framing at all) is reported as a Problem through the OnProblem callback,
// never as a panic or an error that stops the stream: the parser resumes
// at the next readable frame when there is one.
//
// # Decisions
//
//   - NDJSON is line based, as Ollama's own client reads it (one JSON text
//     per line, bufio.Scanner style): blank lines are skipped, a CR before
//     the LF is dropped, a last line without LF is still an event, and a
//     line that is not JSON is an event whose data the protocol layer will
//     find invalid.
//   - A JSON array stream is read element by element with string-aware
//     bracket counting, so pretty-printed elements spanning lines work; the
//     body must be one array, and what follows its closing bracket is a
//     Problem.
//   - Event-stream messages: the prelude is checked before a message is
//     buffered (prelude CRC, 16 ≤ total length ≤ 24 MiB, headers inside the
//     message), so a corrupt length never makes the parser wait for
//     gigabytes; after a corrupt prelude the parser resynchronises on the
//     next offset holding a valid one. Both CRCs and the header structure
//     (the ten value types) are checked with the hardware CRC and one scan,
//     because the AWS SDK's eventstream decoder, which reads a message byte
//     by byte through a hashing reader, is too slow for inspect's target on
//     Bedrock's small messages; that decoder is the reference the parser is
//     tested and fuzzed against, and Frame.Headers returns its types. A
//     message with a bad CRC or header is reported and not emitted: the AWS
//     SDKs fail the stream on it, so its content is not evidence.
package framing
