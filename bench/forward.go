package bench

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tlsca"
)

// ForwardProxy is seam record --forward in one process: a [record.Forward]
// proxy on 127.0.0.1 decrypting the tunnels to one intercepted host:port
// with seam's CA, in front of a forward-mode [record.Recorder] that writes
// a capture file.
type ForwardProxy struct {
	srv *server
	fwd *record.Forward
	out *captureFile
	ca  *tlsca.Authority

	closeOnce sync.Once
	closeErr  error
}

// NewForwardProxy starts a forward proxy with its CA in caDir, intercepting
// host (host:port), verifying upstreams against roots, and capturing to the
// new file at path.
func NewForwardProxy(caDir, host string, roots *x509.CertPool, path string) (*ForwardProxy, error) {
	ca, _, err := tlsca.Open(caDir)
	if err != nil {
		return nil, err
	}
	list, err := record.NewInterceptList([]string{host}, false)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	out, err := createCapture(path, tape.Header{V: tape.Version, Seam: "bench", ID: "bench-forward", Started: start.UTC(), Engine: tape.Engine{Profile: "passthrough"}})
	if err != nil {
		return nil, err
	}
	rec, err := record.New(record.Options{Writer: out.w, Start: start, Transport: record.UpstreamTransport(record.UpstreamOptions{RootCAs: roots})})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("new recorder: %w", err), out.close())
	}
	fwd, err := record.NewForward(record.ForwardOptions{Handler: rec, Intercept: list, Authority: ca})
	if err != nil {
		return nil, errors.Join(err, out.close())
	}
	srv, err := serve(fwd)
	if err != nil {
		return nil, errors.Join(err, out.close())
	}
	return &ForwardProxy{srv: srv, fwd: fwd, out: out, ca: ca}, nil
}

// ProxyURL returns the proxy's address as HTTPS_PROXY takes it.
func (p *ForwardProxy) ProxyURL() *url.URL {
	u, _ := url.Parse(p.srv.url)
	return u
}

// Roots returns a pool trusting seam's CA, for the clients of the proxy.
func (p *ForwardProxy) Roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.ca.CertPEM())
	return pool
}

// Transport returns a client transport that goes through the proxy and
// trusts seam's CA, HTTP/2 when offered, as a configured client would.
func (p *ForwardProxy) Transport() *http.Transport {
	t := NewTransport()
	t.Proxy = http.ProxyURL(p.ProxyURL())
	t.TLSClientConfig = &tls.Config{RootCAs: p.Roots()}
	t.ForceAttemptHTTP2 = true
	return t
}

// Close stops the proxy after its streams have ended, then writes out and
// closes the capture. Calls after the first return its result.
func (p *ForwardProxy) Close() error {
	p.closeOnce.Do(func() {
		err := p.srv.close()
		ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		if ferr := p.fwd.Shutdown(ctx); ferr != nil {
			err = errors.Join(err, fmt.Errorf("shut down decrypted tunnels: %w", ferr))
		}
		p.closeErr = errors.Join(err, p.out.close())
	})
	return p.closeErr
}
