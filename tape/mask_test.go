package tape

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// maskChunks pushes data through a Masker cut at the given points and
// returns the chunks emitted.
func maskChunks(t testing.TB, data []byte, cuts []int, secrets []string, r *Redaction) ([]Chunk, *Masker) {
	var out []Chunk
	m := NewMasker(secrets, r, func(c Chunk) {
		c.Data = bytes.Clone(c.Data)
		out = append(out, c)
	})
	prev := 0
	for i, c := range append(slices.Clone(cuts), len(data)) {
		c = min(max(c, prev), len(data))
		m.Chunk(Chunk{Ex: 1, Side: Upstream, T: int64(i), Off: int64(prev), Data: data[prev:c]})
		prev = c
	}
	m.Flush()
	return out, m
}

// TestMaskerSplits: a secret echoed by the upstream is masked wherever the
// network split it, chunk boundaries, offsets and times stay as they were,
// and the rest of the bytes are untouched.
func TestMaskerSplits(t *testing.T) {
	t.Parallel()
	const secret = "sk-proj-CANARY0123456789"
	data := []byte(`data: {"error":"Incorrect API key provided: ` + secret + `. You can find your API key at https://x."}` + "\n\n")
	at := bytes.Index(data, []byte(secret))
	for a := 0; a <= len(data); a++ {
		for _, b := range []int{a, a + 1, a + 3, at + 5, len(data)} {
			chunks, m := maskChunks(t, data, []int{a, b}, []string{"Bearer " + secret, secret}, nil)
			var got []byte
			for i, c := range chunks {
				if c.Off != int64(len(got)) || c.T != int64(i) {
					t.Fatalf("cut %d,%d: chunk %d at off %d t %d", a, b, i, c.Off, c.T)
				}
				got = append(got, c.Data...)
			}
			if len(chunks) != 3 {
				t.Fatalf("cut %d,%d: %d chunks, want 3", a, b, len(chunks))
			}
			want := bytes.Replace(data, []byte(secret), []byte("[redacted]**************"), 1)
			if !bytes.Equal(got, want) || m.Masked() != 1 {
				t.Fatalf("cut %d,%d: %q (%d masked)", a, b, got, m.Masked())
			}
		}
	}
}

func TestMaskerRegexpAndShort(t *testing.T) {
	t.Parallel()
	r, _ := ParseRedaction([]string{"re:acct-[0-9]+"})
	got, n := MaskSecrets([]byte("acct-42 and pw1 and a passw0rd!"), []string{"pw1", "passw0rd!"}, r)
	if string(got) != "******* and pw1 and a *********" || n != 2 {
		t.Errorf("got %q, %d", got, n)
	}
}

// TestSecrets: the values of credential headers (with the token after the
// scheme, and cookie values), of secret query parameters, and the
// matches of --redact patterns are the secrets looked for in responses.
func TestSecrets(t *testing.T) {
	t.Parallel()
	r, _ := ParseRedaction([]string{"header:X-Mine", "re:acct-[0-9]+"})
	h := http.Header{
		"Authorization":          {"Bearer sk-abc"},
		"X-Api-Key":              {"xk"},
		"Cookie":                 {"a=1; session=sess-1"},
		"X-Mine":                 {"mine"},
		"X-Custom":               {"acct-42"},
		"Content-Type":           {"application/json"},
		"X-Request-Id":           {"req-1"},
		"X-Stainless-Os":         {"Linux"},
		"Sec-Websocket-Protocol": {"realtime, openai-insecure-api-key.sk-ws-key"},
	}
	u, _ := url.Parse("/v1/x?key=AIza%2F1&alt=sse")
	got := r.Secrets(h, u)
	for _, want := range []string{"Bearer sk-abc", "sk-abc", "xk", "a=1; session=sess-1", "sess-1", "mine", "acct-42", "AIza%2F1", "AIza/1", "sk-ws-key"} {
		if !slices.Contains(got, want) {
			t.Errorf("secrets lack %q: %q", want, got)
		}
	}
	for _, not := range []string{"application/json", "req-1", "Linux", "sse", "realtime"} {
		if slices.Contains(got, not) {
			t.Errorf("secrets hold %q", not)
		}
	}
}

// FuzzMasker: whatever the data, secrets and cuts, the chunks keep their
// number, lengths and offsets, no secret (of MinSecret bytes or more) is
// left in what they hold together, and every byte is the input's or part
// of a mask.
func FuzzMasker(f *testing.F) {
	f.Add([]byte("key sk-12345678 key"), "sk-12345678", "", 3, 9)
	f.Add([]byte("aaaaaaaaaaaaaaaaaaa"), "aaaaaaaa", "aaaaaaaaa", 1, 2)
	f.Add([]byte("ab[redacted]cd"), "[redacted]", "b[redacte", 0, 5)
	f.Fuzz(func(t *testing.T, data []byte, s1, s2 string, c1, c2 int) {
		if c1 < 0 || c2 < 0 {
			return
		}
		chunks, _ := maskChunks(t, data, []int{c1 % (len(data) + 1), c2 % (len(data) + 1)}, []string{s1, s2}, nil)
		if len(chunks) != 3 {
			t.Fatalf("%d chunks", len(chunks))
		}
		var got []byte
		for _, c := range chunks {
			if c.Off != int64(len(got)) {
				t.Fatalf("off %d, want %d", c.Off, len(got))
			}
			got = append(got, c.Data...)
		}
		if len(got) != len(data) {
			t.Fatalf("%d bytes, want %d", len(got), len(data))
		}
		for _, s := range []string{s1, s2} {
			// A secret spelled with the mask's own characters may show
			// through a mask; real keys have none of them.
			if len(s) >= MinSecret && !strings.ContainsAny(s, "*[]") && bytes.Contains(got, []byte(s)) {
				t.Fatalf("%q left in %q", s, got)
			}
		}
		for i := range got {
			if got[i] != data[i] && got[i] != '*' && !strings.ContainsRune(Redacted, rune(got[i])) {
				t.Fatalf("byte %d changed to %q", i, got[i])
			}
		}
	})
}

// TestMaskerNestedSecrets: a chunk is passed after looking only for the
// secrets that hold no other one, so a header value and the token inside
// it must both still be masked, whole, wherever either is echoed.
func TestMaskerNestedSecrets(t *testing.T) {
	t.Parallel()
	secrets := []string{"Bearer sk-nested-0123456789", "sk-nested-0123456789", "x-other-secret-value"}
	for _, tc := range []struct{ in, want string }{
		{`{"a":"Bearer sk-nested-0123456789"}`, `{"a":"[redacted]*****************"}`},
		{`{"a":"sk-nested-0123456789"}`, `{"a":"[redacted]**********"}`},
		{`{"a":"x-other-secret-value"}`, `{"a":"[redacted]**********"}`},
		{`{"a":"Bearer sk-nested-012345678"}`, `{"a":"Bearer sk-nested-012345678"}`},
	} {
		got, _ := MaskSecrets([]byte(tc.in), secrets, nil)
		if string(got) != tc.want {
			t.Errorf("%s masked to %s, want %s", tc.in, got, tc.want)
		}
	}
	m := NewMasker(secrets, nil, func(Chunk) {})
	if len(m.probes) != 2 {
		t.Errorf("probes %q, want the token and the other secret only", m.probes)
	}
}

// TestMaskerChunkSeen: the client side's masker takes the upstream
// masker's word for bytes it has just seen, and only when that masker
// found nothing in them knowing the same secrets.
func TestMaskerChunkSeen(t *testing.T) {
	t.Parallel()
	secret := "sk-seen-0123456789"
	var up, cl []byte
	um := NewMasker([]string{secret}, nil, func(c Chunk) { up = append(up, c.Data...) })
	cm := NewMasker([]string{secret}, nil, func(c Chunk) { cl = append(cl, c.Data...) })
	for _, chunk := range []string{`{"a":"plain text"}`, `{"echo":"` + secret + `"}`, `{"b":"more"}`} {
		cm.ChunkSeen(Chunk{Data: []byte(chunk)}, um.Chunk(Chunk{Data: []byte(chunk)}))
	}
	if string(up) != string(cl) || strings.Contains(string(cl), secret) {
		t.Errorf("upstream %s, client %s: want the same bytes, masked", up, cl)
	}
	// A secret the client masker learnt after the upstream masker looked.
	seen := um.Chunk(Chunk{Data: []byte(`{"late":"sk-late-0123456789"}`)})
	cm.Add([]string{"sk-late-0123456789"})
	cl = cl[:0]
	cm.ChunkSeen(Chunk{Data: []byte(`{"late":"sk-late-0123456789"}`)}, seen)
	if strings.Contains(string(cl), "sk-late") {
		t.Errorf("client %s: a secret the upstream masker did not know was taken as absent", cl)
	}
	// The word is taken as given: bytes said to be clean are not looked at.
	cl = cl[:0]
	cm.ChunkSeen(Chunk{Data: []byte(`{"x":"` + secret + `"}`)}, Seen{clean: true, secrets: len(cm.secrets)})
	if !strings.Contains(string(cl), secret) {
		t.Errorf("client %s: bytes said to be seen clean were looked through again", cl)
	}
}
