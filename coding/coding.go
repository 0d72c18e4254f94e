// Package coding decodes HTTP content codings (RFC 9110 §8.4) of a body as
// it arrives: gzip (and x-gzip), deflate (zlib-wrapped, or raw as some
// servers send it), br and zstd, stacked in any order the Content-Encoding
// header lists them. seam keeps a body's wire bytes as they came and reads
// a decoded copy; this package makes that copy, incrementally, so every
// reader (the recorder's terminal watch, inspect, serve, export, the TUI)
// sees events as a client that decodes would.
//
// A Decoder is a push decoder: Write hands it the next wire bytes and it
// emits, before returning, every decoded byte those bytes complete. The
// decompressors of the standard library, klauspost/compress and
// andybalholm/brotli are pull readers, so each Decoder runs them on one
// goroutine, fed through a handshake that hands over one write at a time:
// what a write decodes to is exactly what the decompressor can produce
// from the bytes so far. Close ends the body and reports how the encoded
// stream ended: cleanly, cut short (ErrCut: the decoded prefix is kept, as
// Go's readers and undici do), or corrupt.
//
// Memory is bounded: the goroutine decodes into a 32 KiB buffer handed to
// the caller's emit, zstd windows above 8 MiB (RFC 9659's limit for the
// zstd coding) are refused, at most [MaxCodings] codings are stacked, and
// nothing is buffered beyond one write. So is the output: every decoder
// spends from a [Budget] and stops at its caps (see [MaxBody]), so a
// compression bomb costs a bounded amount of work, never memory.
//
// The other decoders are [Budget.Parts] and [Decode], for a body recorded
// whole, and [Budget.NewReader], a pull reader; [Encode] encodes.
package coding

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrCut is returned by Close when the body ended before the end of its
// compressed stream (no gzip trailer, no final zstd or brotli block): the
// body was truncated, although every byte decoded so far is sound.
var ErrCut = errors.New("the compressed body is cut: it ends before the end of its compressed stream")

// UnsupportedError is returned for a coding this package does not decode.
type UnsupportedError struct {
	Coding string
	// Stacked is the number of codings listed when there are more than
	// [MaxCodings] (Coding is then the whole list); 0 otherwise.
	Stacked int
}

func (e *UnsupportedError) Error() string {
	if e.Stacked > 0 {
		return fmt.Sprintf("Content-Encoding %s stacks %d codings: seam decodes at most %d", strconv.Quote(e.Coding), e.Stacked, MaxCodings)
	}
	return "content coding " + strconv.Quote(e.Coding) + " is not supported (gzip, deflate, br and zstd are)"
}

// Codings parses a Content-Encoding header value into the codings it lists,
// in the order they were applied, lower-cased, identity left out. It fails
// on a coding it does not decode, naming it, and on more than [MaxCodings]
// codings.
func Codings(contentEncoding string) ([]string, error) {
	var out []string
	for _, c := range strings.Split(contentEncoding, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		switch c {
		case "", "identity":
			continue
		case "x-gzip":
			c = "gzip"
		case "gzip", "deflate", "br", "zstd":
		default:
			return nil, &UnsupportedError{Coding: c}
		}
		out = append(out, c)
	}
	if len(out) > MaxCodings {
		return nil, &UnsupportedError{Coding: strings.TrimSpace(contentEncoding), Stacked: len(out)}
	}
	return out, nil
}

// Decoder decodes one body. It must be closed, or its goroutine stays
// parked. A Decoder is not safe for concurrent use.
type Decoder struct {
	codings []string
	budget  *Budget
	in      chan []byte
	idle    chan struct{}
	done    chan struct{}
	emit    func([]byte)
	err     error // set by the goroutine before done is closed
	waiting bool  // the goroutine waits in a read for the next write
	started bool
	closed  bool
	extra   int64 // bytes written after the compressed stream ended
	out     int64

	// panicked is a panic the goroutine recovered (in a decompressor, or
	// in emit), raised again on the caller's goroutine, where it can be
	// recovered: a process must not die of one body.
	panicked any
}

// NewDecoder returns a Decoder for a Content-Encoding header value, or an
// error naming a coding it does not decode. An empty or identity value
// gives a Decoder that passes the bytes through. It decodes up to
// [MaxBody] bytes; see [Budget.NewDecoder].
func NewDecoder(contentEncoding string) (*Decoder, error) {
	return (*Budget)(nil).NewDecoder(contentEncoding)
}

// NewDecoder returns a Decoder, as [NewDecoder] does, that spends from b:
// once a cap is reached it stops decoding, emits nothing more, and Write
// and Close return a [*CapError]. A Decoder that passes the bytes through
// (identity) decodes nothing and spends nothing.
func (b *Budget) NewDecoder(contentEncoding string) (*Decoder, error) {
	cs, err := Codings(contentEncoding)
	if err != nil {
		return nil, err
	}
	return &Decoder{codings: cs, budget: b}, nil
}

// Identity reports whether the Decoder passes the bytes through unchanged.
func (d *Decoder) Identity() bool { return len(d.codings) == 0 }

// Decoded returns how many decoded bytes were emitted so far.
func (d *Decoder) Decoded() int64 { return d.out }

// Write decodes p, the next wire bytes, calling emit with the decoded bytes
// they complete before it returns; emit's argument is valid only during
// the call. Once the compressed stream has ended or failed (or decoding
// stopped at a cap), Write emits nothing and returns that failure (nil once
// it ended cleanly).
func (d *Decoder) Write(p []byte, emit func([]byte)) error {
	if d.closed {
		return errors.New("coding: write after close")
	}
	if len(d.codings) == 0 {
		if len(p) > 0 {
			d.out += int64(len(p))
			emit(p)
		}
		return nil
	}
	if len(p) == 0 {
		return nil
	}
	d.emit = emit
	d.start()
	if !d.wait() {
		d.repanic()
		d.extra += int64(len(p))
		return d.err
	}
	d.in <- p
	d.waiting = false
	if !d.wait() {
		d.repanic()
		return d.err
	}
	return nil
}

// repanic raises on the caller's goroutine a panic the decoding goroutine
// recovered, once.
func (d *Decoder) repanic() {
	if v := d.panicked; v != nil {
		d.panicked = nil
		panic(v)
	}
}

// Close ends the body, emitting what the decompressor still holds, and
// returns how the compressed stream ended: nil when it ended cleanly,
// ErrCut when the body stopped short of its end, else the decoding error.
// Bytes after the end of the compressed stream are an error too.
func (d *Decoder) Close(emit func([]byte)) error {
	if d.closed {
		return d.result()
	}
	d.closed = true
	if len(d.codings) == 0 || !d.started {
		return nil
	}
	d.emit = emit
	if d.wait() {
		close(d.in)
	}
	<-d.done
	d.repanic()
	return d.result()
}

func (d *Decoder) result() error {
	switch {
	case d.err != nil:
		return d.err
	case d.extra > 0:
		return fmt.Errorf("%d bytes after the end of the compressed stream", d.extra)
	}
	return nil
}

// wait blocks until the goroutine waits for input (true) or has ended
// (false).
func (d *Decoder) wait() bool {
	if d.waiting {
		return true
	}
	select {
	case <-d.idle:
		d.waiting = true
		return true
	case <-d.done:
		return false
	}
}

func (d *Decoder) start() {
	if d.started {
		return
	}
	d.started = true
	d.in = make(chan []byte)
	d.idle = make(chan struct{})
	d.done = make(chan struct{})
	go d.run()
}

// run decodes on the Decoder's goroutine until the compressed stream ends.
func (d *Decoder) run() {
	defer close(d.done)
	defer func() {
		if v := recover(); v != nil {
			d.panicked = v
			d.err = fmt.Errorf("coding: panic while decoding: %v", v)
		}
	}()
	f := &feeder{d: d}
	r, release, err := chain(d.codings, f)
	if err != nil {
		d.err = err
		return
	}
	defer release()
	buf := make([]byte, 32<<10)
	for {
		n, err := readCapped(r, buf, d.budget, d.out)
		if n > 0 {
			d.out += int64(n)
			d.emit(buf[:n])
		}
		if err == io.EOF {
			// The compressed stream ended; what the feeder still holds
			// follows it.
			d.extra += int64(len(f.cur))
			return
		}
		if err != nil {
			d.err = classify(strings.Join(d.codings, ", "), err)
			return
		}
	}
}

// readCapped reads decoded bytes from r into p within what b leaves a body
// that has decoded done bytes, and counts them. At the cap it reads one
// byte more, not returned: if there is one, the body goes on past the cap
// and the error is a *CapError.
func readCapped(r io.Reader, p []byte, b *Budget, done int64) (int, error) {
	room, capErr := b.room(done)
	if room == 0 {
		var one [1]byte
		n, err := r.Read(one[:])
		if n > 0 {
			return 0, capErr
		}
		return 0, err
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := r.Read(p)
	b.spend(n)
	return n, err
}

// classify names how a decompressor's read failed: a cap, a cut body, or
// a corrupt one.
func classify(coding string, err error) error {
	var c *CapError
	switch {
	case errors.As(err, &c):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return ErrCut
	}
	return fmt.Errorf("%s: corrupt compressed body: %w", coding, err)
}

// Accepts reports whether a client sending the Accept-Encoding value accept
// can read a body with the Content-Encoding contentEncoding: every coding
// of it is listed (or "*" is) with a weight above zero. A client that sends
// no Accept-Encoding is taken to want identity (curl without --compressed
// decodes nothing).
func Accepts(accept, contentEncoding string) bool {
	cs, err := Codings(contentEncoding)
	if err != nil {
		return false
	}
	q := map[string]bool{}
	star := false
	for _, item := range strings.Split(accept, ",") {
		name, params, _ := strings.Cut(item, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "x-gzip" {
			name = "gzip"
		}
		ok := true
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(p, "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				ok = err == nil && f > 0
			}
		}
		if name == "*" {
			star = ok
			continue
		}
		if name != "" {
			q[name] = ok
		}
	}
	for _, c := range cs {
		ok, listed := q[c]
		if !listed {
			ok = star
		}
		if !ok {
			return false
		}
	}
	return true
}
