package bench

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tlsca"
)

// tlsRig is an upstream over TLS and seam's forward proxy intercepting it,
// with a client transport for each way there: directly over TLS trusting
// the upstream's CA, and through the proxy trusting seam's.
type tlsRig struct {
	clock    Clock
	upstream *Upstream
	proxy    *ForwardProxy
	capture  string
	direct   *http.Client
	forward  *http.Client
}

func newTLSRig(tb testing.TB) *tlsRig {
	tb.Helper()
	r := &tlsRig{clock: NewClock(), capture: filepath.Join(tb.TempDir(), "forward.ndjson")}
	upCA, _, err := tlsca.Open(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	leaf, err := upCA.Leaf("127.0.0.1")
	if err != nil {
		tb.Fatal(err)
	}
	up, err := NewTLSUpstream(r.clock, *leaf)
	if err != nil {
		tb.Fatal(err)
	}
	r.upstream = up
	tb.Cleanup(func() {
		if err := up.Close(); err != nil {
			tb.Error(err)
		}
	})
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(upCA.CertPEM())
	p, err := NewForwardProxy(tb.TempDir(), strings.TrimPrefix(up.URL(), "https://"), roots, r.capture)
	if err != nil {
		tb.Fatal(err)
	}
	r.proxy = p
	dt := NewTransport()
	dt.TLSClientConfig = &tls.Config{RootCAs: roots}
	dt.ForceAttemptHTTP2 = true
	ft := p.Transport()
	r.direct, r.forward = &http.Client{Transport: dt}, &http.Client{Transport: ft}
	tb.Cleanup(func() {
		dt.CloseIdleConnections()
		ft.CloseIdleConnections()
		if err := p.Close(); err != nil {
			tb.Error(err)
		}
	})
	return r
}

// client returns a new client taking the named path: "direct-tls" or
// "forward-tls".
func (r *tlsRig) client(path string) *Client {
	h := r.direct
	if path == "forward-tls" {
		h = r.forward
	}
	return &Client{HTTP: h, Clock: r.clock}
}

// tlsPaths are the two ways to the TLS upstream the forward benchmarks
// compare.
func tlsPaths() []string { return []string{"direct-tls", "forward-tls"} }

// BenchmarkForwardTLS compares seam record --forward (CONNECT, TLS
// terminated with a minted certificate, recorded, TLS again upstream) with
// a direct TLS connection to the same upstream: per-event latency of a
// lockstep stream, and whole 100-event streams 50 at a time (streams/s).
// HTTP/2 is used on every TLS leg, as clients and servers offering it do.
func BenchmarkForwardTLS(b *testing.B) {
	for _, path := range tlsPaths() {
		b.Run("chunk/mode=lockstep/path="+path, func(b *testing.B) {
			r := newTLSRig(b)
			chunkLatency(b, r.client(path), r.upstream, r.upstream.URL(), 0, true)
		})
	}
	for _, path := range tlsPaths() {
		b.Run("streams50/path="+path, func(b *testing.B) {
			r := newTLSRig(b)
			streams(b, func() *Client { return r.client(path) }, r.upstream.URL(), 50, 100)
		})
	}
}

// TestForwardHarness checks, cheaply, that a stream reaches the client byte
// for byte both ways and that the proxy's capture holds it with its host:
// both sides the bytes the client read, complete, hashes verified.
func TestForwardHarness(t *testing.T) {
	r := newTLSRig(t)
	var forwarded bytes.Buffer
	for _, path := range tlsPaths() {
		c := r.client(path)
		c.Verify = true
		if path == "forward-tls" {
			c.Copy = &forwarded
		}
		if _, err := c.Stream(t.Context(), r.upstream.URL(), Stream{Events: 20}); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if err := r.proxy.Close(); err != nil {
		t.Fatal(err)
	}
	capt, err := tape.ReadFile(r.capture)
	if err != nil {
		t.Fatal(err)
	}
	if len(capt.Exchanges) != 1 || len(capt.Warnings) > 0 {
		t.Fatalf("%d exchanges captured, want 1; warnings %v", len(capt.Exchanges), capt.Warnings)
	}
	x := capt.Exchanges[0]
	if x.Request.Host != strings.TrimPrefix(r.upstream.URL(), "https://") || x.Request.Headers["user-agent"] == nil {
		t.Errorf("request host %q, headers %v", x.Request.Host, x.Request.Headers)
	}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(s)
		if !bytes.Equal(sd.Body(), forwarded.Bytes()) || forwarded.Len() == 0 {
			t.Errorf("%s side: recorded %d bytes, not the %d the client read", s, len(sd.Body()), forwarded.Len())
		}
		if sd.End == nil || sd.End.Outcome != tape.Complete || sd.End.SHA256 == "" {
			t.Errorf("%s end %+v, want complete with its hash", s, sd.End)
		}
	}
}
