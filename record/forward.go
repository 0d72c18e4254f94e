package record

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/seam-dev/seam/tlsca"
)

// ForwardOptions configures a [Forward] proxy.
type ForwardOptions struct {
	// Handler receives every intercepted request, its URL made absolute
	// (https://host/path for a decrypted CONNECT tunnel, as sent for plain
	// http): a [Recorder] with no Upstream, or a mock answering from
	// captures. Required.
	Handler http.Handler
	// Intercept says which hosts are decrypted and handed to Handler, and
	// which ports may be reached. Required.
	Intercept *InterceptList
	// Authority signs the certificates seam shows clients for intercepted
	// hosts. Required.
	Authority *tlsca.Authority
	// AllowRemote lets clients that are not on this machine use the proxy.
	// Without it, a request from a non-loopback address is refused, so a
	// proxy bound to a public address by mistake relays for nobody.
	AllowRemote bool
	// Dial opens the connections of tunnels (hosts not intercepted). Nil
	// means a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Transport forwards plain-http requests to hosts not intercepted,
	// unrecorded. Nil means one like the recorder's.
	Transport http.RoundTripper
	// OnTunnel, if set, is called when a tunnel to a host that is not
	// intercepted opens (err nil) or could not open (err says why; the
	// client got 403 or 502), for a log line.
	OnTunnel func(hostport string, err error)
	// IdleTimeout is how long a connection inside a decrypted tunnel
	// (HTTP/1.1 keep-alive or HTTP/2) may stay idle between requests
	// before it is closed; zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
}

// DefaultIdleTimeout is how long a connection inside a decrypted tunnel
// may stay idle between requests, as seam's own listeners.
const DefaultIdleTimeout = 60 * time.Second

// Forward is a forward HTTP proxy, for clients that cannot change their
// base URL but honour HTTPS_PROXY. It is an http.Handler for the proxy's
// listener:
//
//   - CONNECT to an intercepted host: answered 200, then TLS is terminated
//     with a leaf certificate for the host the client names (SNI), signed
//     by the Authority; the requests inside (HTTP/1.1 or HTTP/2, as the
//     client offers by ALPN) go to Handler with absolute https URLs.
//   - CONNECT to any other host: a tunnel, byte for byte, neither decrypted
//     nor recorded.
//   - absolute-form requests (http://host/path): to Handler when the host
//     is intercepted, else forwarded unrecorded.
//   - CONNECT to a port other than 443 and the ones the intercept list
//     names, and requests that are not proxy requests (a browser page
//     reaching the port by DNS rebinding sends those): refused.
//
// Call Shutdown when the listener's server has stopped: the decrypted and
// tunnelled connections were taken over from it.
type Forward struct {
	opts  ForwardOptions
	inner *http.Server
	conns *connListener
	plain *httputil.ReverseProxy

	cut context.CancelCauseFunc // ends the requests of decrypted tunnels, switched ones included

	mu      sync.Mutex
	tunnels map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// NewForward returns a Forward proxy for opts and starts the server that
// handles the decrypted connections.
func NewForward(opts ForwardOptions) (*Forward, error) {
	if opts.Handler == nil || opts.Intercept == nil || opts.Authority == nil {
		return nil, errors.New("capture: forward proxy needs a handler, an intercept list and a CA")
	}
	if opts.Dial == nil {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		opts.Dial = d.DialContext
	}
	if opts.Transport == nil {
		opts.Transport = UpstreamTransport(UpstreamOptions{Dial: opts.Dial})
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	base, cut := context.WithCancelCause(context.Background())
	f := &Forward{opts: opts, conns: newConnListener(), tunnels: make(map[net.Conn]struct{}), cut: cut}
	f.inner = &http.Server{
		BaseContext:       func(net.Listener) context.Context { return base },
		Handler:           http.HandlerFunc(f.intercepted),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       opts.IdleTimeout,           // HTTP/2's too
		ErrorLog:          log.New(io.Discard, "", 0), // a client giving up on a handshake is not news
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*tls.Conn); ok {
				if cc, ok := tc.NetConn().(*connectConn); ok {
					return context.WithValue(ctx, targetKey{}, cc.target)
				}
			}
			return ctx
		},
	}
	f.plain = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: pr.In.URL.Scheme, Host: pr.In.URL.Host})
			pr.Out.Host = pr.In.Host
		},
		Transport:     opts.Transport,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			dialError(w, r.URL.Host, err)
		},
	}
	go f.inner.Serve(f.conns)
	return f, nil
}

type targetKey struct{}

// target is where a decrypted tunnel goes.
type target struct{ host, port string }

// ServeHTTP implements http.Handler for the proxy's listener.
func (f *Forward) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !f.opts.AllowRemote && !fromLoopback(r.RemoteAddr) {
		proxyError(w, http.StatusForbidden, "seam: this proxy only serves clients on this machine (start it with --listen naming another address to change that)")
		return
	}
	switch {
	case r.Method == http.MethodConnect:
		f.connect(w, r)
	case r.URL.IsAbs() && (r.URL.Scheme == "http" || r.URL.Scheme == "https"):
		f.absolute(w, r)
	default:
		proxyError(w, http.StatusBadRequest, "seam: this is a forward proxy: set HTTPS_PROXY and HTTP_PROXY to its address rather than a base URL (for a base URL, run seam record --upstream URL)")
	}
}

func proxyError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	io.WriteString(w, msg+"\n")
}

// dialError answers a request seam could not forward (what says where):
// 403 when the destination was refused (see GuardedDial), else 502.
func dialError(w http.ResponseWriter, what string, err error) {
	var refused *RefusedError
	if errors.As(err, &refused) {
		proxyError(w, http.StatusForbidden, refused.Error())
		return
	}
	proxyError(w, http.StatusBadGateway, fmt.Sprintf("seam: %s: %v", what, err))
}

func fromLoopback(remote string) bool {
	ap, err := netip.ParseAddrPort(remote)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// absolute handles an absolute-form request (plain http through a proxy).
func (f *Forward) absolute(w http.ResponseWriter, r *http.Request) {
	host, port, err := hostPort(r.URL.Host, r.URL.Scheme)
	if err != nil {
		proxyError(w, http.StatusBadRequest, "seam: "+err.Error())
		return
	}
	if !f.opts.Intercept.PortAllowed(host, port, r.URL.Scheme) {
		proxyError(w, http.StatusForbidden, fmt.Sprintf("seam: refused: port %s is not the default port of %s and no --host names it", port, r.URL.Scheme))
		return
	}
	out := r.WithContext(r.Context())
	u := *r.URL
	u.Host = displayHost(host, port, r.URL.Scheme)
	out.URL = &u
	if f.opts.Intercept.Intercepts(host, port, r.URL.Scheme) {
		f.opts.Handler.ServeHTTP(w, out)
		return
	}
	f.plain.ServeHTTP(w, out)
}

// connect handles CONNECT: a decrypted tunnel for an intercepted host, a
// byte-for-byte one for the others.
func (f *Forward) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := hostPort(r.Host, "https")
	if err != nil {
		proxyError(w, http.StatusBadRequest, "seam: CONNECT "+err.Error())
		return
	}
	if !f.opts.Intercept.PortAllowed(host, port, "https") {
		proxyError(w, http.StatusForbidden, fmt.Sprintf("seam: CONNECT to port %s refused: only 443, and the ports named with --host host:port", port))
		return
	}
	if f.opts.Intercept.Intercepts(host, port, "https") {
		f.decrypt(w, target{host, port})
		return
	}
	f.tunnel(w, r, net.JoinHostPort(host, port))
}

// decrypt answers CONNECT and hands the connection, once TLS is set up
// with a minted certificate, to the inner server.
func (f *Forward) decrypt(w http.ResponseWriter, t target) {
	conn, err := hijack(w)
	if err != nil {
		return
	}
	cfg := &tls.Config{
		GetCertificate: f.opts.Authority.GetCertificate(t.host),
		NextProtos:     []string{"h2", "http/1.1"},
		MinVersion:     tls.VersionTLS12,
	}
	tc := tls.Server(&connectConn{Conn: conn, target: t}, cfg)
	if !f.conns.push(tc) {
		tc.Close()
	}
}

// hijack takes the client connection over and answers the CONNECT.
func hijack(w http.ResponseWriter) (net.Conn, error) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, err
	}
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		conn.Close()
		return nil, err
	}
	if n := brw.Reader.Buffered(); n > 0 {
		// The client did not wait for the answer: its first bytes are here.
		head, _ := brw.Reader.Peek(n)
		conn = &prefixConn{Conn: conn, prefix: append([]byte(nil), head...)}
	}
	return conn, nil
}

// tunnel connects to hostport and copies bytes both ways until both ends
// are done. Nothing is recorded.
func (f *Forward) tunnel(w http.ResponseWriter, r *http.Request, hostport string) {
	up, err := f.opts.Dial(r.Context(), "tcp", hostport)
	if err != nil {
		if f.opts.OnTunnel != nil {
			f.opts.OnTunnel(hostport, err)
		}
		dialError(w, "connect "+hostport, err)
		return
	}
	conn, err := hijack(w)
	if err != nil {
		up.Close()
		return
	}
	if !f.track(conn, up) {
		conn.Close()
		up.Close()
		return
	}
	if f.opts.OnTunnel != nil {
		f.opts.OnTunnel(hostport, nil)
	}
	go func() {
		defer f.wg.Done()
		var wg sync.WaitGroup
		wg.Go(func() {
			defer recoverTunnel(conn, up)
			pipe(up, conn)
		})
		func() {
			defer recoverTunnel(conn, up)
			pipe(conn, up)
		}()
		wg.Wait()
		f.untrack(conn, up)
		conn.Close()
		up.Close()
	}()
}

// recoverTunnel, deferred by a tunnel's copier (a goroutine no server
// recovers), ends the tunnel on a panic instead of the process.
func recoverTunnel(conns ...net.Conn) {
	if recover() != nil {
		for _, c := range conns {
			c.Close()
		}
	}
}

// pipe copies src to dst, then half-closes dst so the other end sees EOF.
func pipe(dst, src net.Conn) {
	io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	} else {
		dst.Close()
	}
}

func (f *Forward) track(conns ...net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	for _, c := range conns {
		f.tunnels[c] = struct{}{}
	}
	f.wg.Add(1)
	return true
}

func (f *Forward) untrack(conns ...net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range conns {
		delete(f.tunnels, c)
	}
}

// intercepted serves a request from a decrypted tunnel: its URL becomes
// absolute, naming the host the tunnel was opened to.
func (f *Forward) intercepted(w http.ResponseWriter, r *http.Request) {
	t, ok := r.Context().Value(targetKey{}).(target)
	if !ok {
		proxyError(w, http.StatusInternalServerError, "seam: request without a tunnel")
		return
	}
	out := r.WithContext(r.Context())
	u := *r.URL
	u.Scheme, u.Host = "https", displayHost(t.host, t.port, "https")
	out.URL = &u
	f.opts.Handler.ServeHTTP(w, out)
}

// Shutdown stops the server of decrypted connections (letting requests in
// flight finish until ctx ends) and cuts the tunnels; connections that
// switched protocols are cut when ctx ends.
func (f *Forward) Shutdown(ctx context.Context) error {
	f.mu.Lock()
	f.closed = true
	for c := range f.tunnels {
		c.Close()
	}
	f.mu.Unlock()
	f.conns.Close()
	err := f.inner.Shutdown(ctx)
	if err != nil {
		// The cause first: the streams cut are recorded as cut by seam.
		f.cut(ErrShutdown)
		f.inner.Close()
	}
	f.wg.Wait()
	go func() {
		// Requests that switched protocols (WebSockets) are not the
		// server's any more: they end when ctx does.
		<-ctx.Done()
		f.cut(ErrShutdown)
	}()
	return err
}

// connectConn is the client's connection of a decrypted tunnel, with where
// the tunnel goes.
type connectConn struct {
	net.Conn
	target target
}

// prefixConn reads prefix before the connection's own bytes.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// CloseWrite half-closes the connection when it can.
func (c *prefixConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}

// connListener is a net.Listener whose connections are pushed to it: the
// decrypted tunnels, served by an ordinary http.Server.
type connListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newConnListener() *connListener {
	return &connListener{ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *connListener) push(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return forwardAddr{} }

type forwardAddr struct{}

func (forwardAddr) Network() string { return "forward" }
func (forwardAddr) String() string  { return "decrypted tunnels" }
