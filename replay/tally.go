package replay

import (
	"fmt"
	"net/http"
	"sync/atomic"
)

// Tally counts what a mock upstream answered, for the line seam serve
// prints when it stops: requests answered from captures, misses (the
// server's 404), and other error statuses (faults injected, recorded
// errors). A CONNECT is not counted: the requests inside its tunnel are.
// The zero Tally is ready to use.
type Tally struct {
	requests, misses, other atomic.Int64
}

// Wrap returns h counting the responses it writes into t.
func (t *Tally) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		if r.Method == http.MethodConnect {
			return
		}
		t.requests.Add(1)
		switch {
		case sw.status == http.StatusNotFound:
			t.misses.Add(1)
		case sw.status >= 400:
			t.other.Add(1)
		}
	})
}

// String is the summary line: "served 3 requests: 2 answered from
// captures, 1 miss".
func (t *Tally) String() string {
	n, miss, other := t.requests.Load(), t.misses.Load(), t.other.Load()
	requests := fmt.Sprintf("%d requests", n)
	if n == 1 {
		requests = "1 request"
	}
	misses := fmt.Sprintf("%d misses", miss)
	if miss == 1 {
		misses = "1 miss"
	}
	line := fmt.Sprintf("served %s: %d answered from captures, %s", requests, n-miss-other, misses)
	if other > 0 {
		line += fmt.Sprintf(", %d other errors (faults or recorded)", other)
	}
	return line
}

// statusWriter remembers the status a handler wrote; Unwrap lets
// http.ResponseController reach the connection's Flush and deadlines.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
