package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seam-dev/seam/bench"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tlsca"
)

// bareForwardArg runs seam-bench as the bare forward proxy (see -forward).
const bareForwardArg = "__bare-forward"

// tlsRoute is the way to the TLS upstream of the forward runs (-forward):
// the upstream, its CA's certificate as a file (for seam's --ca-file),
// seam's CA directory, and the roots a client trusts directly (the
// upstream's CA) and through a forward proxy (seam's).
type tlsRoute struct {
	up      *bench.Upstream
	upCA    string
	caDir   string
	direct  *x509.CertPool
	proxied *x509.CertPool
}

// newTLSRoute starts the TLS upstream (HTTP/2 when offered, a certificate
// for 127.0.0.1 from a CA of its own) and makes seam's CA, both under dir.
func newTLSRoute(clock bench.Clock, dir string) (*tlsRoute, error) {
	upCA, err := newCA(dir, "upstream")
	if err != nil {
		return nil, err
	}
	leaf, err := upCA.Leaf("127.0.0.1")
	if err != nil {
		return nil, fmt.Errorf("upstream certificate: %w", err)
	}
	ca, err := newCA(dir, "seam")
	if err != nil {
		return nil, err
	}
	up, err := bench.NewTLSUpstream(clock, *leaf)
	if err != nil {
		return nil, err
	}
	r := &tlsRoute{up: up, upCA: upCA.CertPath(), caDir: filepath.Dir(ca.CertPath()), direct: x509.NewCertPool(), proxied: x509.NewCertPool()}
	r.direct.AppendCertsFromPEM(upCA.CertPEM())
	r.proxied.AppendCertsFromPEM(ca.CertPEM())
	return r, nil
}

// newCA makes a CA (name's) in a new directory under dir.
func newCA(dir, name string) (*tlsca.Authority, error) {
	d, err := os.MkdirTemp(dir, name+"-ca-")
	if err != nil {
		return nil, err
	}
	ca, _, err := tlsca.Open(d)
	if err != nil {
		return nil, fmt.Errorf("%s CA: %w", name, err)
	}
	return ca, nil
}

// host is the upstream's host:port, the one host the forward proxies
// intercept.
func (r *tlsRoute) host() string { return strings.TrimPrefix(r.up.URL(), "https://") }

// transport sets t up for this route: TLS trusting the upstream's CA
// directly, or seam's through a forward proxy, HTTP/2 when offered, as a
// configured client would.
func (r *tlsRoute) transport(t *http.Transport, proxy *url.URL) {
	roots := r.direct
	if proxy != nil {
		roots = r.proxied
		t.Proxy = http.ProxyURL(proxy)
	}
	t.TLSClientConfig = &tls.Config{RootCAs: roots}
	t.ForceAttemptHTTP2 = true
}

// forwardPaths lists the paths of the forward runs: direct TLS, then seam
// record --forward plain and compressed (as o asks), then, with bare, a
// bare forward proxy (self, run with bareForwardArg).
func forwardPaths(o options, r *tlsRoute, dir, bin, self string) []path {
	paths := []path{{name: "direct TLS", tls: r}}
	seamPath := func(name, ext string) path {
		return path{name: name, tls: r, start: func(_ string, i int) (*proxy, error) {
			capture := filepath.Join(dir, fmt.Sprintf("run%d%s", i, ext))
			p, err := bench.StartSeamForward(bin, r.host(), r.caDir, r.upCA, capture, strings.Fields(o.record)...)
			if err != nil {
				return nil, err
			}
			cpu := func() time.Duration {
				st := p.Cmd.ProcessState
				return st.UserTime() + st.SystemTime()
			}
			return &proxy{url: p.URL, pid: p.Pid(), stop: p.Stop, capture: capture, cpu: cpu, forward: true}, nil
		}}
	}
	if o.plain {
		paths = append(paths, seamPath("seam --forward", ".ndjson"))
	}
	if o.zst {
		paths = append(paths, seamPath("seam --forward .zst", ".ndjson.zst"))
	}
	if self != "" {
		bare := peer{name: "bare forward proxy", argv: []string{self, bareForwardArg, "{upstream}", r.caDir, r.upCA, "127.0.0.1:{port}"}}
		paths = append(paths, path{name: bare.name, tls: r, start: func(upstream string, _ int) (*proxy, error) {
			p, err := startPeer(bare, upstream)
			if p != nil {
				p.forward = true
			}
			return p, err
		}})
	}
	return paths
}

// bareForward is the bare forward proxy: seam's own CONNECT handling and
// TLS interception (record.Forward with seam's CA in caDir), each request
// passed to the upstream (over TLS trusting the CA in caFile, HTTP/2 when
// offered) by an httputil.ReverseProxy that flushes every write and
// records nothing. It is what forward mode costs before recording.
func bareForward(upstream, caDir, caFile, listen string) error {
	u, err := url.Parse(upstream)
	if err != nil {
		return err
	}
	ca, _, err := tlsca.Open(caDir)
	if err != nil {
		return err
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s: no certificate", caFile)
	}
	list, err := record.NewInterceptList([]string{u.Host}, false)
	if err != nil {
		return err
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(u) },
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
		Transport: &http.Transport{MaxIdleConnsPerHost: 1024, IdleConnTimeout: 90 * time.Second, DisableCompression: true,
			TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true},
	}
	fwd, err := record.NewForward(record.ForwardOptions{Handler: fullDuplex(rp), Intercept: list, Authority: ca})
	if err != nil {
		return err
	}
	return serveUntilInterrupted(&http.Server{Addr: listen, Handler: fwd}, func() { fwd.Shutdown(context.Background()) })
}
