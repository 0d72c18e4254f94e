// Package record is seam's recording reverse proxy.
//
// A [Recorder] is an http.Handler that forwards every request to one upstream
// with net/http/httputil.ReverseProxy and, on the way, appends to a capture
// (package tape) the request, the upstream's response as received — each Read
// with its offset and monotonic time — the response as written to the client
// — each Write likewise — and how each side ended.
//
// Streaming is never buffered: the upstream body is tapped on the read path
// and every Read is forwarded and flushed at once. Between the two sides sits
// a [shape.Engine]; the passthrough engine makes the client bytes equal the
// upstream bytes with the same boundaries. Secrets are redacted before
// anything reaches the writer ([Options.Redaction], a *tape.Redaction):
// headers, query and request body by its rules, and each side's chunks
// through a tape.Masker, which masks the request's secret values where a
// response echoes them, at the same length, holding back a chunk whose end
// may begin one. The request that goes upstream and the bytes the client
// gets are not modified.
//
// Content encoding: in passthrough the client's Accept-Encoding goes
// upstream untouched, the capture keeps the body's wire bytes with their
// Content-Encoding, and the terminal watch that decides each side's outcome
// reads a decoded copy (package coding): a compressed body cut before its
// end is recorded truncated, one that does not decode as an upstream
// error. The masker cannot see a secret inside compressed bytes, so a
// compressed side is written through an echo guard that looks for the
// request's secrets in the decoded copy and holds each wire chunk back
// until what it decodes to is known clean; the chunks of a body that
// echoes a secret are withheld from there on (the end line counts them as
// unrecorded), with a note. In passthrough such a side's client watch
// decodes its own copy instead of being counted from the upstream side's
// (the guard checks what it decodes). An engine that
// reshapes the stream asks the upstream for identity
// instead, and writes a note saying so; should the upstream compress
// anyway, the engine gets the body decoded and the client gets it without
// Content-Encoding, while the upstream side keeps the wire bytes.
//
// Recording costs the stream as little as it can: each exchange writes
// through a tape.ExchangeWriter, whose queue never makes it wait (when the
// disk falls behind, the exchange's data stops being recorded and the
// capture says so); an upstream chunk is recorded after its bytes were
// written and flushed to the client; a client write that is the upstream
// chunk just read (passthrough) is recorded as a reference to it, and its
// SSE events are counted from the upstream side's parse instead of parsing
// the same bytes again. The read buffer of a shaping engine comes from the
// proxy's buffer pool.
//
// A panic while recording one exchange (a tap choking on hostile bytes) is
// recovered on whichever goroutine it happens, the handler's or one no
// server recovers (the transport's, httputil's WebSocket copiers, a
// decoder's): that exchange is broken off and its end lines say
// recorder_error with the panic, and every other exchange is recorded
// whole (guard.go). Streams still open when seam shuts down end as
// recorder_shutdown: the servers cancel their requests with [ErrShutdown]
// as the cause.
//
// A [Recording] runs the proxy as seam record does: one [Endpoint] per
// listener (one, or two around a proxy under test), each serving a
// Recorder through package listen's server, all writing one capture; it
// stops by letting streams in flight finish for a grace period, then
// cutting them as recorder_shutdown. Its capture may be split into files
// by size or age ([Rotation], files.go): new exchanges go to the next file
// once one is full, and a file closes, synced, when its last exchange
// ends, so no exchange is split; RecordingOptions.OnClosed hears each
// closed file (seam record --upload ships it) and Summary.File names the
// file an exchange went to. RecordingOptions.OnRecorded hears each
// exchange, whole, once its last line is written ([Recorded], through
// tape.Keep, within KeepMax bytes): what an exporter reads instead of the
// file.
//
// In a sandwich ([Front] and [Back] legs around a proxy under test) each
// request the proxy sends upstream is paired with the client's by the
// [ExchangeHeader], or by its content when the proxy drops the header
// (pairing.go); the upstream request line records which.
//
// A [Forward] proxy puts a Recorder with no upstream behind HTTPS_PROXY for
// clients whose base URL cannot change: it decrypts CONNECT tunnels to the
// hosts of an [InterceptList] with certificates from package tlsca, tunnels
// the others byte for byte, and hands the decrypted requests, their URLs
// made absolute, to the recorder, which records each exchange's scheme and
// host. A request that switches to WebSocket (101) is recorded frame by
// frame in both directions (package wsframe cuts the frames); the engine
// does not run on it. Serving other machines, forward mode connects only
// to public addresses unless the user named the host ([GuardedDial]).
package record
