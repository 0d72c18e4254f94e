package bench

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/seam-dev/seam/capture"
	"github.com/seam-dev/seam/tape"
)

// Proxy is a recording proxy as seam record runs it: a [capture.Recorder] on
// 127.0.0.1 in front of an upstream, writing a capture file through a
// [tape.Writer].
type Proxy struct {
	srv  *server
	w    *tape.Writer
	file *os.File

	closeOnce sync.Once
	closeErr  error
}

// NewProxy starts a recording proxy in front of upstream that writes its
// capture, passthrough engine, to the new file at path.
func NewProxy(upstream string, path string) (*Proxy, error) {
	up, err := url.Parse(upstream)
	if err != nil {
		return nil, fmt.Errorf("parse upstream: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create capture: %w", err)
	}
	start := time.Now()
	w := tape.NewWriter(f, tape.WriterOptions{})
	w.Header(tape.Header{
		V: tape.Version, Seam: "bench", ID: "bench", Started: start.UTC(),
		Upstream: upstream, Engine: tape.Engine{Profile: "passthrough"},
	})
	rec, err := capture.New(capture.Options{Upstream: up, Writer: w, Start: start})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("new recorder: %w", err), w.Close(), f.Close())
	}
	srv, err := serve(rec)
	if err != nil {
		return nil, errors.Join(err, w.Close(), f.Close())
	}
	return &Proxy{srv: srv, w: w, file: f}, nil
}

// URL returns the proxy's base URL, http://127.0.0.1:port.
func (p *Proxy) URL() string { return p.srv.url }

// Close stops the proxy after its streams have ended, then writes out and
// closes the capture. Calls after the first return its result.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() { p.closeErr = p.close() })
	return p.closeErr
}

func (p *Proxy) close() error {
	err := p.srv.close()
	if werr := p.w.Close(); werr != nil {
		err = errors.Join(err, fmt.Errorf("close capture writer: %w", werr))
	}
	if ferr := p.file.Close(); ferr != nil {
		err = errors.Join(err, fmt.Errorf("close capture: %w", ferr))
	}
	return err
}
