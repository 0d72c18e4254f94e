package listen

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/seam-dev/seam/visible"
)

// Server timeouts. Neither cuts a live stream: there is no ReadTimeout or
// WriteTimeout, so a request body or a response may take as long as it
// takes. Only a client that is slow to send its headers, and a keep-alive
// connection idle between requests, are let go.
const (
	defaultReadHeaderTimeout = 30 * time.Second
	defaultIdleTimeout       = 60 * time.Second
)

// Options configures the HTTP servers seam runs (record's legs, serve).
type Options struct {
	// Listen is the address given with --listen; its host name, when it is
	// one, is accepted as a Host.
	Listen string
	// AllowHosts are the extra Host names --allow-host accepts; "*"
	// accepts any.
	AllowHosts []string
	// Forward says the server is a forward proxy: CONNECT and
	// absolute-form requests (http://host/path), which name the host they
	// are for and which no web page can send, are not Host-checked.
	Forward bool
	// ReadHeader and Idle override the timeouts, for tests; zero means
	// the default.
	ReadHeader, Idle time.Duration
	// Log receives one line per Host refused (the first time it is seen).
	Log io.Writer
}

// NewServer returns the HTTP server for h: timeouts that never cut a
// stream, and the Host check of hostGuard. It speaks HTTP/1.1 and, but for
// a forward proxy, HTTP/2 without TLS to a client that starts with the
// HTTP/2 preface (h2c with prior knowledge, which the AWS SDK for
// JavaScript uses for an http:// endpoint); a forward proxy's clients send
// CONNECT and absolute-form requests, which are HTTP/1.1's.
func NewServer(h http.Handler, o Options) *http.Server {
	srv := &http.Server{
		Handler:           newHostGuard(h, o),
		ReadHeaderTimeout: o.ReadHeader,
		IdleTimeout:       o.Idle,
		Protocols:         new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(!o.Forward)
	if srv.ReadHeaderTimeout == 0 {
		srv.ReadHeaderTimeout = defaultReadHeaderTimeout
	}
	if srv.IdleTimeout == 0 {
		srv.IdleTimeout = defaultIdleTimeout
	}
	return srv
}

// hostGuard answers only requests addressed to seam by a name a web page
// cannot point elsewhere: an IP address, localhost or a name under
// .localhost, the host name seam listens on, or a name --allow-host gives.
// A page can rebind a DNS name it owns to 127.0.0.1 and then read what
// seam answers (recorded prompts in serve's misses, the streams record
// relays), but it cannot make the browser send anything but its own name as
// the Host; so every other Host gets 421 Misdirected Request, with an
// error body naming the flag that allows it.
type hostGuard struct {
	next    http.Handler
	allowed map[string]bool
	any     bool
	forward bool
	log     io.Writer

	mu      sync.Mutex
	refused map[string]bool // hosts already reported on log
}

func newHostGuard(next http.Handler, o Options) *hostGuard {
	g := &hostGuard{next: next, allowed: map[string]bool{}, forward: o.Forward, log: o.Log, refused: map[string]bool{}}
	if host, _, err := net.SplitHostPort(o.Listen); err == nil && host != "" {
		g.allowed[strings.ToLower(host)] = true
	}
	for _, h := range o.AllowHosts {
		if h == "*" {
			g.any = true
		}
		g.allowed[strings.ToLower(strings.TrimSuffix(h, "."))] = true
	}
	return g
}

func (g *hostGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == "PRI" && r.RequestURI == "*" {
		// An HTTP/2 preface on a listener that does not speak h2c: it
		// is no request, and no exchange.
		w.Header().Set("Connection", "close")
		http.Error(w, "seam: this listener does not speak HTTP/2 without TLS (h2c); use HTTP/1.1", http.StatusHTTPVersionNotSupported)
		return
	}
	if g.allows(r.Host) || g.forward && (r.Method == http.MethodConnect || r.URL.IsAbs()) {
		g.next.ServeHTTP(w, r)
		return
	}
	g.report(r.Host)
	msg := fmt.Sprintf("seam: refusing a request for Host %q: seam answers only requests addressed to an IP address, localhost, "+
		"or the name it listens on, so that a web page cannot reach it through DNS rebinding; to accept this name, run seam with --allow-host %s",
		r.Host, hostName(r.Host))
	body, _ := json.Marshal(map[string]any{"error": map[string]string{
		"message": msg, "type": "seam_host_not_allowed", "code": "host_not_allowed",
	}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusMisdirectedRequest)
	w.Write(append(body, '\n'))
}

// allows reports whether a request with this Host header is answered.
func (g *hostGuard) allows(hostport string) bool {
	if g.any || hostport == "" { // no Host: HTTP/1.0, not a browser
		return true
	}
	host := hostName(hostport)
	if net.ParseIP(host) != nil {
		return true // an address: nothing to rebind
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || g.allowed[host]
}

// report says on the log, once per host, that requests for it are refused.
func (g *hostGuard) report(host string) {
	if g.log == nil {
		return
	}
	g.mu.Lock()
	seen := g.refused[host]
	if !seen && len(g.refused) < 100 {
		g.refused[host] = true
	}
	g.mu.Unlock()
	if !seen {
		fmt.Fprintf(g.log, "refused a request for Host %s (not an address, localhost or the listen name; --allow-host %s accepts it)\n",
			visible.String(host), visible.String(hostName(host)))
	}
}

// hostName returns the host of a Host header value, without port or
// IPv6 brackets.
func hostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// tlsHintListener says on log when a client starts a TLS handshake on a
// plain-HTTP listener (a first byte of 0x16, a TLS handshake record),
// once per client host: the client dials https:// or wss:// (openai-node's
// Realtime clients always dial wss:), net/http answers 400 to the bytes it
// cannot read, and the client reports only a TLS error. The connection
// goes on as it would.
type tlsHintListener struct {
	net.Listener
	listen string
	hint   string // what to do instead
	log    io.Writer

	mu   sync.Mutex
	seen map[string]bool
}

// HintTLS wraps ln, seam's plain-HTTP listener on listen, so that it says
// on log when a client starts a TLS handshake on it (see tlsHintListener);
// forward says it is a forward proxy's. A nil log leaves ln as it is.
func HintTLS(ln net.Listener, listen string, forward bool, log io.Writer) net.Listener {
	if log == nil {
		return ln
	}
	hint := fmt.Sprintf("give the client http://%s as its base URL (seam listens for plain HTTP), or record with seam record --forward, which decrypts the TLS a client sends through HTTPS_PROXY", listen)
	if forward {
		hint = fmt.Sprintf("the proxy is http://%s (HTTPS_PROXY=http://%s, not https://)", listen, listen)
	}
	return &tlsHintListener{Listener: ln, listen: listen, hint: hint, log: log, seen: map[string]bool{}}
}

func (l *tlsHintListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	return &tlsHintConn{Conn: c, l: l}, nil
}

// tlsHintConn looks at the first byte a client sends.
type tlsHintConn struct {
	net.Conn
	l    *tlsHintListener
	once sync.Once
}

func (c *tlsHintConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.once.Do(func() {
			if p[0] == 0x16 && (n < 2 || p[1] == 0x03) {
				c.l.tls(c.RemoteAddr())
			}
		})
	}
	return n, err
}

// tls says, once per client host, that a TLS handshake came from addr.
func (l *tlsHintListener) tls(addr net.Addr) {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		host = addr.String()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[host] {
		return
	}
	l.seen[host] = true
	fmt.Fprintf(l.log, "seam: a client at %s started a TLS handshake on http://%s, which speaks plain HTTP (it dials https:// or wss://; openai-node's Realtime clients always dial wss:): %s\n",
		visible.String(host), l.listen, l.hint)
}

// Run serves h on addr until ctx ends, which is how a server stops (no
// error). wrap, when set, puts a handler in front of h once the address
// is held (a forward proxy, forward set: a client speaking TLS to the
// port is then told to use it as a proxy), returning what stops it; an
// error of wrap ends the run. announce hears the address listened on.
func Run(ctx context.Context, addr string, h http.Handler, o Options, forward bool, wrap func(http.Handler) (http.Handler, func(), error), announce func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if wrap != nil {
		w, stop, err := wrap(h)
		if err != nil {
			ln.Close()
			return err
		}
		defer stop()
		h = w
	}
	srv := NewServer(h, o)
	ln = HintTLS(ln, ln.Addr().String(), forward, o.Log)
	announce(ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		return srv.Close()
	}
}
