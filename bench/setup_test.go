package bench

import (
	"net/http"
	"path/filepath"
	"testing"
)

// rig is an upstream and a proxy in front of it, with a client transport.
type rig struct {
	clock    Clock
	upstream *Upstream
	proxy    *Proxy
	capture  string // the proxy's capture file
	http     *http.Client
}

// newRig starts an upstream and a recording proxy for tb and stops them when
// tb ends.
func newRig(tb testing.TB) *rig {
	tb.Helper()
	r := &rig{clock: NewClock(), capture: filepath.Join(tb.TempDir(), "bench.ndjson")}
	up, err := NewUpstream(r.clock)
	if err != nil {
		tb.Fatal(err)
	}
	r.upstream = up
	tb.Cleanup(func() {
		if err := up.Close(); err != nil {
			tb.Error(err)
		}
	})
	p, err := NewProxy(up.URL(), r.capture)
	if err != nil {
		tb.Fatal(err)
	}
	r.proxy = p
	tr := NewTransport()
	r.http = &http.Client{Transport: tr}
	tb.Cleanup(func() {
		tr.CloseIdleConnections()
		if err := p.Close(); err != nil {
			tb.Error(err)
		}
	})
	return r
}

// url returns the base URL of the named path: "direct" or "proxy".
func (r *rig) url(path string) string {
	if path == "proxy" {
		return r.proxy.URL()
	}
	return r.upstream.URL()
}

// client returns a new client of the rig's upstream.
func (r *rig) client() *Client { return &Client{HTTP: r.http, Clock: r.clock} }

// paths returns the two ways to the upstream that every benchmark compares.
func paths() []string { return []string{"direct", "proxy"} }
