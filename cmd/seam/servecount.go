package main

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// serveTally counts what seam serve answered, for the line it prints when
// it stops: requests answered from captures, misses (seam's 404), and
// other statuses (faults it injected, recorded errors).
type serveTally struct {
	requests, misses, other atomic.Int64
}

// wrap counts the responses h writes.
func (t *serveTally) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		if r.Method == http.MethodConnect {
			return // a tunnel: the requests inside it are counted
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

// report writes the summary line: "served 3 requests: 2 answered from
// captures, 1 miss".
func (t *serveTally) report(w io.Writer) {
	n, miss, other := t.requests.Load(), t.misses.Load(), t.other.Load()
	misses := fmt.Sprintf("%d misses", miss)
	if miss == 1 {
		misses = "1 miss"
	}
	line := fmt.Sprintf("served %s: %d answered from captures, %s", plural(int(n), "request"), n-miss-other, misses)
	if other > 0 {
		line += fmt.Sprintf(", %d other errors (faults or recorded)", other)
	}
	fmt.Fprintln(w, line)
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
