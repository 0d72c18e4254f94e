package main

import (
	"os"
	"testing"
	"time"

	"github.com/seam-dev/seam/bench"
)

// TestMain lets the test binary be the bare proxies seam-bench starts, as
// seam-bench is.
func TestMain(m *testing.M) {
	if ran, err := runBare(os.Args[1:]); ran {
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestForwardPaths runs streams over the forward group's direct TLS path
// and through its bare forward proxy (a process of its own): every event
// of every stream reaches the client byte for byte, and the client reads
// over HTTP/2 on both paths. The client of the proxy trusts only seam's CA, so a proxy that
// tunnelled the upstream's TLS instead of intercepting it would fail every
// stream.
func TestForwardPaths(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	clock := bench.NewClock()
	dir := t.TempDir()
	r, err := newTLSRoute(clock, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.up.Close()
	paths := forwardPaths(options{}, r, dir, "", self)
	if len(paths) != 2 || paths[0].start != nil {
		t.Fatalf("paths %v, want direct TLS and the bare forward proxy", paths)
	}
	load := bench.Load{Concurrency: 4, Duration: 300 * time.Millisecond, Stream: bench.Stream{Events: 20}, Verify: true}
	for i, p := range paths {
		res, _, _, err := through(t.Context(), options{}, nil, clock, p, i, load)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if res.Streams == 0 || res.Errors > 0 {
			t.Fatalf("%s: %d streams read whole, %d failed: %v", p.name, res.Streams, res.Errors, res.Err)
		}
		if res.Proto != "HTTP/2.0" {
			t.Errorf("%s: the client spoke %q, want HTTP/2.0", p.name, res.Proto)
		}
	}
}
