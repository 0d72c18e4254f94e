package tape

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/seam-dev/seam/coding"
)

// TestCodedBody: a compressed request body holding a secret field is
// decoded, redacted and encoded again in its codings (decoding the result
// gives the redacted body, and no byte of the secret is left); a clean one
// is kept as sent; one seam cannot look through is withheld; each change
// comes with a note.
func TestCodedBody(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-coded-0123456789abcdef"
	secret := []byte(`{"model":"gpt-4o","api_key":"` + key + `","messages":[{"role":"user","content":"hi"}]}`)
	clean := []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`)
	for _, ce := range []string{"gzip", "deflate", "br", "zstd", "gzip, br", "x-gzip"} {
		enc, err := coding.Encode(secret, ce)
		if err != nil {
			t.Fatal(err)
		}
		out, secrets, note := (*Redaction)(nil).CodedBody(enc, "application/json", ce)
		dec, err := coding.Decode(out, ce)
		if err != nil || bytes.Contains(dec, []byte(key)) || bytes.Contains(out, []byte(key)) || !bytes.Contains(dec, []byte(`"api_key":"[redacted]"`)) {
			t.Errorf("%s: the recorded body decodes to %q (%v)", ce, dec, err)
		}
		if len(secrets) != 1 || secrets[0] != key || !strings.Contains(note, "decoded, redacted and encoded again") {
			t.Errorf("%s: secrets %q, note %q", ce, secrets, note)
		}
		cleanEnc, _ := coding.Encode(clean, ce)
		if out, _, note := (*Redaction)(nil).CodedBody(cleanEnc, "application/json", ce); !bytes.Equal(out, cleanEnc) || note != "" {
			t.Errorf("%s: a clean body was not kept as sent (note %q)", ce, note)
		}
	}
	gz, _ := coding.Encode(secret, "gzip")
	// Cut as the recorder cuts a long body: the prefix is looked through.
	out, _, note := (*Redaction)(nil).CodedBody(gz[:len(gz)-10], "application/json", "gzip")
	if dec, _ := coding.Decode(out, "gzip"); bytes.Contains(dec, []byte(key)) || note == "" {
		t.Errorf("cut: %q, note %q", dec, note)
	}
	for _, tc := range []struct {
		body    []byte
		ce, why string
	}{
		{gz, "compress", `"compress" is not supported`},
		{badCRC(gz), "gzip", "corrupt"},
		{bomb(t), "gzip", "cap of 32 MiB"},
	} {
		out, secrets, note := (*Redaction)(nil).CodedBody(tc.body, "application/json", tc.ce)
		if out != nil || secrets != nil || !strings.Contains(note, "it was not recorded") || !strings.Contains(note, tc.why) {
			t.Errorf("%s: %d bytes kept, note %q", tc.ce, len(out), note)
		}
	}
	// A stored request goes through the same: an export never carries it.
	r, secrets := RedactStored(&Request{Ex: 1, Method: "POST", URL: "/", Body: gz,
		Headers: Headers{"content-type": {"application/json"}, "content-encoding": {"gzip"}}})
	if dec, _ := coding.Decode(r.Body, "gzip"); bytes.Contains(dec, []byte(key)) || len(secrets) != 1 {
		t.Errorf("RedactStored: %q", dec)
	}
}

// badCRC returns a gzip body with its checksum broken.
func badCRC(gz []byte) []byte {
	b := bytes.Clone(gz)
	b[len(b)-8] ^= 0xff
	return b
}

// bomb is a gzip body decoding to 40 MiB of JSON whitespace.
func bomb(t *testing.T) []byte {
	t.Helper()
	b, err := coding.Encode(append([]byte(`{"a":`), bytes.Repeat([]byte(" "), 40<<20)...), "gzip")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzCodedBody feeds any request body, plain or compressed, to
// CodedBody: a body it keeps is either the body as sent (when redacting
// its decoded copy changes nothing) or one that decodes to Body's
// redaction of that copy; a body it cannot look through is withheld with
// a note.
func FuzzCodedBody(f *testing.F) {
	for _, s := range []string{`{"api_key":"sk-0123456789"}`, `{"a":[{"token":1}]}`, `{"max_tokens":1}`, "", "x"} {
		f.Add([]byte(s), uint8(1), true)
	}
	f.Add([]byte("\x1f\x8b\x08\x00"), uint8(1), false)
	codings := []string{"", "gzip", "br", "zstd", "deflate", "gzip, br", "compress"}
	f.Fuzz(func(t *testing.T, in []byte, ci uint8, encode bool) {
		ce := codings[int(ci)%len(codings)]
		body := in
		if encode && ce != "compress" {
			var err error
			if body, err = coding.Encode(in, ce); err != nil {
				t.Fatal(err)
			}
		}
		out, _, note := (*Redaction)(nil).CodedBody(body, "application/json", ce)
		switch {
		case ce == "" || len(body) == 0:
			if want, _ := (*Redaction)(nil).Body(body, "application/json"); !bytes.Equal(out, want) || note != "" {
				t.Fatalf("plain body: %q, want Body's %q", out, want)
			}
		case out == nil:
			if !strings.Contains(note, "it was not recorded") {
				t.Fatalf("withheld without a note: %q", note)
			}
		case bytes.Equal(out, body):
			if note != "" {
				t.Fatalf("kept as sent, with a note %q", note)
			}
		default:
			dec, _ := coding.NewBudget(maxCodedRequest, 0).Decode(body, ce)
			want, _ := (*Redaction)(nil).Body(dec, "application/json")
			got, err := coding.Decode(out, ce)
			if err != nil || !bytes.Equal(got, want) || note == "" {
				t.Fatalf("re-encoded body decodes to %q (%v), want %q; note %q", got, err, want, note)
			}
		}
	})
}

// TestCodedBodyConcurrentMemory: requests checked at once hold at most two
// decoded copies (64 MiB, up to twice that while a copy's buffer grows)
// between them, however many there are: eight at once without the limit
// peaked at 268 MiB; the bound leaves room for the collector's pace on a
// busy machine (116 MiB seen) and stays far under eight copies.
func TestCodedBodyConcurrentMemory(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures memory: run without -race and -short")
	}
	b := bomb(t) // decodes past the 32 MiB cap
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	peak := heapPeak(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { (*Redaction)(nil).CodedBody(b, "application/json", "gzip") })
	}
	wg.Wait()
	if p := peak(); p > 160<<20 {
		t.Fatalf("peak heap %d MiB checking 8 bodies at once", p>>20)
	}
}
