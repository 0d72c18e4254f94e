package listen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/internal/streamtest"
)

// TestHostGuard: a request is answered when its Host is an IP address,
// localhost or a name under .localhost, the listen name or a name
// --allow-host gives; any other name, as a page rebinding its own DNS name
// to 127.0.0.1 would send, gets 421 with a body naming the flag, and the
// refusal is logged once per host.
func TestHostGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "answered") })
	var log bytes.Buffer
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = NewServer(ok, Options{Listen: "seam.lan:8080", AllowHosts: []string{"Box.Internal."}, Log: &log})
	srv.Start()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	for _, tc := range []struct {
		host string
		want int
	}{
		{addr, 200},
		{"127.0.0.1", 200},
		{"127.0.0.2:9", 200},
		{"[::1]:8080", 200},
		{"10.0.0.7:8080", 200},
		{"localhost:8080", 200},
		{"LOCALHOST.", 200},
		{"api.localhost:8080", 200},
		{"seam.lan:8080", 200},
		{"box.internal", 200},
		{"evil.example", 421},
		{"evil.example:8080", 421},
		{"localhost.evil.example", 421},
		{"127.0.0.1.nip.io", 421},
		{"seam.lan.evil.example", 421},
	} {
		status, body := streamtest.GetHost(t, addr, tc.host, "/v1/chat/completions")
		if status != tc.want {
			t.Errorf("Host %s: status %d, want %d (%s)", tc.host, status, tc.want, body)
		}
		if status == 421 {
			var e struct {
				Error struct{ Message, Code string }
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Code != "host_not_allowed" || !strings.Contains(e.Error.Message, "--allow-host "+strings.Split(tc.host, ":")[0]) {
				t.Errorf("Host %s: body %s", tc.host, body)
			}
		}
	}
	streamtest.GetHost(t, addr, "evil.example", "/again")
	if n := strings.Count(log.String(), "refused a request for Host evil.example "); n != 1 {
		t.Errorf("refusals of evil.example logged %d times:\n%s", n, log.String())
	}
	any := httptest.NewUnstartedServer(nil)
	any.Config = NewServer(ok, Options{AllowHosts: []string{"*"}})
	any.Start()
	defer any.Close()
	if status, _ := streamtest.GetHost(t, any.Listener.Addr().String(), "evil.example", "/"); status != 200 {
		t.Errorf("--allow-host '*': status %d", status)
	}
}

// TestIdleTimeout: a keep-alive connection idle for longer than the idle
// timeout is closed, while a stream that pauses for longer than that
// timeout between writes, and lasts several times longer, runs to its end.
func TestIdleTimeout(t *testing.T) {
	const idle = 100 * time.Millisecond
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slow" {
			io.WriteString(w, "ok")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 4 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(2 * idle)
		}
	})
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = NewServer(h, Options{Idle: idle, ReadHeader: idle})
	srv.Start()
	defer srv.Close()

	// The stream: 4 events, twice the idle timeout apart.
	done := make(chan error, 1)
	go func() {
		resp, err := http.Get(srv.URL + "/slow")
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && strings.Count(string(b), "data: ") != 4 {
			err = fmt.Errorf("stream cut: %q", b)
		}
		done <- err
	}()

	// The idle connection: one request, then nothing.
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("idle connection: read %v, want EOF (closed by the server)", err)
	}
	if waited := time.Since(start); waited < idle/2 || waited > 3*time.Second {
		t.Errorf("idle connection closed after %s, idle timeout %s", waited, idle)
	}
	if err := <-done; err != nil {
		t.Errorf("slow stream: %v", err)
	}
}

// TestHostGuardForward: a forward proxy's CONNECT and absolute-form
// requests name the host they are for (and no web page can send them), so
// they pass; an origin-form request for a foreign Host is still refused.
// Without forward, an absolute-form request is Host-checked as any other.
func TestHostGuardForward(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "answered") })
	for _, forward := range []bool{true, false} {
		srv := httptest.NewUnstartedServer(nil)
		srv.Config = NewServer(ok, Options{Forward: forward})
		srv.Start()
		for _, tc := range []struct {
			line string
			fwd  int // status in forward mode; otherwise 421
		}{
			{"CONNECT api.openai.com:443 HTTP/1.1\r\nHost: api.openai.com:443", 200},
			{"GET http://evil.example/x HTTP/1.1\r\nHost: evil.example", 200},
			{"GET /x HTTP/1.1\r\nHost: evil.example", 421},
		} {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "%s\r\nConnection: close\r\n\r\n", tc.line)
			resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: strings.Fields(tc.line)[0]})
			if err != nil {
				t.Fatalf("%q: %v", tc.line, err)
			}
			resp.Body.Close()
			conn.Close()
			want := tc.fwd
			if !forward {
				want = 421
			}
			if resp.StatusCode != want {
				t.Errorf("forward %v, %q: status %d, want %d", forward, strings.SplitN(tc.line, "\r\n", 2)[0], resp.StatusCode, want)
			}
		}
		srv.Close()
	}
}

// TestRun: the handler (behind wrap) answers on the address announced
// until ctx ends, which stops the run without an error and runs wrap's
// stop; a wrap error ends the run before serving, an address in use is a
// listen error.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	stopped := false
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "inner") })
	wrap := func(h http.Handler) (http.Handler, func(), error) {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "wrapped ")
			h.ServeHTTP(w, r)
		}), func() { stopped = true }, nil
	}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, "127.0.0.1:0", h, Options{Log: io.Discard}, false, wrap, func(a net.Addr) { addrs <- a })
	}()
	addr := <-addrs
	resp, err := http.Get("http://" + addr.String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "wrapped inner" {
		t.Errorf("answer %q", b)
	}
	if err := Run(context.Background(), addr.String(), h, Options{}, false, nil, func(net.Addr) {}); err == nil || !InUse(err) {
		t.Errorf("address in use: %v", err)
	}
	cancel()
	if err := <-done; err != nil || !stopped {
		t.Errorf("after ctx ended: %v, wrap stopped %v", err, stopped)
	}
	bad := errors.New("no proxy")
	err = Run(context.Background(), "127.0.0.1:0", h, Options{}, false, func(http.Handler) (http.Handler, func(), error) { return nil, nil, bad }, func(net.Addr) { t.Error("announced") })
	if !errors.Is(err, bad) {
		t.Errorf("wrap error: %v", err)
	}
}
