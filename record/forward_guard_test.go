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
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tlsca"
)

// TestForwardIdleTimeout: a connection inside a decrypted tunnel, HTTP/1.1
// keep-alive or HTTP/2, is closed once idle for the idle timeout, so the
// client's next request opens a new one; within the timeout it is reused.
func TestForwardIdleTimeout(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "http1", true: "http2"}[h2], func(t *testing.T) {
			for _, tc := range []struct {
				idle  time.Duration
				dials int
			}{{150 * time.Millisecond, 2}, {time.Minute, 1}} {
				r := newForwardRigWith(t, tokenStream(2), h2, func(o *record.ForwardOptions) { o.IdleTimeout = tc.idle })
				var dials atomic.Int32
				roots := x509.NewCertPool()
				roots.AppendCertsFromPEM(r.ca.CertPEM())
				tr := &http.Transport{
					Proxy:             r.proxied,
					TLSClientConfig:   &tls.Config{RootCAs: roots},
					ForceAttemptHTTP2: h2,
					DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
						dials.Add(1)
						return (&net.Dialer{}).DialContext(ctx, network, addr)
					},
				}
				client := &http.Client{Transport: tr}
				for i := range 2 {
					resp, err := client.Post("https://"+r.upHost+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
					if err != nil {
						t.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if want := map[bool]int{false: 1, true: 2}[h2]; resp.ProtoMajor != want {
						t.Fatalf("client leg %s", resp.Proto)
					}
					if i == 0 {
						time.Sleep(600 * time.Millisecond) // four idle timeouts, if short
					}
				}
				tr.CloseIdleConnections()
				if got := int(dials.Load()); got != tc.dials {
					t.Errorf("idle timeout %v: %d connections for two requests 600ms apart, want %d", tc.idle, got, tc.dials)
				}
				r.finish()
			}
		})
	}
}

// guardedForward is a forward proxy serving other machines, whose
// connections upstream refuse addresses that are not public unless named
// (the hosts of --host) names the host; everything in intercept (all
// when it is nil) is recorded, with the recorder's upstream transport
// dialling the same way.
func guardedForward(t *testing.T, intercept []string, named []string) (*httptest.Server, *tape.Writer, *bytes.Buffer) {
	t.Helper()
	ca, _, err := tlsca.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	names, err := record.NewInterceptList(named, false)
	if err != nil {
		t.Fatal(err)
	}
	dial := record.GuardedDial(nil, names.Names)
	var buf bytes.Buffer
	w := tape.NewWriter(&buf, tape.WriterOptions{})
	w.Header(tape.Header{V: tape.Version, Seam: "test"})
	rec, err := record.New(record.Options{Writer: w, Transport: record.UpstreamTransport(record.UpstreamOptions{Dial: dial})})
	if err != nil {
		t.Fatal(err)
	}
	list, err := record.NewInterceptList(intercept, intercept == nil)
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := record.NewForward(record.ForwardOptions{Handler: rec, Intercept: list, Authority: ca, AllowRemote: true, Dial: dial})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(fwd)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		fwd.Shutdown(context.Background())
		rec.Wait()
		w.Close()
	})
	return srv, w, &buf
}

// rawProxy sends one request line to the proxy and returns the answer.
func rawProxy(t *testing.T, proxy *httptest.Server, request string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", proxy.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, request)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestForwardRefusesPrivateDestinations: a forward proxy that serves other
// machines does not relay to this machine's services, its network's, or
// the cloud metadata service, whether the client names the address or a
// name that resolves to it (localhost: the address is checked as dialled,
// so DNS rebinding cannot slip past a check made earlier), through a
// tunnel, a plain-http request or a decrypted one; a host --host names is
// reached wherever it resolves.
func TestForwardRefusesPrivateDestinations(t *testing.T) {
	local := httptest.NewServer(tokenStream(1))
	defer local.Close()
	_, port, _ := net.SplitHostPort(local.Listener.Addr().String())

	t.Run("tunnel and plain http", func(t *testing.T) {
		proxy, _, _ := guardedForward(t, []string{"api.example.com"}, nil)
		for _, tc := range []struct{ req, kind string }{
			{"CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n", "loopback"},
			{"CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n", "loopback"},
			{"GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n", "link-local"},
			{"GET http://[::ffff:10.1.2.3]/ HTTP/1.1\r\nHost: [::ffff:10.1.2.3]\r\n\r\n", "private"},
			{"GET http://localhost/ HTTP/1.1\r\nHost: localhost\r\n\r\n", "loopback"},
		} {
			status, body := rawProxy(t, proxy, tc.req)
			if status != http.StatusForbidden || !strings.Contains(body, "a "+tc.kind+" address") {
				t.Errorf("%q: %d %s, want 403 naming a %s address", strings.SplitN(tc.req, "\r\n", 2)[0], status, body, tc.kind)
			}
		}
	})

	t.Run("intercepted", func(t *testing.T) {
		proxy, w, buf := guardedForward(t, nil, nil) // --intercept-all names no host
		status, body := rawProxy(t, proxy, "GET http://127.0.0.1/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		if status != http.StatusForbidden || !strings.Contains(body, "refused to connect to 127.0.0.1") {
			t.Errorf("intercepted request to loopback: %d %s", status, body)
		}
		proxy.Close()
		time.Sleep(50 * time.Millisecond)
		w.Close()
		c, err := tape.Read(buf, "guarded")
		if err != nil || len(c.Exchanges) != 1 {
			t.Fatalf("%v, %d exchanges", err, len(c.Exchanges))
		}
		if e := c.Exchanges[0].Upstream.End; e == nil || e.Outcome != tape.UpstreamError || !strings.Contains(e.Error, "a loopback address") {
			t.Errorf("upstream end %+v", e)
		}
	})

	t.Run("named", func(t *testing.T) {
		proxy, _, _ := guardedForward(t, []string{"localhost:" + port}, []string{"localhost:" + port})
		status, body := rawProxy(t, proxy, fmt.Sprintf("GET http://localhost:%s/v1/chat/completions HTTP/1.1\r\nHost: localhost:%s\r\n\r\n", port, port))
		if status != http.StatusOK || !strings.Contains(body, "[DONE]") {
			t.Errorf("a host --host names: %d %s", status, body)
		}
	})
}

// TestGuardedDialChecksTheDialledAddress: the dial function itself, with
// a name that resolves to a listening loopback server: refused unless
// named or mapped with --resolve; a public address is not refused.
func TestGuardedDialChecksTheDialledAddress(t *testing.T) {
	local := httptest.NewServer(tokenStream(1))
	defer local.Close()
	_, port, _ := net.SplitHostPort(local.Listener.Addr().String())
	ctx := context.Background()
	named := func(h string) bool { return h == "named.test" }
	dial := record.GuardedDial(map[string]string{"mapped.test:" + port: local.Listener.Addr().String()}, named)
	_, err := dial(ctx, "tcp", "localhost:"+port)
	var refused *record.RefusedError
	if !errorsAs(err, &refused) || refused.Kind != "loopback" || refused.Host != "localhost" {
		t.Errorf("localhost: %v", err)
	}
	if c, err := dial(ctx, "tcp", "mapped.test:"+port); err != nil {
		t.Errorf("a --resolve mapping: %v", err)
	} else {
		c.Close()
	}
	if c, err := record.GuardedDial(nil, func(h string) bool { return h == "localhost" })(ctx, "tcp", "localhost:"+port); err != nil {
		t.Errorf("a named host: %v", err)
	} else {
		c.Close()
	}
	if c, err := record.ResolveDial(nil)(ctx, "tcp", "localhost:"+port); err != nil {
		t.Errorf("unguarded: %v", err)
	} else {
		c.Close()
	}
}

func errorsAs(err error, target **record.RefusedError) bool {
	for err != nil {
		if r, ok := err.(*record.RefusedError); ok {
			*target = r
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// TestNonPublic classifies addresses as forward mode judges destinations.
func TestNonPublic(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"169.254.169.254": "link-local", "fe80::1": "link-local",
		"10.0.0.1": "private", "172.16.5.4": "private", "192.168.1.1": "private", "fd00::1": "private",
		"0.0.0.0": "unspecified", "::": "unspecified", "0.1.2.3": "unspecified",
		"100.100.100.200":    "shared (carrier-grade NAT)",
		"64:ff9b::a9fe:a9fe": "link-local", "2002:7f00:1::": "loopback",
		"239.1.2.3": "multicast", "224.0.0.251": "link-local", "255.255.255.255": "multicast",
		"8.8.8.8": "", "1.1.1.1": "", "2606:4700:4700::1111": "", "162.159.140.245": "",
	} {
		if got := record.NonPublic(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}
