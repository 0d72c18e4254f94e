package bench

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// Proxy is a recording proxy as seam record runs it: a [record.Recorder] on
// 127.0.0.1 in front of an upstream, writing a capture file through a
// [tape.Writer].
type Proxy struct {
	srv *server
	out *captureFile

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
	start := time.Now()
	out, err := createCapture(path, tape.Header{
		V: tape.Version, Seam: "bench", ID: "bench", Started: start.UTC(),
		Upstream: upstream, Engine: tape.Engine{Profile: "passthrough"},
	})
	if err != nil {
		return nil, err
	}
	rec, err := record.New(record.Options{Upstream: up, Writer: out.w, Start: start})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("new recorder: %w", err), out.close())
	}
	srv, err := serve(rec)
	if err != nil {
		return nil, errors.Join(err, out.close())
	}
	return &Proxy{srv: srv, out: out}, nil
}

// URL returns the proxy's base URL, http://127.0.0.1:port.
func (p *Proxy) URL() string { return p.srv.url }

// Close stops the proxy after its streams have ended, then writes out and
// closes the capture. Calls after the first return its result.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() { p.closeErr = errors.Join(p.srv.close(), p.out.close()) })
	return p.closeErr
}

// captureFile is a capture being written to a file of its own, as seam
// record writes one.
type captureFile struct {
	w    *tape.Writer
	file *os.File
}

// createCapture creates the new file at path and starts the capture in it
// with h.
func createCapture(path string, h tape.Header) (*captureFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create capture: %w", err)
	}
	w := tape.NewWriter(f, tape.WriterOptions{})
	w.Header(h)
	return &captureFile{w: w, file: f}, nil
}

// close writes out every line queued and closes the file.
func (c *captureFile) close() error {
	var err error
	if werr := c.w.Close(); werr != nil {
		err = fmt.Errorf("close capture writer: %w", werr)
	}
	if ferr := c.file.Close(); ferr != nil {
		err = errors.Join(err, fmt.Errorf("close capture: %w", ferr))
	}
	return err
}
