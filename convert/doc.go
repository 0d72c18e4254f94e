// Package convert turns other tools' recordings into seam captures and
// seam captures into other tools' formats.
//
// In: [Import] reads what people already have on disk and returns a
// [tape.Capture]: a raw body of any framing seam reads (SSE, NDJSON, a
// JSON-array stream, AWS event-stream, a JSON response, chunked or not),
// JSON lines (AWS SDK ConverseStream events, each event named by its
// payload's "type", which restores the event: lines the Anthropic and
// Responses wire formats carry), VCR cassettes (go-vcr v1–v4, VCR.py, Ruby
// vcr), HAR, httprr traces, nock and js-genai recordings and HTTP-snapshot
// JSON. What it reads is redacted as the recorder redacts, decoded within
// the caps of package tape, and refused with an [ImportError] that says
// what was expected ([ImportFormats]).
//
// Out: [WriteHAR] and [WriteHARs] write an HTTP Archive (WebSocket
// messages as Chrome's _webSocketMessages), [WriteGoVCR] and [WriteVCRpy]
// cassettes go-vcr (v3, v4) and VCR.py replay, bodies byte for byte, and
// [WriteCurl] a shell script that replays an exchange's request with curl,
// secrets read from the environment; [WriteDocument] picks the document
// format by the name seam export gives it, and [SideBody] is one side's body
// as its reader got it (decoded). What goes out is redacted as the recorder
// redacts.
//
// It judges nothing (package inspect does) and opens no files (package
// captures finds and sniffs them).
package convert
