package bench

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// drainTimeout is how long closing a server waits for its streams to end.
const drainTimeout = 5 * time.Second

// server is an http.Server listening on a free port of 127.0.0.1 that keeps
// count of the requests it is handling.
type server struct {
	srv      *http.Server
	url      string
	done     chan error
	handlers sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// serve starts serving h on 127.0.0.1.
func serve(h http.Handler) (*server, error) { return serveTLS(h, nil) }

// serveTLS starts serving h on 127.0.0.1, over TLS with cfg when it is not
// nil (HTTP/2 when the client offers it).
func serveTLS(h http.Handler, cfg *tls.Config) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	scheme := "http://"
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
		scheme = "https://"
	}
	s := &server{url: scheme + ln.Addr().String(), done: make(chan error, 1)}
	s.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.handlers.Add(1)
			defer s.handlers.Done()
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	if cfg != nil {
		// A client closing a connection mid-handshake at the end of a
		// benchmark is not news.
		s.srv.ErrorLog = log.New(io.Discard, "", 0)
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// close waits a few seconds at most for the requests being handled to end,
// then closes every connection. Calls after the first return its result.
//
// It does not use http.Server.Shutdown, which waits five seconds for any
// connection a client transport opened but never used.
func (s *server) close() error {
	s.closeOnce.Do(func() { s.closeErr = s.shutdown() })
	return s.closeErr
}

func (s *server) shutdown() error {
	var err error
	drained := make(chan struct{})
	go func() {
		s.handlers.Wait()
		close(drained)
	}()
	timer := time.NewTimer(drainTimeout)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
		err = fmt.Errorf("close %s: requests still running after %v", s.url, drainTimeout)
	}
	s.srv.Close()
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, fmt.Errorf("serve %s: %w", s.url, serr))
	}
	return err
}
