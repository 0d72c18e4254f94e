package coding

import (
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// The decompressors behind a Decoder: one per coding, chained for a list
// of codings, reading the bytes written as they arrive.

// reader is a decompressing reader taken from a pool; release returns it.
type reader struct {
	io.Reader
	release func()
}

var (
	gzipPool   sync.Pool // *gzip.Reader
	zstdPool   sync.Pool // *zstd.Decoder
	brotliPool sync.Pool // *brotliReader
)

// newReader returns the decompressing reader for one coding over r.
func newReader(coding string, r io.Reader) (reader, error) {
	switch coding {
	case "gzip":
		if z, ok := gzipPool.Get().(*gzip.Reader); ok {
			if err := z.Reset(r); err != nil {
				gzipPool.Put(z)
				return reader{}, err
			}
			return reader{z, func() { gzipPool.Put(z) }}, nil
		}
		z, err := gzip.NewReader(r)
		if err != nil {
			return reader{}, err
		}
		return reader{z, func() { gzipPool.Put(z) }}, nil
	case "deflate":
		// RFC 9110 deflate is zlib-wrapped; some servers send raw deflate.
		pr := &prefixed{r: r}
		if _, err := io.ReadFull(r, pr.head[:]); err != nil {
			return reader{}, err
		}
		if pr.head[0]&0x0f == 8 && (uint16(pr.head[0])<<8|uint16(pr.head[1]))%31 == 0 {
			z, err := zlib.NewReader(pr)
			return reader{z, func() {}}, err
		}
		return reader{flate.NewReader(pr), func() {}}, nil
	case "br":
		b, ok := brotliPool.Get().(*brotliReader)
		if !ok {
			b = &brotliReader{}
			b.Reader = brotli.NewReader(&b.src)
		}
		b.reset(r)
		return reader{b, func() { brotliPool.Put(b) }}, nil
	case "zstd":
		d, ok := zstdPool.Get().(*zstd.Decoder)
		if !ok {
			var err error
			d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(8<<20), zstd.WithDecoderLowmem(true))
			if err != nil {
				return reader{}, err
			}
		}
		if err := d.Reset(r); err != nil {
			zstdPool.Put(d)
			return reader{}, err
		}
		return reader{d, func() { d.Reset(nil); zstdPool.Put(d) }}, nil
	}
	return reader{}, &UnsupportedError{Coding: coding}
}

// chain stacks the decoders of codings (applied in that order) over src:
// the last coding applied is decoded first.
func chain(codings []string, src io.Reader) (io.Reader, func(), error) {
	var releases []func()
	release := func() {
		for _, f := range releases {
			f()
		}
	}
	r := src
	for i := len(codings) - 1; i >= 0; i-- {
		nr, err := newReader(codings[i], r)
		if err != nil {
			release()
			return nil, nil, classify(codings[i], err)
		}
		releases = append(releases, nr.release)
		r = nr
	}
	return r, release, nil
}

// prefixed is r after two bytes already read from it, read byte by byte
// when the decompressor wants (so it reads no further than it needs).
type prefixed struct {
	head [2]byte
	n    int
	r    io.Reader
}

func (p *prefixed) Read(b []byte) (int, error) {
	if p.n < len(p.head) {
		k := copy(b, p.head[p.n:])
		p.n += k
		return k, nil
	}
	return p.r.Read(b)
}

func (p *prefixed) ReadByte() (byte, error) {
	if p.n < len(p.head) {
		p.n++
		return p.head[p.n-1], nil
	}
	return p.r.(io.ByteReader).ReadByte()
}

// feeder is the decompressor's source: the bytes of one Write at a time.
// When they are used up it tells the caller it waits (idle) and blocks
// until the next Write, or Close.
type feeder struct {
	d   *Decoder
	cur []byte
	eof bool
}

func (f *feeder) Read(p []byte) (int, error) {
	if !f.fill() {
		return 0, io.EOF
	}
	n := copy(p, f.cur)
	f.cur = f.cur[n:]
	return n, nil
}

// ReadByte lets flate and gzip read exactly what they need, so bytes after
// the compressed stream stay in the feeder, where they are counted.
func (f *feeder) ReadByte() (byte, error) {
	if !f.fill() {
		return 0, io.EOF
	}
	c := f.cur[0]
	f.cur = f.cur[1:]
	return c, nil
}

// fill waits for the next write when the current one is used up, and
// reports whether there are bytes to read.
func (f *feeder) fill() bool {
	for len(f.cur) == 0 {
		if f.eof {
			return false
		}
		f.d.idle <- struct{}{}
		b, ok := <-f.d.in
		if !ok {
			f.eof = true
			return false
		}
		f.cur = b
	}
	return true
}

// brotliReader is andybalholm/brotli's reader with one of its errors
// checked again: at the end of a valid stream read in small pieces (a byte
// at a time, as a network may deliver it) it reports "excessive input"
// although every byte was consumed (the count of its internal buffer is
// not cleared). On that error it reads once more, with no room for output,
// from a source that says EOF: a reader holding no unread input asks its
// source for more, and the stream ended cleanly; one holding bytes past
// the stream's end does not ask, and the error stands.
type brotliReader struct {
	*brotli.Reader
	src   probeSource
	ended bool
}

func (b *brotliReader) reset(r io.Reader) {
	b.src = probeSource{r: r}
	b.ended = false
	b.Reader.Reset(&b.src)
}

func (b *brotliReader) Read(p []byte) (int, error) {
	if b.ended {
		return 0, io.EOF
	}
	n, err := b.Reader.Read(p)
	if err == nil || err.Error() != "brotli: excessive input" {
		return n, err
	}
	b.src.probing = true
	b.Reader.Read(nil)
	b.src.probing = false
	if b.src.asked {
		b.ended = true
		return n, nil
	}
	return n, err
}

// probeSource is a brotliReader's source: r, or, while probing, nothing
// (EOF), noting that it was asked.
type probeSource struct {
	r              io.Reader
	probing, asked bool
}

func (p *probeSource) Read(b []byte) (int, error) {
	if p.probing {
		p.asked = true
		return 0, io.EOF
	}
	return p.r.Read(b)
}
