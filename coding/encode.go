package coding

import (
	"bytes"
	"compress/zlib"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Encode encodes body in the codings a Content-Encoding value lists,
// applied in the order listed, so that decoding it with the same value
// gives body back. It is for a body seam rewrites (a request body whose
// secrets were redacted) and keeps the coding its headers declare.
// deflate is written zlib-wrapped, as RFC 9110 defines it.
func Encode(body []byte, contentEncoding string) ([]byte, error) {
	cs, err := Codings(contentEncoding)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		var b bytes.Buffer
		var w io.WriteCloser
		switch c {
		case "gzip":
			w = gzip.NewWriter(&b)
		case "deflate":
			w = zlib.NewWriter(&b)
		case "br":
			w = brotli.NewWriter(&b)
		case "zstd":
			w, err = zstd.NewWriter(&b, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
			if err != nil {
				return nil, err
			}
		}
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		body = b.Bytes()
	}
	return body, nil
}
