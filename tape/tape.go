// Package tape is seam's capture format, version 3: one JSON object per line,
// appended in the order things happened, many exchanges per file, plain or
// zstd-compressed.
//
// A capture starts with a [Header] line and then holds, per exchange, a
// [Request], a [Response] and [Chunk] lines per side, and an [End] per side.
// Chunks are the source of truth: parsed events are derived from them.
// A client chunk byte-identical to the upstream chunk it came from is written
// in that chunk's line (passthrough) or as a reference to it, and each
// side's end line carries the SHA-256 of the side's body, which the
// [Decoder] verifies. A chunk's SSE events whose data
// is JSON are stored as that JSON ("sse" pieces), not as escaped strings, so
// a capture is about the size of the wire bytes. Version 1 and 2 captures
// read as they are. FORMAT.md at the repository root documents every line type and field.
//
// Besides the standard library and package sse, tape uses
// github.com/klauspost/compress/zstd for compressed captures.
package tape

import (
	"sort"
	"time"
)

// Version is the capture format version this package writes.
const Version = 3

// Side names one of the two response streams of an exchange.
type Side string

// The two sides of an exchange.
const (
	// Upstream is the response as seam received it from the upstream.
	Upstream Side = "upstream"
	// Client is the response as seam wrote it to the client.
	Client Side = "client"
)

// Outcome says how one side's stream ended.
type Outcome string

// Outcomes, as written in [End] lines.
const (
	// Complete: a terminal event was seen, then EOF (or a non-stream body ended).
	Complete Outcome = "complete"
	// ClientClosedAfterDone: the client hung up after the terminal event; a success,
	// as SDKs close right after [DONE].
	ClientClosedAfterDone Outcome = "client_closed_after_done"
	// ClientAborted: the client hung up before the terminal event.
	ClientAborted Outcome = "client_aborted"
	// UpstreamError: the upstream failed (unreachable, reset mid-stream); End.Error says how.
	UpstreamError Outcome = "upstream_error"
	// Truncated: the upstream reached EOF without a terminal event.
	Truncated Outcome = "truncated"
	// Timeout: a deadline ended the stream.
	Timeout Outcome = "timeout"
	// RecorderShutdown: seam's own shutdown cut the stream (it was still
	// open when the grace for streams in flight ran out); neither the
	// client nor the upstream ended it.
	RecorderShutdown Outcome = "recorder_shutdown"
	// RecorderError: recording the exchange failed in seam itself (a panic
	// while tapping it); the exchange was broken off, End.Error says how.
	RecorderError Outcome = "recorder_error"
)

// Success reports whether o is an outcome in which the stream finished as intended.
func (o Outcome) Success() bool { return o == Complete || o == ClientClosedAfterDone }

// Headers holds HTTP header values keyed by lower-case name. Values of headers
// outside the redaction allowlist are "[redacted]".
type Headers map[string][]string

// Get returns the first value of the header name (lower case, as headers
// are stored), or "" when there is none.
func (h Headers) Get(name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Engine records the shaping engine that produced the client side: a profile
// name and the value of every switch, so a replay can rebuild it.
type Engine struct {
	Profile  string            `json:"profile"`
	Switches map[string]string `json:"switches,omitempty"`
}

// Header is the first line of a capture.
type Header struct {
	V    int    `json:"v"`
	Seam string `json:"seam"`
	ID   string `json:"id"`
	// Part numbers the files of a recording split by seam record --rotate,
	// from 1; 0 (not written) for a recording in one file. The files of
	// one recording share its ID and Started.
	Part int `json:"part,omitempty"`
	// Started is the wall-clock start; the zero value means unknown (an
	// imported recording that carries no time) and is not written.
	Started time.Time `json:"started"`
	// Upstream is the base URL every request was forwarded to, or "" for a
	// forward-proxy recording, whose requests each name their scheme and host.
	Upstream string `json:"upstream"`
	// Insecure is set when upstream certificates were not verified
	// (seam record --insecure).
	Insecure bool   `json:"insecure,omitempty"`
	Engine   Engine `json:"engine"`
	// Imported is set on a capture made by `seam import` from another
	// tool's recording; nil for a recording seam made.
	Imported *Imported `json:"imported,omitempty"`
}

// Imported says where an imported capture came from and how much of its
// timing is real.
type Imported struct {
	// Format names the source format ("har", "go-vcr cassette v2", ...).
	Format string `json:"format"`
	// File is the source file's name.
	File string `json:"file"`
	// Timing is TimingNone or TimingPartial.
	Timing string `json:"timing"`
}

// Timing of an imported capture, as written in [Imported].Timing.
const (
	// TimingNone: the source records no times; every t is 0.
	TimingNone = "none"
	// TimingPartial: the source records when each exchange started and
	// ended (and, when it has it, its first byte), but not when each chunk
	// arrived: chunks carry the time of the first byte or of the request.
	TimingPartial = "partial"
)

// Request is the client's request as seam received it (secrets redacted).
// In a sandwich recording (a black-box proxy between two seam listeners)
// the exchange has a second request, with Side set to Upstream: the request
// as the proxy sent it on to the upstream.
type Request struct {
	Ex int `json:"ex"`
	// Side is "" for the client's request and Upstream for the request a
	// proxy under test sent upstream.
	Side   Side   `json:"side,omitempty"`
	T      int64  `json:"t"`
	Method string `json:"method"`
	// Scheme ("https" or "http") and Host (host, and port when not the
	// scheme's default) say where the request went when the capture header
	// names no single upstream (a forward-proxy recording); empty otherwise.
	Scheme  string  `json:"scheme,omitempty"`
	Host    string  `json:"host,omitempty"`
	URL     string  `json:"url"`
	Headers Headers `json:"headers"`
	Body    []byte  `json:"-"` // "body" when valid UTF-8, else "body_b64"
	// BodyTruncated is set when the body was longer than the recorder keeps.
	BodyTruncated bool `json:"body_truncated,omitempty"`
	// Paired, on the upstream request of a sandwich, says how the request
	// the proxy under test sent was paired with the client's: PairedHeader,
	// PairedContent, PairedOrder or PairedNone; "" when not recorded (older
	// captures).
	Paired string `json:"paired,omitempty"`
}

// How the upstream request of a sandwich was paired with the client's
// (Request.Paired).
const (
	// PairedHeader: the proxy under test passed seam's exchange header on.
	PairedHeader = "header"
	// PairedContent: the proxy dropped the header; the request was paired
	// by its content (the same body, or the one whose text it carries).
	PairedContent = "content"
	// PairedOrder: the proxy dropped the header and no client request's
	// content matched: the oldest waiting was taken, a guess.
	PairedOrder = "order"
	// PairedNone: no client request was waiting: the proxy made this
	// request of its own.
	PairedNone = "none"
)

// Response is one side's status line and headers.
type Response struct {
	Ex      int     `json:"ex"`
	Side    Side    `json:"side"`
	T       int64   `json:"t"`
	Status  int     `json:"status"`
	Headers Headers `json:"headers"`
}

// ChunkAt returns the index of the chunk of a side's chunks (in body
// order) that holds byte off of its body: the last one starting at or
// before off (0 when off comes before them all), -1 when there are none.
func ChunkAt(chunks []Chunk, off int64) int {
	if len(chunks) == 0 {
		return -1
	}
	i := sort.Search(len(chunks), func(i int) bool { return chunks[i].Off > off })
	return max(i-1, 0)
}

// Chunk is exactly one Read from the upstream or one Write to the client.
type Chunk struct {
	Ex   int   `json:"ex"`
	Side Side  `json:"side"`
	T    int64 `json:"t"`
	// Off is the byte offset of Data in that side's body.
	Off  int64  `json:"off"`
	Data []byte `json:"-"` // "sse" pieces or "data" when valid UTF-8, else "data_b64"
	// Ref is set on a client chunk whose bytes are upstream bytes of the
	// same exchange (v2): the line holds "ref", the upstream offset RefOff
	// of those bytes, and "len", instead of the bytes. Only an
	// [ExchangeWriter] sets it, after the upstream chunk it refers to (the
	// last, or the one before it, v3); the [Decoder] fills Data from the
	// upstream side and clears it, so a chunk read and written again holds
	// its bytes.
	Ref    bool  `json:"-"`
	RefOff int64 `json:"-"`
	// refLen is the "len" of a reference not yet resolved by the Decoder.
	refLen int64
	// Mirrored is set on an upstream chunk whose bytes the client was
	// written unchanged, as its chunk at offset MirrorOff at time MirrorT
	// (v3): the line carries "client":[MirrorT,MirrorOff] and stands for
	// that client chunk too, a reference to this one. Only an
	// [ExchangeWriter] sets it; the [Decoder] returns the client chunk as a
	// record of its own, right after this one, and clears it.
	Mirrored  bool  `json:"-"`
	MirrorT   int64 `json:"-"`
	MirrorOff int64 `json:"-"`
	// mirror marks the client chunk the Decoder made of a mirrored line:
	// its Data is set, its Ref only keeps the two sides' hashes in step.
	mirror bool
}

// End closes one side of an exchange; there is one per side on every path.
type End struct {
	Ex      int     `json:"ex"`
	Side    Side    `json:"side"`
	T       int64   `json:"t"`
	Outcome Outcome `json:"outcome"`
	Bytes   int64   `json:"bytes"`
	Error   string  `json:"error,omitempty"`
	// SHA256 is the hex SHA-256 of the side's body, the data of its chunks
	// in order (v2). It is empty when the capture does not hold all of it.
	SHA256 string `json:"sha256,omitempty"`
	// Unrecorded is how many of Bytes went over the wire but are not in the
	// capture: the capture writer fell behind and stopped recording this
	// exchange's data, or the recorder withheld the rest of the side (a
	// note says why).
	Unrecorded int64 `json:"unrecorded,omitempty"`
}

// Note is a free-text annotation on an exchange.
type Note struct {
	Ex   int    `json:"ex"`
	T    int64  `json:"t"`
	Text string `json:"text"`
}
