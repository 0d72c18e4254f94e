package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tlsca"
)

// fakeAPI is an upstream over TLS whose certificate names host, signed by
// a CA of its own (written to caFile), so seam verifies it as it would the
// real API's once given --ca-file.
type fakeAPI struct {
	srv    *httptest.Server
	caFile string
}

func newFakeAPI(t *testing.T, host string, h http.Handler) *fakeAPI {
	t.Helper()
	dir := t.TempDir()
	ca, _, err := tlsca.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Leaf(host)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{*leaf}}
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &fakeAPI{srv: srv, caFile: ca.CertPath()}
}

func (a *fakeAPI) addr() string { return a.srv.Listener.Addr().String() }

// chatStream answers every request with a streamed Chat Completion.
var chatStream = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	for i, tok := range []string{"Hello", ", ", "wörld", "!"} {
		role := ""
		if i == 0 {
			role = `"role":"assistant",`
		}
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{%s\"content\":%q},\"finish_reason\":null}]}\n\n", role, tok)
		if i == 0 {
			w.(http.Flusher).Flush()
		}
	}
	io.WriteString(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
})

// startForward runs "seam record --forward" with its CA in caDir and
// returns the command, its proxy URL and the CA certificate path.
func startForward(t *testing.T, caDir, out string, flags ...string) (*exec.Cmd, *url.URL, string) {
	t.Helper()
	args := append([]string{"record", "--forward", "--listen", "127.0.0.1:0", "-o", out, "--ca-dir", caDir}, flags...)
	cmd, addr := startSeam(t, `listening on http://(\S+) as a forward proxy`, args...)
	u, _ := url.Parse("http://" + addr)
	return cmd, u, filepath.Join(caDir, tlsca.CertFile)
}

func stopSeam(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
}

// TestRecordForwardCurlAndGo records, through the real seam process in
// forward mode, a streamed chat completion sent by curl -x and by Go's
// http.Transport{Proxy}, to an HTTPS API whose name seam resolves to a
// local server (--resolve) and whose certificate it verifies (--ca-file).
// The clients get the API's bytes; the capture holds them byte for byte on
// both sides and names the host. A host not on the intercept list is
// tunnelled: the client sees that server's own certificate, and the
// capture never mentions it.
func TestRecordForwardCurlAndGo(t *testing.T) {
	api := newFakeAPI(t, "api.openai.com", chatStream)
	other := newFakeAPI(t, "example.com", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "tunnelled secret page\n")
	}))
	out := filepath.Join(t.TempDir(), "fwd.ndjson")
	cmd, proxy, seamCA := startForward(t, t.TempDir(), out,
		"--ca-file", api.caFile,
		"--resolve", "api.openai.com:443:"+api.addr(),
		"--resolve", "example.com:443:"+other.addr())

	const body = `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	pem, err := os.ReadFile(seamCA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequest("POST", "https://api.openai.com/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sk-test-secret")
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	goGot, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(goGot, []byte("[DONE]")) {
		t.Fatalf("Go client: %s %q", resp.Status, goGot)
	}

	var curlGot []byte
	if _, err := exec.LookPath("curl"); err == nil {
		c := exec.Command("curl", "-sS", "-N", "--fail", "-x", proxy.String(), "--cacert", seamCA,
			"-H", "Content-Type: application/json", "-H", "Authorization: Bearer sk-test-secret",
			"--data-binary", body, "https://api.openai.com/v1/chat/completions")
		if curlGot, err = c.Output(); err != nil {
			t.Fatalf("curl through seam: %v", err)
		}
		if !bytes.Equal(curlGot, goGot) {
			t.Errorf("curl got %q, Go got %q", curlGot, goGot)
		}
		// A host not intercepted: curl trusts only that server's own CA.
		page, err := exec.Command("curl", "-sS", "--fail", "-x", proxy.String(), "--cacert", other.caFile, "https://example.com/private").Output()
		if err != nil || string(page) != "tunnelled secret page\n" {
			t.Errorf("curl through the tunnel: %q %v", page, err)
		}
	} else {
		t.Log("curl not found: only the Go client runs")
	}
	stopSeam(t, cmd)

	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"sk-test-secret", "example.com", "tunnelled secret", "/private", "PRIVATE KEY"} {
		if bytes.Contains(raw, []byte(leak)) {
			t.Errorf("capture contains %q", leak)
		}
	}
	c, err := tape.Read(bytes.NewReader(raw), out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Upstream != "" || c.Header.Insecure {
		t.Errorf("header upstream %q insecure %v", c.Header.Upstream, c.Header.Insecure)
	}
	want := 1
	if curlGot != nil {
		want = 2
	}
	if len(c.Exchanges) != want {
		t.Fatalf("%d exchanges, want %d", len(c.Exchanges), want)
	}
	for i, x := range c.Exchanges {
		if x.Request.Scheme != "https" || x.Request.Host != "api.openai.com" || x.Request.URL != "/v1/chat/completions" {
			t.Errorf("exchange %d: %s %s %s", x.Ex, x.Request.Scheme, x.Request.Host, x.Request.URL)
		}
		if string(x.Request.Body) != body {
			t.Errorf("exchange %d request body %q", x.Ex, x.Request.Body)
		}
		got := goGot
		if i == 1 {
			got = curlGot
		}
		if !bytes.Equal(x.Upstream.Body(), got) || !bytes.Equal(x.Client.Body(), got) {
			t.Errorf("exchange %d: sides differ from what the client received", x.Ex)
		}
		if x.Client.End == nil || !x.Client.End.Outcome.Success() {
			t.Errorf("exchange %d: end %+v", x.Ex, x.Client.End)
		}
	}
}

// TestRecordForwardInsecure: --insecure reaches an upstream whose
// certificate nobody vouches for, says so on stderr, and records it in the
// capture header. --redact applies in forward mode too.
func TestRecordForwardInsecure(t *testing.T) {
	api := newFakeAPI(t, "api.anthropic.com", chatStream)
	out := filepath.Join(t.TempDir(), "insecure.ndjson")
	caDir := t.TempDir()
	cmd, proxy, seamCA := startForward(t, caDir, out, "--insecure", "--resolve", "api.anthropic.com:443:"+api.addr(), "--redact", "json:metadata.owner")
	pem, _ := os.ReadFile(seamCA)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := client.Post("https://api.anthropic.com/v1/messages", "application/json", strings.NewReader(`{"metadata":{"owner":"CANARY-owner"}}`))
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	client.CloseIdleConnections()
	stopSeam(t, cmd)
	c, err := tape.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Header.Insecure || len(c.Exchanges) != 1 || c.Exchanges[0].Upstream.Response.Status != 200 {
		t.Fatalf("insecure %v, %d exchanges", c.Header.Insecure, len(c.Exchanges))
	}
	if body := string(c.Exchanges[0].Request.Body); body != `{"metadata":{"owner":"[redacted]"}}` {
		t.Errorf("--redact json:metadata.owner: the capture holds the request body %s", body)
	}
}

// TestRecordForwardVerifiesUpstream: without --ca-file or --insecure, an
// upstream certificate seam cannot verify fails the exchange (502 with the
// reason) rather than being trusted.
func TestRecordForwardVerifiesUpstream(t *testing.T) {
	api := newFakeAPI(t, "api.openai.com", chatStream)
	out := filepath.Join(t.TempDir(), "verify.ndjson")
	cmd, proxy, seamCA := startForward(t, t.TempDir(), out, "--resolve", "api.openai.com:443:"+api.addr())
	pem, _ := os.ReadFile(seamCA)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := client.Get("https://api.openai.com/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	client.CloseIdleConnections()
	stopSeam(t, cmd)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(msg), "certificate") {
		t.Errorf("got %s %s, want 502 naming the certificate", resp.Status, msg)
	}
}

// TestServeForward replays a forward-proxy recording as a forward proxy:
// the same client, with the same proxy settings and CA, gets the recorded
// stream for the host it was recorded for, and a 404 naming that host for
// another one. The real API is gone by then.
func TestServeForward(t *testing.T) {
	api := newFakeAPI(t, "api.openai.com", chatStream)
	caDir := t.TempDir()
	out := filepath.Join(t.TempDir(), "rec.ndjson")
	cmd, proxy, seamCA := startForward(t, caDir, out, "--ca-file", api.caFile, "--resolve", "api.openai.com:443:"+api.addr())
	pem, _ := os.ReadFile(seamCA)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	post := func(proxy *url.URL, host string) (int, []byte) {
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots}}}
		defer c.CloseIdleConnections()
		resp, err := c.Post("https://"+host+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"gpt-4o","stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	_, recorded := post(proxy, "api.openai.com")
	stopSeam(t, cmd)
	api.srv.Close()

	serve, addr := startSeam(t, `on http://(\S+)`, "serve", "--forward", "--speed", "0", "--listen", "127.0.0.1:0", "--ca-dir", caDir, out)
	defer stopSeam(t, serve)
	mock, _ := url.Parse("http://" + addr)
	if code, got := post(mock, "api.openai.com"); code != 200 || !bytes.Equal(got, recorded) {
		t.Errorf("replayed %d %q, want the recorded %q", code, got, recorded)
	}
	if code, got := post(mock, "api.anthropic.com"); code != 404 || !bytes.Contains(got, []byte("api.openai.com")) {
		t.Errorf("other host: %d %s", code, got)
	}
}

// TestForwardBeyondLoopback: with --listen naming an address other
// machines reach, forward mode's connections upstream refuse this
// machine's and its network's addresses unless --host names the host, and
// the warning printed for such a listen says so; on loopback they do not.
func TestForwardBeyondLoopback(t *testing.T) {
	local := httptest.NewServer(chatStream)
	defer local.Close()
	_, port, _ := net.SplitHostPort(local.Listener.Addr().String())
	e := &env{stderr: io.Discard, getenv: func(k string) string {
		if k == "SEAM_CA_DIR" {
			return t.TempDir()
		}
		return ""
	}}
	ctx := context.Background()
	for _, tc := range []struct {
		listen  string
		hosts   []string
		refused bool
	}{
		{"0.0.0.0:8080", nil, true},
		{"192.0.2.10:8080", []string{"localhost:" + port}, false},
		{"127.0.0.1:8080", nil, false},
	} {
		f := &forwardFlags{hosts: tc.hosts}
		s, err := f.setup(e, "record", tc.listen)
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Upstream.Dial(ctx, "tcp", "localhost:"+port)
		var refused *record.RefusedError
		if got := errors.As(err, &refused); got != tc.refused {
			t.Errorf("--listen %s, --host %v: dial localhost: %v, want refused %v", tc.listen, tc.hosts, err, tc.refused)
		}
		if c != nil {
			c.Close()
		}
		var said bytes.Buffer
		s.Announce(&said, local.Listener.Addr(), false)
		warned := strings.Contains(said.String(), "warning: listening beyond loopback") &&
			strings.Contains(said.String(), "refuses to connect to loopback, link-local (the cloud metadata service at 169.254.169.254) and private addresses") &&
			strings.Contains(said.String(), "unless --host names the host")
		if warned != (tc.listen != "127.0.0.1:8080") {
			t.Errorf("--listen %s: announced\n%s", tc.listen, said.String())
		}
	}
}
