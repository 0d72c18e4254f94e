package coding

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// NewReader returns a reader of the body read from r decoded from the
// given Content-Encoding, spending from b; an empty or identity value
// gives r itself (wrapped to be closed). Nothing is read from r before
// the first Read. Read returns io.EOF at the end of the compressed stream
// (bytes after it are left in r), [ErrCut] when r ends before it, a
// [*CapError] at a cap, an error of r that is not io.EOF as it is, and
// else an error naming the corrupt body. Close releases the decompressors;
// it does not close r. Memory is bounded as for a [Decoder]; a read of p
// decodes at most len(p) bytes.
func (b *Budget) NewReader(r io.Reader, contentEncoding string) (io.ReadCloser, error) {
	cs, err := Codings(contentEncoding)
	if err != nil {
		return nil, err
	}
	return &pullReader{src: &errKeeper{r: r}, codings: cs, budget: b}, nil
}

// pullBuffer is the read-ahead of a pull reader's decompressors: they
// read its bytes one by one as they need them.
const pullBuffer = 32 << 10

// pullReader decodes on the caller's goroutine, building its decompressors
// on the first Read (gzip and deflate read a header when they are made).
type pullReader struct {
	src     *errKeeper
	codings []string
	budget  *Budget
	r       io.Reader
	release func()
	out     int64
	err     error
}

func (p *pullReader) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if len(p.codings) == 0 {
		n, err := p.src.Read(b)
		if err != nil {
			p.err = err
		}
		return n, err
	}
	if p.r == nil {
		br := bufio.NewReaderSize(p.src, pullBuffer)
		if _, err := br.Peek(1); err != nil {
			// An empty body has no compressed stream to decode.
			p.err = p.fail(err)
			return 0, p.err
		}
		r, release, err := chain(p.codings, br)
		if err != nil {
			p.err = p.fail(err)
			return 0, p.err
		}
		p.r, p.release = r, release
	}
	if len(b) == 0 {
		return 0, nil
	}
	n, err := readCapped(p.r, b, p.budget, p.out)
	p.out += int64(n)
	if err != nil {
		p.err = p.fail(err)
		if errors.Is(p.err, io.EOF) {
			p.err = io.EOF
		}
	}
	return n, p.err
}

// fail names how decoding ended: the source's own error first.
func (p *pullReader) fail(err error) error {
	if p.src.err != nil && p.src.err != io.EOF {
		return p.src.err
	}
	if err == io.EOF {
		return io.EOF
	}
	var c *CapError
	if errors.As(err, &c) || errors.Is(err, ErrCut) {
		return err
	}
	return classify(strings.Join(p.codings, ", "), err)
}

func (p *pullReader) Close() error {
	if p.release != nil {
		p.release()
		p.release = nil
	}
	if p.err == nil {
		p.err = errors.New("coding: read after close")
	}
	return nil
}

// errKeeper is a reader that remembers the first error its source gave,
// so that a decompressor's report of it (a cut stream) is not taken for
// the source's own failure.
type errKeeper struct {
	r   io.Reader
	err error
}

func (e *errKeeper) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}
