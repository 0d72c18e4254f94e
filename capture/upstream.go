package capture

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"strings"
	"time"
)

// UpstreamOptions configures the upstream leg of forward mode.
type UpstreamOptions struct {
	// RootCAs verifies upstream certificates; nil means the system roots.
	RootCAs *x509.CertPool
	// Insecure skips verifying upstream certificates.
	Insecure bool
	// Dial opens upstream connections; nil means a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// UpstreamTransport returns the transport forward mode sends requests
// upstream with: it verifies the real server's certificate (against
// RootCAs), speaks HTTP/2 when the server offers it, never asks for
// compression, never goes through another proxy (HTTPS_PROXY may well name
// seam itself) and, like every http.Transport, never follows redirects.
func UpstreamTransport(o UpstreamOptions) *http.Transport {
	dial := o.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return &http.Transport{
		Proxy:       nil,
		DialContext: dial,
		TLSClientConfig: &tls.Config{
			RootCAs:            o.RootCAs,
			InsecureSkipVerify: o.Insecure,
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}

// ResolveDial returns a dial function that connects to the address m maps
// a "host:port" to, and to the address itself when m has no entry, as curl
// --resolve does. The host the client named still decides the TLS name
// checked and the Host header sent.
func ResolveDial(m map[string]string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if to, ok := m[strings.ToLower(addr)]; ok {
			addr = to
		}
		return d.DialContext(ctx, network, addr)
	}
}
