package main

import (
	"io"
	"net"
	"net/http"
	"sync/atomic"
)

// otlpSink is a loopback OTLP/HTTP endpoint that accepts every export
// request and discards it, for -otlp sink: seam record's export then
// costs what it costs against a Collector that keeps up.
type otlpSink struct {
	srv            *http.Server
	url            string
	requests, size atomic.Int64
}

func startOTLPSink() (*otlpSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &otlpSink{url: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		s.requests.Add(1)
		s.size.Add(n)
		w.Header().Set("Content-Type", "application/x-protobuf")
	})}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *otlpSink) Close() error { return s.srv.Close() }
