package record_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/seam-dev/seam/visible/visibletest"
)

// TestSummaryLineHostile: the line seam record prints per exchange shows
// the path as it came on the wire, escaped, so a request (which a web page
// can make with a no-cors fetch to 127.0.0.1) cannot put an escape
// sequence, a bidi override or a C1 control on the terminal.
func TestSummaryLineHostile(t *testing.T) {
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	}), nil)
	paths := []string{
		"/v1/%1b%5d52;c;SGFjaw==%07/%1b[2J%9b%c2%9b", // percent-encoded OSC 52, CSI, C1
		"/v1/\xe2\x80\xae\xc2\x9b/x",                 // raw bidi override and C1 bytes (Go refuses raw controls)
	}
	for _, p := range paths {
		conn, err := net.Dial("tcp", r.front.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", p)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		resp.Body.Close()
		conn.Close()
	}
	r.finish()
	if len(r.sums) != len(paths) {
		t.Fatalf("%d summaries, want %d", len(r.sums), len(paths))
	}
	for _, s := range r.sums {
		line := s.String()
		if err := visibletest.Check(line); err != nil {
			t.Errorf("summary line %q: %v", line, err)
		}
		if !strings.Contains(line, "/v1/") {
			t.Errorf("summary line %q lost the path", line)
		}
	}
	// Summaries arrive as handlers end, not in request order: find the
	// percent-encoded one.
	escaped := false
	for _, s := range r.sums {
		line := s.String()
		escaped = escaped || strings.Contains(line, "%1b%5d52;c;SGFjaw==%07") || strings.Contains(line, "%1B%5D52;c;SGFjaw==%07")
	}
	if !escaped {
		t.Errorf("no summary line shows the escaped path: %v", r.sums)
	}
}
