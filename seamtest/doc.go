// Package seamtest brings seam into Go tests: a mock LLM upstream that
// answers from captures, and an assertion that fails a test with seam's
// findings on what the client under test received.
//
//	func TestAgent(t *testing.T) {
//		srv := seamtest.Serve(t, "testdata/agent.ndjson", seamtest.Speed(0))
//		client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("test"))
//		// ... run the agent against client ...
//		srv.Check(t)
//	}
//
// [Serve] starts an httptest.Server answering from one or more captures
// (seam record's files, .ndjson or .ndjson.zst, directories of them, or
// another tool's recordings that seam import reads) with the server seam
// serve runs (package replay): the same matching (method, path and the
// request body made canonical: key order, volatile fields and the ids
// the upstream made up do not count), the same VCR modes ([Mode]:
// none, once, new_episodes, all, passthrough), the recorded timing scaled
// by [Speed] (1, N times faster, or 0 for none), and the same faults
// ([Fault]: split-rune, drop-delta=N, status=429, stall=2s@event:40, ...).
//
// In front of it sits seam's recording proxy (package record), in
// process: every exchange a client makes through [Server.URL] is recorded,
// both sides, chunk by chunk with timing, as seam record would. With
// [Proxy], the proxy under test stands between two recording legs, as in
// seam record's sandwich, so what it received from the upstream and what
// it gave the client are compared. [Server.Check] inspects each recorded
// exchange as seam inspect does and fails the test with the findings
// (a tool call the proxy dropped is diff.tool-call-dropped, an error) and
// the first event where the client's stream departs from the upstream's;
// [Server.Exchanges] returns the same for a test to look at.
//
// Everything stops in the test's cleanup (t.Cleanup): the legs wait for
// the streams in flight, the client's idle connections are closed, and no
// goroutine is left behind. A request that matched no recorded exchange
// fails the test there too, with the reason the 404 gave, unless
// [AllowMisses].
//
// Every text a test prints from a capture or a stream shows the
// characters that act on a terminal as visible markers.
package seamtest
