package record_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
)

// TestPrefaceIsNoExchange: a client speaking HTTP/2 without TLS (h2c with
// prior knowledge, as the AWS SDK for JavaScript does to an http://
// endpoint) to a server that speaks only HTTP/1.1 sends the HTTP/2 preface,
// which net/http hands over as a "PRI *" request. The recorder answers 505
// and records nothing: the preface is no exchange, and going upstream it
// came back a bogus 400.
func TestPrefaceIsNoExchange(t *testing.T) {
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		t.Errorf("the upstream got %s %s", req.Method, req.RequestURI)
	}), nil)
	conn, err := net.Dial("tcp", r.front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusHTTPVersionNotSupported {
		t.Errorf("status %d, want 505", resp.StatusCode)
	}
	if c := r.finish(); len(c.Exchanges) != 0 || len(r.sums) != 0 {
		t.Errorf("%d exchanges recorded for the preface", len(c.Exchanges))
	}
}
