package coding

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// flusher is a compressing writer that can flush a block, as a streaming
// server does after each event.
type flusher interface {
	io.WriteCloser
	Flush() error
}

// writer returns a compressing writer for coding over w.
func writer(t testing.TB, coding string, w io.Writer) flusher {
	t.Helper()
	switch coding {
	case "gzip":
		return gzip.NewWriter(w)
	case "deflate":
		return zlib.NewWriter(w)
	case "raw-deflate":
		fw, _ := flate.NewWriter(w, flate.DefaultCompression)
		return fw
	case "br":
		return brotli.NewWriter(w)
	case "zstd":
		zw, err := zstd.NewWriter(w)
		if err != nil {
			t.Fatal(err)
		}
		return zw
	}
	t.Fatalf("no writer for %s", coding)
	return nil
}

// encode compresses parts with coding, flushing after each part, and
// returns the encoded body and the offset where each part's flush ended.
func encode(t testing.TB, coding string, parts [][]byte) ([]byte, []int) {
	t.Helper()
	var b bytes.Buffer
	w := writer(t, coding, &b)
	var ends []int
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, b.Len())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), ends
}

// decodeAll feeds body to a Decoder for contentEncoding in pieces of n
// bytes and returns what it decoded and how it ended.
func decodeAll(t testing.TB, contentEncoding string, body []byte, n int) ([]byte, error) {
	t.Helper()
	d, err := NewDecoder(contentEncoding)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	emit := func(p []byte) { out.Write(p) }
	var werr error
	for off := 0; off < len(body); off += n {
		if err := d.Write(body[off:min(off+n, len(body))], emit); err != nil && werr == nil {
			werr = err
		}
	}
	cerr := d.Close(emit)
	if werr != nil && cerr == nil {
		t.Fatalf("Write failed with %v but Close returned nil", werr)
	}
	return out.Bytes(), cerr
}

func sseParts(t testing.TB) [][]byte {
	t.Helper()
	b, err := os.ReadFile("../fixtures/realworld/openai-chat-long-text.sse")
	if err != nil {
		t.Fatal(err)
	}
	var parts [][]byte
	for _, p := range bytes.SplitAfter(b, []byte("\n\n")) {
		if len(p) > 0 {
			parts = append(parts, p)
		}
	}
	return parts
}

// TestRoundTrip: every coding decodes back to the original body whatever
// the split, and each flushed event is decoded as soon as its bytes are
// written (what makes a live terminal watch possible).
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	parts := sseParts(t)
	want := bytes.Join(parts, nil)
	for _, c := range []struct{ coding, header string }{
		{"gzip", "gzip"}, {"gzip", "x-gzip"}, {"deflate", "deflate"}, {"raw-deflate", "deflate"}, {"br", "br"}, {"zstd", "zstd"},
	} {
		t.Run(c.coding+"/"+c.header, func(t *testing.T) {
			t.Parallel()
			body, ends := encode(t, c.coding, parts)
			for _, n := range []int{1, 7, 1000, len(body)} {
				got, err := decodeAll(t, c.header, body, n)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("pieces of %d: err %v, decoded %d bytes, want %d", n, err, len(got), len(want))
				}
			}
			// Live: after the bytes up to event i's flush, events 0..i are out.
			d, _ := NewDecoder(c.header)
			var out bytes.Buffer
			prev := 0
			for i, end := range ends {
				if err := d.Write(body[prev:end], func(p []byte) { out.Write(p) }); err != nil {
					t.Fatal(err)
				}
				prev = end
				if w := bytes.Join(parts[:i+1], nil); !bytes.Equal(out.Bytes(), w) {
					t.Fatalf("after event %d's flush: %d decoded bytes, want %d", i, out.Len(), len(w))
				}
			}
			if err := d.Write(body[prev:], func(p []byte) { out.Write(p) }); err != nil {
				t.Fatal(err)
			}
			if err := d.Close(func(p []byte) { out.Write(p) }); err != nil || !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("close: %v", err)
			}
		})
	}
}

// TestStacked: "gzip, br" was gzipped, then brotli-compressed; it decodes
// in reverse order.
func TestStacked(t *testing.T) {
	t.Parallel()
	parts := sseParts(t)
	want := bytes.Join(parts, nil)
	inner, _ := encode(t, "gzip", parts)
	outer, _ := encode(t, "br", [][]byte{inner})
	got, err := decodeAll(t, "gzip, br", outer, 333)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("err %v, %d bytes, want %d", err, len(got), len(want))
	}
}

// TestCutAndCorrupt: a body cut before its end marker decodes to a prefix
// of the original and ends with ErrCut; a flipped byte or trailing bytes
// are errors, never a hang or a panic.
func TestCutAndCorrupt(t *testing.T) {
	t.Parallel()
	parts := sseParts(t)
	want := bytes.Join(parts, nil)
	for _, coding := range []string{"gzip", "deflate", "br", "zstd"} {
		body, ends := encode(t, coding, parts)
		for _, cut := range []int{len(body) - 3, ends[len(ends)/2], 5} {
			got, err := decodeAll(t, coding, body[:cut], 64)
			if !errors.Is(err, ErrCut) {
				t.Errorf("%s cut at %d/%d: err %v, want ErrCut", coding, cut, len(body), err)
			}
			if !bytes.HasPrefix(want, got) {
				t.Errorf("%s cut at %d: decoded bytes are not a prefix of the body", coding, cut)
			}
		}
		if got, _ := decodeAll(t, coding, body[:ends[len(ends)/2]], 64); len(got) == 0 && coding != "br" {
			t.Errorf("%s cut mid-stream decoded nothing: the prefix must be kept", coding)
		}
		bad := append([]byte(nil), body...)
		for i := len(bad) / 3; i < len(bad)/3+8; i++ {
			bad[i] ^= 0x55
		}
		if _, err := decodeAll(t, coding, bad, 64); err == nil && coding != "deflate" {
			t.Errorf("%s corrupt: no error", coding)
		}
		if _, err := decodeAll(t, coding, append(append([]byte(nil), body...), "junk"...), 64); err == nil {
			t.Errorf("%s with trailing bytes: no error", coding)
		}
	}
}

func TestUnsupportedAndIdentity(t *testing.T) {
	t.Parallel()
	_, err := NewDecoder("gzip, compress")
	var u *UnsupportedError
	if !errors.As(err, &u) || u.Coding != "compress" || !strings.Contains(err.Error(), `"compress"`) {
		t.Fatalf("err %v", err)
	}
	got, err := decodeAll(t, " identity ", []byte("plain"), 2)
	if err != nil || string(got) != "plain" {
		t.Fatalf("identity: %q %v", got, err)
	}
}

// FuzzDecoder feeds any bytes to each decoder: it must end, with an error
// or not, without panicking, emitting no more than it is allowed to.
func FuzzDecoder(f *testing.F) {
	for _, c := range []string{"gzip", "deflate", "br", "zstd"} {
		body, _ := encode(f, c, [][]byte{[]byte("data: {\"a\":1}\n\n"), []byte("data: [DONE]\n\n")})
		f.Add(c, body)
	}
	f.Fuzz(func(t *testing.T, coding string, body []byte) {
		if _, err := Codings(coding); err != nil {
			return
		}
		got, err := decodeAll(t, coding, body, 3)
		again, err2 := decodeAll(t, coding, body, len(body)+1)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("split changes the outcome: %v vs %v", err, err2)
		}
		// A sound stream decodes the same whatever the split; a broken one
		// may decode more before the break is seen in small pieces.
		if err == nil && !bytes.Equal(got, again) || !bytes.HasPrefix(got, again) && !bytes.HasPrefix(again, got) {
			t.Fatalf("split changes the bytes: %d/%v vs %d/%v", len(got), err, len(again), err2)
		}
		// Parts, the decoder of whole recordings, agrees with the push
		// Decoder.
		var parts [][]byte
		for off := 0; off < len(body); off += 3 {
			parts = append(parts, body[off:min(off+3, len(body))])
		}
		joined, ends, err3 := (*Budget)(nil).Parts(parts, coding)
		if ends == nil && err3 == nil {
			joined = body // identity
		}
		if (err3 == nil) != (err == nil) || errors.Is(err3, ErrCut) != errors.Is(err, ErrCut) {
			t.Fatalf("Parts ends with %v, the Decoder with %v", err3, err)
		}
		if err == nil && !bytes.Equal(joined, got) || !bytes.HasPrefix(got, joined) && !bytes.HasPrefix(joined, got) {
			t.Fatalf("Parts decodes %d bytes, the Decoder %d", len(joined), len(got))
		}
		// The pull reader agrees too.
		pr, _ := (*Budget)(nil).NewReader(bytes.NewReader(body), coding)
		pulled, err4 := io.ReadAll(pr)
		if err == nil && (err4 != nil || !bytes.Equal(pulled, got)) || !bytes.HasPrefix(got, pulled) && !bytes.HasPrefix(pulled, got) {
			t.Fatalf("NewReader decodes %d bytes (%v), the Decoder %d (%v)", len(pulled), err4, len(got), err)
		}
	})
}

// TestParts: recorded reads decode to what each read decoded to, their
// joined data the original body.
func TestParts(t *testing.T) {
	t.Parallel()
	parts := sseParts(t)
	body, ends := encode(t, "gzip", parts)
	var wire [][]byte
	prev := 0
	for _, end := range append(ends, len(body)) {
		wire = append(wire, body[prev:end])
		prev = end
	}
	dec, decEnds, err := (*Budget)(nil).Parts(wire, "gzip")
	if err != nil || len(decEnds) != len(wire) {
		t.Fatalf("err %v, %d ends for %d parts", err, len(decEnds), len(wire))
	}
	prev = 0
	for i, end := range decEnds {
		if i < len(parts) && !bytes.Equal(dec[prev:end], parts[i]) {
			t.Fatalf("part %d decodes to %q, want event %q", i, dec[prev:end], parts[i])
		}
		prev = end
	}
	if !bytes.Equal(dec, bytes.Join(parts, nil)) {
		t.Fatal("decoded parts are not the body")
	}
	if _, _, err := (*Budget)(nil).Parts(wire[:len(wire)-1], "gzip"); !errors.Is(err, ErrCut) {
		t.Fatalf("cut: %v", err)
	}
}

func TestAccepts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		accept, ce string
		want       bool
	}{
		{"gzip, deflate, br, zstd", "br", true},
		{"gzip;q=1.0, br;q=0", "br", false},
		{"*", "zstd", true},
		{"*;q=0, gzip", "gzip", true},
		{"*;q=0, gzip", "br", false},
		{"", "gzip", false},
		{"gzip", "gzip, br", false},
		{"gzip, br", "gzip, br", true},
		{"x-gzip", "gzip", true},
		{"anything", "", true},
		{"gzip", "compress", false},
	} {
		if got := Accepts(c.accept, c.ce); got != c.want {
			t.Errorf("Accepts(%q, %q) = %v, want %v", c.accept, c.ce, got, c.want)
		}
	}
}

// TestDecode: a whole body decodes to the original in every coding and
// stack; a cut one to a prefix with ErrCut; trailing bytes and an
// unsupported coding are errors; identity gives the body back.
func TestDecode(t *testing.T) {
	t.Parallel()
	parts := sseParts(t)
	want := bytes.Join(parts, nil)
	for _, c := range []struct{ coding, header string }{
		{"gzip", "x-gzip"}, {"deflate", "deflate"}, {"raw-deflate", "deflate"}, {"br", "br"}, {"zstd", "zstd"},
	} {
		body, ends := encode(t, c.coding, parts)
		if got, err := Decode(body, c.header); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: err %v, %d bytes, want %d", c.coding, err, len(got), len(want))
		}
		got, err := Decode(body[:ends[len(ends)/2]], c.header)
		if !errors.Is(err, ErrCut) || !bytes.HasPrefix(want, got) || len(got) == 0 && c.coding != "br" {
			t.Errorf("%s cut: err %v, %d bytes (a prefix: %v)", c.coding, err, len(got), bytes.HasPrefix(want, got))
		}
		if _, err := Decode(append(slices.Clip(body), "junk"...), c.header); err == nil {
			t.Errorf("%s with trailing bytes: no error", c.coding)
		}
	}
	inner, _ := encode(t, "gzip", parts)
	outer, _ := encode(t, "br", [][]byte{inner})
	if got, err := Decode(outer, "gzip, br"); err != nil || !bytes.Equal(got, want) {
		t.Errorf("gzip, br: err %v, %d bytes, want %d", err, len(got), len(want))
	}
	var u *UnsupportedError
	if got, err := Decode(inner, "compress"); !errors.As(err, &u) || got != nil {
		t.Errorf("compress: %d bytes, err %v", len(got), err)
	}
	if got, err := Decode([]byte("plain"), "identity"); err != nil || string(got) != "plain" {
		t.Errorf("identity: %q %v", got, err)
	}
	if got, err := Decode(nil, "gzip"); err != nil || len(got) != 0 {
		t.Errorf("empty gzip body: %q %v", got, err)
	}
}

// TestBrotliOneByteReads: a br body that a network delivers a byte at a
// time decodes whole and ends cleanly (andybalholm/brotli reported
// "excessive input" at the end of such a stream: FuzzWatch in package
// protocol found it on a 14-byte body), while bytes after the stream's end
// are an error whether they come in the last write or after it.
func TestBrotliOneByteReads(t *testing.T) {
	t.Parallel()
	for _, body := range [][]byte{[]byte("00000220 10000"), bytes.Join(sseParts(t), nil)} {
		wire, err := Encode(body, "br")
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range []int{1, 2, 3, 7} {
			got, err := decodeAll(t, "br", wire, step)
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("%d bytes of br in writes of %d: err %v, %d of %d bytes", len(wire), step, err, len(got), len(body))
			}
			if _, err := decodeAll(t, "br", append(append([]byte(nil), wire...), "junk"...), step); err == nil {
				t.Errorf("br with trailing bytes in writes of %d: no error", step)
			}
		}
		if _, err := decodeAll(t, "br", append(append([]byte(nil), wire...), "junk"...), len(wire)+4); err == nil {
			t.Errorf("br with trailing bytes in the same write: no error")
		}
	}
}
