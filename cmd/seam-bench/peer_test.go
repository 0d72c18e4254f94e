package main

import (
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/seam-dev/seam/bench"
)

// TestBareProxy: one stream after another through the bare proxy (a
// process of its own, as seam-bench runs it), back to back, every one read
// whole. Without full duplex, net/http closed the request body the proxy
// was still sending upstream once the response's headers were out, and
// the upstream request failed mid-stream: 7 % of such streams ended early.
func TestBareProxy(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	clock := bench.NewClock()
	up, err := bench.NewUpstream(clock)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	px, err := startPeer(peer{name: "bare proxy", argv: []string{self, bareProxyArg, "{upstream}", "127.0.0.1:{port}"}}, up.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer px.stop()
	load := bench.Load{Concurrency: 1, Duration: 2 * time.Second, Stream: bench.Stream{Events: 200}, Verify: true}
	res := load.Run(t.Context(), &http.Client{Transport: bench.NewTransport()}, clock, px.url)
	if res.Streams < 100 || res.Errors > 0 {
		t.Fatalf("%d streams read whole, %d failed: %v", res.Streams, res.Errors, res.Err)
	}
}
