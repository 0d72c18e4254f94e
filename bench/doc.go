// Package bench measures what seam's recording proxy costs a stream, against
// a direct connection to the same upstream, on loopback.
//
// The harness has three parts, all in one process:
//
//   - [Upstream] is a synthetic OpenAI Chat Completions server on 127.0.0.1.
//     It streams the number of events a request asks for, each about 260
//     bytes like a real chat.completion.chunk, flushing after every event,
//     then a finish event and data: [DONE]. Events go back to back, at a fixed
//     interval, or in lockstep with the client (the next event is sent only
//     after the client has received the previous one, so every event meets
//     an idle pipeline as a token of a real model does, without waiting on a
//     timer).
//   - Every content event carries the time it was sent on a [Clock] that the
//     upstream and the [Client] share, so the client computes each event's
//     latency as its receive time minus its send time.
//   - [Proxy] runs a [record.Recorder] on 127.0.0.1 that writes a real
//     capture file through a [tape.Writer], as seam record does.
//
// The benchmarks in this package's tests run every measurement twice, with
// path=direct (client → upstream) and path=proxy (client → proxy →
// upstream), so the proxy's added cost is the difference of the two:
//
//   - BenchmarkTTFB: one op is a one-event stream; reports the time from
//     sending the request to receiving the first event (p50-ns, p99-ns).
//   - BenchmarkChunkLatency: one op is one event of a long stream, in
//     lockstep or paced every millisecond; reports send → receive latency
//     per event (p50-ns, p99-ns) and allocations per event.
//   - BenchmarkStreams50: one op is a whole 100-event stream, 50 streams at a
//     time, events back to back; reports streams/s, the stream duration
//     (stream-p50-ns, stream-p99-ns) and the event latency under that load.
//   - BenchmarkHeldStreams: one op is a batch of 1,000 or 5,000 streams
//     started together and held open at once (60 events, one every 100 ms),
//     every byte checked; path=seam-record runs the real seam binary as its
//     own process, for the file descriptors. Reports the peak number of
//     streams open at one moment, event latency under that load, and the
//     proxy's peak RSS; it fails if the capture lost an exchange or a byte.
//
// BenchmarkForwardTLS compares seam record --forward over TLS with a direct
// TLS connection to a TLS upstream ([NewTLSUpstream], [ForwardProxy]):
// path=direct-tls and path=forward-tls, per-event latency in lockstep
// (chunk/...) and whole streams 50 at a time (streams50/...), HTTP/2 on
// every TLS leg.
//
// Run them from the repository root, for example:
//
//	go test ./bench -run XXX -bench . -benchtime 1s -count 3
//	go test ./bench -run XXX -bench ChunkLatency/mode=lockstep -cpuprofile cpu.out
//
// Every run allocates in one process the client, the proxy and the upstream,
// so allocs/op of path=proxy minus that of path=direct is what the proxy
// allocates. TestHarness checks, cheaply, that a stream through each path
// arrives byte for byte and that the capture holds it, so the harness cannot
// rot unnoticed.
package bench
