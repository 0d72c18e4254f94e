// Package jsontext is seam's one hand-written JSON layer: the validator
// (ScanValue, Valid, with ScanString, ScanNumber and ScanInt), the
// single-pass reader built on it (Scanner, Value, GetFields), the
// unescaper (AppendUnescaped, Unescape), the indenter (AppendIndent,
// EncodeIndent) and the comparison of numbers by value (SameNumber).
//
// # Which reader for which path
//
// Three readers serve seam, and a new line of code picks by the path it is
// on:
//
//   - A hot path, one that runs for every event or every recorded chunk,
//     uses this package: the recorder's check of an event it writes as a
//     capture's "sse" piece (tape.AppendChunk), the Decoder's fast path for
//     chunk lines (tape) and protocol's decoding of every event. There a
//     reader that validates while it routes pays for itself: protocol's
//     decoders read Chat chunks, and Responses and Anthropic events, 1.7
//     to 2.9 times as fast as with gjson's Valid and ForEach
//     (BenchmarkDecode*Scanner against *Reference in protocol), the
//     chunk-line fast path reads lines 5 to 27 times as fast as
//     encoding/json (BenchmarkChunkLine in tape), and Valid checks recorded
//     payloads about twice as fast as gjson.Valid and ten times as fast as
//     encoding/json.Valid (BenchmarkValid). A capture's request, response,
//     end and note lines are read by a fast path of the Decoder too (a
//     request line carries the body of a growing history: BenchmarkLine in
//     tape), and request bodies by the Scanner (package request: an agent's
//     request is tens or hundreds of KB, read once per exchange but every
//     byte of it: BenchmarkParse).
//   - Reading a few fields of a small document already validated, or once
//     per exchange rather than per event, uses gjson (Get, ForEach, Parse): it
//     is short to write and fast enough there. GetFields is its one-pass
//     form for the per-event paths that read many plain keys of one object.
//   - Building output (reports, --json, exports) and decoding into Go
//     structures where speed does not matter (a capture's header, the
//     lines the Decoder's fast paths leave to it, imports, options) uses
//     encoding/json: it is the
//     reference the other two are tested against and says where a document
//     is wrong. EncodeIndent is its indented encoding, made faster by
//     AppendIndent (about 5 times json.Indent, BenchmarkIndent).
//
// Code that needs a reader this package lacks adds it here, with a
// benchmark against the library it replaces and a differential fuzz target
// against that library; if a library release closes the gap, the
// hand-written code goes.
//
// # Contracts
//
// Valid and ScanValue accept exactly what encoding/json.Valid and
// gjson.Valid accept (RFC 8259; the bytes of strings are not checked for
// UTF-8, by any of the three), and ScanValue nests as deep as its bound
// allows without allocating within 64 levels (FuzzValid). The Scanner
// reads exactly what gjson.Valid accepts and yields keys and values as
// gjson's ForEach and Result do (FuzzScanner, FuzzGetFields, and
// protocol's FuzzDecode for its decoders). AppendUnescaped decodes as
// gjson does and reports when encoding/json would not decode the same
// (FuzzUnescape). AppendIndent writes json.Indent's output for compact
// JSON (FuzzAppendIndent). SameNumber agrees with big.Rat
// (FuzzSameNumber). The scanning functions are generic over string and
// []byte, for the callers of each kind.
package jsontext
