package coding

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// bomb returns coding's encoding of n bytes of one repeated event line
// cut short of its end: what a hostile upstream sends, a few KiB on the
// wire for many MiB decoded.
func bomb(t testing.TB, coding string, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := writer(t, coding, &b)
	line := bytes.Repeat([]byte("a"), 64<<10)
	w.Write([]byte("data: "))
	for left := n - 6; left > 0; left -= len(line) {
		if _, err := w.Write(line[:min(left, len(line))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func capIs(err error, cap int64, per string) bool {
	var c *CapError
	return errors.As(err, &c) && c.Cap == cap && c.Per == per
}

// TestDecoderCap: a push Decoder stops at the cap per body, emits exactly
// the bytes up to it, and says so from the write that reached it on; a
// body that decodes to exactly the cap is no error.
func TestDecoderCap(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	for _, c := range []string{"gzip", "deflate", "br", "zstd"} {
		body := bomb(t, c, 3*limit)
		for _, n := range []int{7, len(body)} {
			d, err := NewBudget(limit, 0).NewDecoder(c)
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			emit := func(p []byte) { got += len(p) }
			var werr error
			for off := 0; off < len(body); off += n {
				if err := d.Write(body[off:min(off+n, len(body))], emit); err != nil && werr == nil {
					werr = err
				}
			}
			cerr := d.Close(emit)
			if got != limit || !capIs(werr, limit, "body") || !capIs(cerr, limit, "body") {
				t.Errorf("%s in writes of %d: %d bytes emitted, write error %v, close %v; want %d and the cap", c, n, got, werr, cerr, limit)
			}
			if !strings.Contains(cerr.Error(), "1 MiB decoded per body") {
				t.Errorf("%s: the error does not name the cap: %v", c, cerr)
			}
		}
		exact := bomb(t, c, limit)
		d, _ := NewBudget(limit, 0).NewDecoder(c)
		got := 0
		d.Write(exact, func(p []byte) { got += len(p) })
		if err := d.Close(func(p []byte) { got += len(p) }); err != nil || got != limit {
			t.Errorf("%s body of exactly the cap: %d bytes, %v", c, got, err)
		}
	}
}

// TestExchangeCap: the bodies of one exchange share the exchange cap; the
// one that passes it stops where the cap is reached.
func TestExchangeCap(t *testing.T) {
	t.Parallel()
	const body, exchange = 1 << 20, 3 << 19 // 1 MiB a body, 1.5 MiB in all
	b := NewBudget(body, exchange)
	first, err := b.Decode(bomb(t, "gzip", 4*body), "gzip")
	if len(first) != body || !capIs(err, body, "body") {
		t.Fatalf("first body: %d bytes, %v", len(first), err)
	}
	second, err := b.Decode(bomb(t, "br", 4*body), "br")
	if len(second) != exchange-body || !capIs(err, exchange, "exchange") {
		t.Fatalf("second body: %d bytes, %v; want %d and the exchange cap", len(second), err, exchange-body)
	}
	if b.Used() != exchange {
		t.Fatalf("used %d, want %d", b.Used(), exchange)
	}
	r, _ := b.NewReader(bytes.NewReader(bomb(t, "zstd", body)), "zstd")
	if n, err := io.Copy(io.Discard, r); n != 0 || !capIs(err, exchange, "exchange") {
		t.Fatalf("third body: %d bytes, %v", n, err)
	}
}

// TestDefaultCapBoundsMemory: a compression bomb of 1 GiB decodes to
// MaxBody bytes and stops, with memory bounded by what is kept: nothing
// for the push decoder and the pull reader, the capped body for Decode.
func TestDefaultCapBoundsMemory(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures memory: run without -race and -short; compresses 1 GiB")
	}
	body := bomb(t, "zstd", 1<<30)
	if len(body) > 1<<20 {
		t.Fatalf("the bomb is %d bytes", len(body))
	}
	alloc := func(f func()) uint64 {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	var got int
	var err error
	a := alloc(func() {
		d, _ := NewDecoder("zstd")
		emit := func(p []byte) { got += len(p) }
		d.Write(body, emit)
		err = d.Close(emit)
	})
	if got != MaxBody || !capIs(err, MaxBody, "body") || a > 32<<20 {
		t.Fatalf("Decoder: %d bytes, %v, %d bytes allocated", got, err, a)
	}
	var dec []byte
	a = alloc(func() { dec, err = Decode(body, "zstd") })
	if len(dec) != MaxBody || !capIs(err, MaxBody, "body") || a > 3*MaxBody {
		t.Fatalf("Decode: %d bytes, %v, %d bytes allocated", len(dec), err, a)
	}
	dec = nil
	var n int64
	a = alloc(func() {
		r, _ := NewExchangeBudget().NewReader(bytes.NewReader(body), "zstd")
		n, err = io.Copy(io.Discard, r)
		r.Close()
	})
	if n != MaxBody || !capIs(err, MaxBody, "body") || a > 32<<20 {
		t.Fatalf("NewReader: %d bytes, %v, %d bytes allocated", n, err, a)
	}
	r, _ := Unlimited.NewReader(bytes.NewReader(body), "zstd")
	if n, err := io.Copy(io.Discard, r); n != 1<<30 || err != nil {
		t.Fatalf("Unlimited: %d bytes, %v", n, err)
	}
}

// TestStackedCap: more than MaxCodings codings are refused, naming them.
func TestStackedCap(t *testing.T) {
	t.Parallel()
	ce := strings.Repeat("gzip, ", MaxCodings) + "gzip"
	_, err := NewDecoder(ce)
	var u *UnsupportedError
	if !errors.As(err, &u) || u.Stacked != MaxCodings+1 || !strings.Contains(err.Error(), "at most 4") {
		t.Fatalf("err %v", err)
	}
	if _, err := Codings(strings.Repeat("gzip,", MaxCodings)); err != nil {
		t.Fatalf("%d codings: %v", MaxCodings, err)
	}
}

// TestEncode: what Encode writes decodes back, stacks included.
func TestEncode(t *testing.T) {
	t.Parallel()
	want := bytes.Join(sseParts(t), nil)
	for _, ce := range []string{"gzip", "deflate", "br", "zstd", "gzip, br", "identity", ""} {
		enc, err := Encode(want, ce)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(enc, ce)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%q: %v, %d bytes", ce, err, len(got))
		}
	}
	if _, err := Encode(want, "compress"); err == nil {
		t.Error("compress: no error")
	}
}

// TestReaderCut: the pull reader tells a cut body from a source's own
// error, and bytes after the end are an error once the body is out.
func TestReaderCut(t *testing.T) {
	t.Parallel()
	parts := sseParts(t)
	want := bytes.Join(parts, nil)
	body, ends := encode(t, "gzip", parts)
	r, _ := Unlimited.NewReader(bytes.NewReader(body[:ends[3]]), "gzip")
	got, err := io.ReadAll(r)
	if !errors.Is(err, ErrCut) || !bytes.HasPrefix(want, got) || len(got) == 0 {
		t.Fatalf("cut: %v, %d bytes", err, len(got))
	}
	boom := errors.New("connection reset")
	r, _ = Unlimited.NewReader(io.MultiReader(bytes.NewReader(body[:ends[3]]), iotestErr{boom}), "gzip")
	if _, err := io.ReadAll(r); err != boom {
		t.Fatalf("source error: %v", err)
	}
	r, _ = Unlimited.NewReader(bytes.NewReader(append(body, "junk"...)), "gzip")
	if got, err := io.ReadAll(r); err == nil || !bytes.Equal(got, want) {
		t.Fatalf("trailing bytes: %v, %d bytes", err, len(got))
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }
