package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// h2cClient speaks HTTP/2 without TLS with prior knowledge to http://
// URLs, as the AWS SDK for JavaScript's default handler does.
func h2cClient() *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &p}, Timeout: 20 * time.Second}
}

// h2cEvents is the SSE body the upstream of the h2c tests streams.
var h2cEvents = []string{
	`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hé"}}]}` + "\n\n",
	`data: {"choices":[{"index":0,"delta":{"content":"llo"}}]}` + "\n\n",
	`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n",
	"data: [DONE]\n\n",
}

// h2cUpstream streams h2cEvents over HTTP/1.1, holding the rest back after
// the first event until release is closed (when it is not nil): a client
// that reads that event before release has it streamed, not buffered.
// It records the request bodies it got.
func h2cUpstream(t *testing.T, release func() <-chan struct{}, bodies chan<- string) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if bodies != nil {
			bodies <- string(b)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range h2cEvents {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
			if i == 0 && release != nil {
				select {
				case <-release():
				case <-time.After(10 * time.Second):
					t.Error("the client never got the first event while the upstream held the rest")
				}
			}
		}
	}))
	t.Cleanup(up.Close)
	return up
}

// h2cStream posts body to url over h2c and returns what it read, checking
// that the answer came over HTTP/2 and, when got is set, closing got as
// soon as the first event has arrived.
func h2cStream(t *testing.T, url, body string, got chan struct{}) string {
	t.Helper()
	resp, err := h2cClient().Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("h2c POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
		t.Fatalf("h2c POST %s: %s %s", url, resp.Proto, resp.Status)
	}
	br := bufio.NewReader(resp.Body)
	var read bytes.Buffer
	first, err := br.ReadString('\n')
	read.WriteString(first)
	if err != nil {
		t.Fatalf("first line: %v", err)
	}
	if got != nil {
		close(got)
	}
	if _, err := io.Copy(&read, br); err != nil {
		t.Fatalf("after %q: %v", read.String(), err)
	}
	return read.String()
}

// checkH2CCapture reads the capture at path: one exchange (no "PRI *"
// preface recorded as one), the request body as sent, and both sides the
// upstream's bytes exactly.
func checkH2CCapture(t *testing.T, path, reqBody string) *tape.Exchange {
	t.Helper()
	c, err := tape.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) > 0 {
		t.Errorf("capture warnings: %v", c.Warnings)
	}
	if len(c.Exchanges) != 1 {
		for _, x := range c.Exchanges {
			t.Logf("exchange %d: %s %s", x.Ex, x.Request.Method, x.Request.URL)
		}
		t.Fatalf("%d exchanges, want the one request", len(c.Exchanges))
	}
	x := c.Exchanges[0]
	if x.Request == nil || x.Request.Method != "POST" || string(x.Request.Body) != reqBody {
		t.Fatalf("request %+v", x.Request)
	}
	want := strings.Join(h2cEvents, "")
	for _, sd := range []*tape.SideData{&x.Upstream, &x.Client} {
		if got := string(sd.Body()); got != want {
			t.Errorf("recorded body %q, want %q", got, want)
		}
		if sd.End == nil || !sd.End.Outcome.Success() {
			t.Errorf("end %+v", sd.End)
		}
	}
	return x
}

// TestH2C: a client speaking HTTP/2 without TLS (prior knowledge) streams
// through seam record and from seam serve, in replay and in a recording
// mode, and through the back leg of a sandwich: every answer comes over
// HTTP/2 as the upstream streamed it (the first event before the upstream
// sends the rest), the request reaches the upstream whole, and each
// capture holds the one exchange byte for byte, no preface among them.
func TestH2C(t *testing.T) {
	const reqBody = `{"model":"m","stream":true,"messages":[{"role":"user","content":"héllo"}]}`
	var gate atomic.Pointer[chan struct{}]
	release := func() <-chan struct{} { return *gate.Load() }
	bodies := make(chan string, 8)
	up := h2cUpstream(t, release, bodies)
	want := strings.Join(h2cEvents, "")
	stream := func(t *testing.T, url string) string {
		t.Helper()
		g := make(chan struct{})
		gate.Store(&g)
		return h2cStream(t, url, reqBody, g)
	}

	dir := t.TempDir()
	recorded := filepath.Join(dir, "record.ndjson")
	t.Run("record", func(t *testing.T) {
		rec, addr := startRecord(t, up.URL, recorded)
		if got := stream(t, "http://"+addr+"/v1/chat/completions"); got != want {
			t.Errorf("client got %q", got)
		}
		if b := <-bodies; b != reqBody {
			t.Errorf("upstream got the request body %q", b)
		}
		rec.Process.Signal(os.Interrupt)
		rec.Wait()
		checkH2CCapture(t, recorded, reqBody)
	})

	t.Run("serve", func(t *testing.T) {
		_, addr := startSeam(t, `on http://(\S+)`, "serve", "--speed", "0", "--listen", "127.0.0.1:0", recorded)
		if got := h2cStream(t, "http://"+addr+"/v1/chat/completions", reqBody, nil); got != want {
			t.Errorf("replayed %q", got)
		}
	})

	t.Run("serve --mode all", func(t *testing.T) {
		out := filepath.Join(dir, "serve-all.ndjson")
		srv, addr := startSeam(t, `on http://(\S+)`, "serve", "--mode", "all", "--upstream", up.URL, "-o", out, "--listen", "127.0.0.1:0", "-q")
		if got := stream(t, "http://"+addr+"/v1/chat/completions"); got != want {
			t.Errorf("client got %q", got)
		}
		<-bodies
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
		checkH2CCapture(t, out, reqBody)
	})

	t.Run("sandwich back leg", func(t *testing.T) {
		// The proxy under test calls its upstream (seam's back leg) over
		// h2c and relays what it reads.
		var back atomic.Value
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			resp, err := h2cClient().Post("http://"+back.Load().(string)+r.URL.Path, "application/json", r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			if resp.ProtoMajor != 2 {
				http.Error(w, "the back leg answered over "+resp.Proto, http.StatusBadGateway)
				return
			}
			w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
			buf := make([]byte, 4096)
			for {
				n, err := resp.Body.Read(buf)
				w.Write(buf[:n])
				w.(http.Flusher).Flush()
				if err != nil {
					return
				}
			}
		}))
		defer proxy.Close()
		out := filepath.Join(dir, "sandwich.ndjson")
		cmd, front, br := launchSeam(t, `listening on http://(\S+) → `, "record", "--upstream", up.URL, "--proxy", proxy.URL,
			"--listen", "127.0.0.1:0", "--back", "127.0.0.1:0", "-o", out)
		line, err := br.ReadString('\n')
		m := regexp.MustCompile(`listening on http://(\S+) → \S+ for the proxy under test`).FindStringSubmatch(line)
		if err != nil || m == nil {
			t.Fatalf("second banner %q: %v", line, err)
		}
		back.Store(m[1])
		go io.Copy(io.Discard, br)
		if got := stream(t, "http://"+front+"/v1/chat/completions"); got != want {
			t.Errorf("client got %q", got)
		}
		<-bodies
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		x := checkH2CCapture(t, out, reqBody)
		if x.UpstreamRequest == nil || string(x.UpstreamRequest.Body) != reqBody {
			t.Errorf("the proxy's upstream request: %+v", x.UpstreamRequest)
		}
	})
}

// TestPrefaceOnForwardListener: the forward proxy's listener speaks only
// HTTP/1.1 (CONNECT and absolute-form requests are HTTP/1.1's): an HTTP/2
// preface sent to it gets 505 and is recorded as no exchange.
func TestPrefaceOnForwardListener(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fwd.ndjson")
	cmd, addr := startSeam(t, `listening on http://(\S+)`, "record", "--forward", "--listen", "127.0.0.1:0", "-o", out)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusHTTPVersionNotSupported {
		t.Errorf("status %d, want 505", resp.StatusCode)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	c, err := tape.ReadFile(out)
	if err != nil || len(c.Exchanges) != 0 {
		t.Errorf("capture: %v, %d exchanges", err, len(c.Exchanges))
	}
}
