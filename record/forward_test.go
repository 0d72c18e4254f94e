package record_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tlsca"
	"github.com/seam-dev/seam/wsframe"
)

// forwardRig is a TLS upstream, seam's forward proxy recording in front of
// it, and a client configured the way a user configures one: a proxy URL
// and seam's CA.
type forwardRig struct {
	*rig
	tlsUp   *httptest.Server
	fwd     *record.Forward
	proxy   *httptest.Server
	ca      *tlsca.Authority
	upHost  string // 127.0.0.1:port of the TLS upstream
	client  *http.Client
	proxied func(*http.Request) (*url.URL, error)
}

// newForwardRig starts upstream over TLS (HTTP/2 when h2) and seam in
// forward mode intercepting it (and only it, plus the hosts in extra).
func newForwardRig(t *testing.T, upstream http.Handler, h2 bool, extra ...string) *forwardRig {
	return newForwardRigDial(t, upstream, h2, nil, extra...)
}

// newForwardRigDial is newForwardRig with the dial function of tunnels.
func newForwardRigDial(t *testing.T, upstream http.Handler, h2 bool, dial func(context.Context, string, string) (net.Conn, error), extra ...string) *forwardRig {
	t.Helper()
	return newForwardRigWith(t, upstream, h2, func(o *record.ForwardOptions) { o.Dial = dial }, extra...)
}

// newForwardRigWith is newForwardRig with the forward proxy's options
// adjusted by modify.
func newForwardRigWith(t *testing.T, upstream http.Handler, h2 bool, modify func(*record.ForwardOptions), extra ...string) *forwardRig {
	t.Helper()
	up := httptest.NewUnstartedServer(upstream)
	up.EnableHTTP2 = h2
	up.StartTLS()
	t.Cleanup(up.Close)
	ca, _, err := tlsca.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(up.Certificate())
	upHost := strings.TrimPrefix(up.URL, "https://")

	r := &forwardRig{rig: &rig{t: t, buf: new(bytes.Buffer)}, tlsUp: up, ca: ca, upHost: upHost}
	r.writer = tape.NewWriter(r.buf, tape.WriterOptions{})
	r.writer.Header(tape.Header{V: tape.Version, Seam: "test", ID: t.Name()})
	rec, err := record.New(record.Options{
		Writer:    r.writer,
		Transport: record.UpstreamTransport(record.UpstreamOptions{RootCAs: roots}),
		OnDone: func(s record.Summary) {
			r.mu.Lock()
			r.sums = append(r.sums, s)
			r.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.rec = rec
	list, err := record.NewInterceptList(append([]string{upHost}, extra...), false)
	if err != nil {
		t.Fatal(err)
	}
	fo := record.ForwardOptions{Handler: rec, Intercept: list, Authority: ca}
	modify(&fo)
	r.fwd, err = record.NewForward(fo)
	if err != nil {
		t.Fatal(err)
	}
	r.proxy = httptest.NewUnstartedServer(r.fwd)
	r.proxy.Config.ErrorLog = log.New(r, "", 0)
	r.proxy.Start()
	t.Cleanup(r.proxy.Close)
	r.front = r.proxy

	seamRoots := x509.NewCertPool()
	seamRoots.AppendCertsFromPEM(ca.CertPEM())
	proxyURL, _ := url.Parse(r.proxy.URL)
	r.proxied = http.ProxyURL(proxyURL)
	r.client = &http.Client{Transport: &http.Transport{
		Proxy:             r.proxied,
		TLSClientConfig:   &tls.Config{RootCAs: seamRoots},
		ForceAttemptHTTP2: true,
	}}
	t.Cleanup(r.client.CloseIdleConnections)
	return r
}

func (r *forwardRig) finish() *tape.Capture {
	r.client.CloseIdleConnections()
	r.fwd.Shutdown(context.Background())
	return r.rig.finish()
}

func tokenStream(events int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Proto", r.Proto)
		for i := range events {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%d é\"}}]}\n\n", i)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}
}

// TestForwardRecordsTLSExchange sends a streamed request through the proxy
// as Go's http.Transport{Proxy} does (CONNECT, then TLS trusting seam's
// CA), over HTTP/1.1 and HTTP/2 on both legs: the client gets the
// upstream's bytes, and the capture holds them byte for byte with the host.
func TestForwardRecordsTLSExchange(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "http1", true: "http2"}[h2], func(t *testing.T) {
			r := newForwardRig(t, tokenStream(20), h2)
			resp, err := r.client.Post("https://"+r.upHost+"/v1/chat/completions?api_key=sk-secret", "application/json", strings.NewReader(`{"stream":true}`))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if h2 && (resp.ProtoMajor != 2 || resp.Header.Get("X-Proto") != "HTTP/2.0") {
				t.Errorf("client leg %s, upstream leg %s; want HTTP/2 on both", resp.Proto, resp.Header.Get("X-Proto"))
			}
			if !h2 && resp.Header.Get("X-Proto") != "HTTP/1.1" {
				t.Errorf("upstream leg %s, want HTTP/1.1", resp.Header.Get("X-Proto"))
			}
			c := r.finish()
			if len(c.Exchanges) != 1 {
				t.Fatalf("%d exchanges", len(c.Exchanges))
			}
			x := c.Exchanges[0]
			if x.Request.Scheme != "https" || x.Request.Host != r.upHost || x.Request.URL != "/v1/chat/completions?api_key=[redacted]" {
				t.Errorf("request %s %s %s", x.Request.Scheme, x.Request.Host, x.Request.URL)
			}
			if string(x.Request.Body) != `{"stream":true}` {
				t.Errorf("request body %q", x.Request.Body)
			}
			if got := x.Upstream.Body(); !bytes.Equal(got, body) {
				t.Errorf("upstream side differs from what the client got:\n%q\n%q", got, body)
			}
			if got := x.Client.Body(); !bytes.Equal(got, body) {
				t.Errorf("client side differs from what the client got")
			}
			if x.Client.End.Outcome != tape.Complete {
				t.Errorf("outcome %s", x.Client.End.Outcome)
			}
			checkOffsets(t, x)
			if len(r.sums) != 1 || r.sums[0].Host != r.upHost {
				t.Errorf("summaries %+v", r.sums)
			}
		})
	}
}

// TestForwardTunnelsOtherHosts: a host not on the intercept list is
// tunnelled byte for byte (the client sees the upstream's own certificate)
// and nothing about it reaches the capture.
func TestForwardTunnelsOtherHosts(t *testing.T) {
	other := httptest.NewTLSServer(tokenStream(3))
	defer other.Close()
	// example.com:443 (a name httptest's certificate holds) leads to the
	// other server.
	dial := record.ResolveDial(map[string]string{"example.com:443": other.Listener.Addr().String()})
	r := newForwardRigDial(t, tokenStream(1), false, dial)
	// Trust the other server's own certificate only: a decrypting proxy
	// would show seam's instead and the handshake would fail.
	roots := x509.NewCertPool()
	roots.AddCert(other.Certificate())
	proxyOnly := &http.Client{Transport: &http.Transport{Proxy: r.proxied, TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := proxyOnly.Get("https://example.com/v1/models")
	if err != nil {
		t.Fatalf("through the tunnel: %v", err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	proxyOnly.CloseIdleConnections()
	if resp.TLS == nil || !resp.TLS.PeerCertificates[0].Equal(other.Certificate()) {
		t.Error("the client did not see the other server's own certificate")
	}
	c := r.finish()
	if len(c.Exchanges) != 0 {
		t.Errorf("tunnelled exchange recorded: %+v", c.Exchanges[0].Request)
	}
	if bytes.Contains(r.buf.Bytes(), []byte("/v1/models")) {
		t.Error("the capture mentions the tunnelled request")
	}
}

// TestForwardRefuses: CONNECT to a port neither 443 nor named, and a
// request that is not a proxy request (what a web page reaching the port by
// DNS rebinding sends) are refused; nothing is recorded.
func TestForwardRefuses(t *testing.T) {
	r := newForwardRig(t, tokenStream(1), false)
	conn, err := net.Dial("tcp", r.proxy.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	fmt.Fprintf(conn, "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("CONNECT to port 22: %s", resp.Status)
	}
	resp, err = http.Get(r.proxy.URL + "/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "HTTPS_PROXY") {
		t.Errorf("origin-form request: %s %s", resp.Status, msg)
	}
	if c := r.finish(); len(c.Exchanges) != 0 {
		t.Errorf("%d exchanges recorded", len(c.Exchanges))
	}
}

// TestForwardDoesNotFollowRedirects: a redirect from the upstream reaches
// the client as it was sent, and is recorded as such.
func TestForwardDoesNotFollowRedirects(t *testing.T) {
	r := newForwardRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/elsewhere" {
			t.Error("the proxy followed the redirect")
		}
		http.Redirect(w, req, "/elsewhere", http.StatusFound)
	}), false)
	r.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := r.client.Get("https://" + r.upHost + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("client got %s", resp.Status)
	}
	c := r.finish()
	if len(c.Exchanges) != 1 || c.Exchanges[0].Upstream.Response.Status != http.StatusFound {
		t.Fatalf("recorded %d exchanges", len(c.Exchanges))
	}
}

// TestForwardPlainHTTP: an absolute-form http request to an intercepted
// host is forwarded and recorded with scheme http.
func TestForwardPlainHTTP(t *testing.T) {
	plain := httptest.NewServer(tokenStream(2))
	defer plain.Close()
	host := strings.TrimPrefix(plain.URL, "http://")
	r := newForwardRig(t, tokenStream(1), false, host)
	resp, err := r.client.Get(plain.URL + "/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	c := r.finish()
	if len(c.Exchanges) != 1 {
		t.Fatalf("%d exchanges", len(c.Exchanges))
	}
	x := c.Exchanges[0]
	if x.Request.Scheme != "http" || x.Request.Host != host || !bytes.Equal(x.Upstream.Body(), body) {
		t.Errorf("request %s %s, %d bytes", x.Request.Scheme, x.Request.Host, len(x.Upstream.Body()))
	}
}

// wsEcho echoes every WebSocket message, answering "bye" with a close.
func wsEcho(mode websocket.CompressionMode) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: mode})
		if err != nil {
			return
		}
		for {
			typ, b, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if string(b) == "bye" {
				c.Close(websocket.StatusNormalClosure, "bye")
				return
			}
			c.Write(r.Context(), typ, b)
		}
	}
}

// TestWebSocketBothModes records a WebSocket conversation through the
// reverse proxy and through the forward proxy (wss inside CONNECT): every
// frame is a chunk on its side, and decoding the sides gives back the
// messages each direction sent, inflated.
func TestWebSocketBothModes(t *testing.T) {
	msgs := []string{`{"type":"response.create"}`, strings.Repeat("deflate me ", 100), "bye"}
	talk := func(t *testing.T, url string, client *http.Client) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: client, CompressionMode: websocket.CompressionContextTakeover, Subprotocols: []string{"realtime"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
				t.Fatal(err)
			}
			_, got, err := c.Read(ctx)
			if m == "bye" {
				if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
					t.Fatalf("after bye: %v", err)
				}
				break
			}
			if err != nil || string(got) != m {
				t.Fatalf("echo %q: %q %v", m, got, err)
			}
		}
		c.Close(websocket.StatusNormalClosure, "")
	}
	check := func(t *testing.T, c *tape.Capture) {
		if len(c.Exchanges) != 1 {
			t.Fatalf("%d exchanges", len(c.Exchanges))
		}
		x := c.Exchanges[0]
		if x.Upstream.Response == nil || x.Upstream.Response.Status != 101 || x.Client.Response == nil {
			t.Fatalf("responses %+v %+v", x.Upstream.Response, x.Client.Response)
		}
		ext := x.Upstream.Response.Headers["sec-websocket-extensions"]
		for side, fromClient := range map[tape.Side]bool{tape.Upstream: false, tape.Client: true} {
			sd := x.Side(side)
			ms, problems := wsframe.Decode(sd.Body(), wsframe.Negotiated(ext, fromClient))
			if len(problems) > 0 {
				t.Errorf("%s: %v", side, problems)
			}
			var texts []string
			for _, m := range ms {
				if m.Opcode == wsframe.Text {
					texts = append(texts, string(m.Payload))
				}
			}
			want := msgs
			if !fromClient {
				want = msgs[:2]
			}
			if strings.Join(texts, "|") != strings.Join(want, "|") {
				t.Errorf("%s messages %q, want %q", side, texts, want)
			}
			// One chunk per frame: each chunk decodes to exactly one message.
			for i, ch := range sd.Chunks {
				if ms, _ := wsframe.Decode(ch.Data, wsframe.Options{FromClient: fromClient, Deflate: true}); len(ms) != 1 {
					t.Errorf("%s chunk %d holds %d frames", side, i, len(ms))
				}
			}
			if sd.End == nil || sd.End.Outcome != tape.Complete {
				t.Errorf("%s end %+v, want complete (a close frame went that way)", side, sd.End)
			}
		}
		checkOffsets(t, x)
		if p := x.Request.Headers["sec-websocket-protocol"]; len(p) != 1 || p[0] != "realtime" {
			t.Errorf("subprotocol header %q", p)
		}
	}
	t.Run("reverse", func(t *testing.T) {
		r := newRig(t, wsEcho(websocket.CompressionContextTakeover), nil)
		talk(t, "ws"+strings.TrimPrefix(r.front.URL, "http")+"/v1/realtime?model=m", nil)
		check(t, r.finish())
	})
	t.Run("forward", func(t *testing.T) {
		r := newForwardRig(t, wsEcho(websocket.CompressionContextTakeover), false)
		talk(t, "wss://"+r.upHost+"/v1/realtime?model=m", r.client)
		c := r.finish()
		check(t, c)
		if c.Exchanges[0].Request.Host != r.upHost {
			t.Errorf("host %q", c.Exchanges[0].Request.Host)
		}
	})
}

// TestForwardStreamsUnbuffered: over HTTP/2 on both legs, the client gets
// the first event while the upstream still holds the rest back, so nothing
// between them buffers the stream.
func TestForwardStreamsUnbuffered(t *testing.T) {
	got := make(chan struct{})
	r := newForwardRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"first\"}}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			io.WriteString(w, "data: late\n\n") // the client never saw the first event alone
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}), true)
	resp, err := r.client.Get("https://" + r.upHost + "/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Errorf("client leg %s", resp.Proto)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, "first") {
		t.Fatalf("first line %q %v", line, err)
	}
	close(got)
	rest, _ := io.ReadAll(resp.Body)
	if bytes.Contains(rest, []byte("late")) {
		t.Error("the first event was held back until the upstream gave up waiting")
	}
	resp.Body.Close()
	r.finish()
}

// TestForwardRefusesRemoteClients: without AllowRemote a request from an
// address that is not loopback is refused before anything is relayed.
func TestForwardRefusesRemoteClients(t *testing.T) {
	r := newForwardRig(t, tokenStream(1), false)
	for remote, want := range map[string]int{"10.1.2.3:5555": http.StatusForbidden, "[::1]:5555": http.StatusBadRequest, "127.0.0.1:5555": http.StatusBadRequest} {
		req := httptest.NewRequest("GET", "/v1/models", nil)
		req.RemoteAddr = remote
		w := httptest.NewRecorder()
		r.fwd.ServeHTTP(w, req)
		if w.Code != want {
			t.Errorf("from %s: %d, want %d (403 refused, 400 served as a non-proxy request)", remote, w.Code, want)
		}
	}
	r.finish()
}

// TestForwardPlainHTTPNotIntercepted: an absolute-form request to a host
// not on the list is forwarded as it is and not recorded.
func TestForwardPlainHTTPNotIntercepted(t *testing.T) {
	plain := httptest.NewServer(tokenStream(2))
	defer plain.Close()
	dial := record.ResolveDial(map[string]string{"example.com:80": plain.Listener.Addr().String()})
	r := newForwardRigDial(t, tokenStream(1), false, dial)
	resp, err := r.client.Get("http://example.com/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(body, []byte("[DONE]")) {
		t.Errorf("body %q", body)
	}
	if c := r.finish(); len(c.Exchanges) != 0 {
		t.Errorf("%d exchanges recorded for a host not intercepted", len(c.Exchanges))
	}
}

// TestForwardTunnelFailureSaid: a tunnel that cannot open (its host
// refuses the connection) is reported through OnTunnel with the cause, as
// the client gets its 502; an open one is reported without an error.
func TestForwardTunnelFailureSaid(t *testing.T) {
	type said struct {
		host string
		err  error
	}
	var mu sync.Mutex
	var got []said
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusing := closed.Addr().String()
	closed.Close()
	r := newForwardRigWith(t, tokenStream(1), false, func(o *record.ForwardOptions) {
		o.Dial = record.ResolveDial(map[string]string{"example.com:443": refusing})
		o.OnTunnel = func(h string, err error) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, said{h, err})
		}
	})
	c := &http.Client{Transport: &http.Transport{Proxy: r.proxied}}
	if resp, err := c.Get("https://example.com/v1/models"); err == nil {
		resp.Body.Close()
		t.Fatal("a tunnel to a refusing host worked")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].host != "example.com:443" || got[0].err == nil || !strings.Contains(got[0].err.Error(), "refused") {
		t.Errorf("OnTunnel heard %+v, want example.com:443 with connection refused", got)
	}
}
