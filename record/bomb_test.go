package record_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// brBomb is a br body that starts with one chat event and goes on as a
// data line of n bytes that never ends: a few hundred bytes on the wire
// for n decoded.
func brBomb(t testing.TB, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := brotli.NewWriterLevel(&b, 5)
	w.Write(chatEvents[0])
	w.Write([]byte("data: "))
	line := bytes.Repeat([]byte("a"), 1<<20)
	for left := n; left > 0; left -= len(line) {
		w.Write(line[:min(left, len(line))])
	}
	w.Close()
	return b.Bytes()
}

// bombUpstream serves body as br, whatever the request accepts (the
// upstream picks the coding), in writes of 64 bytes.
func bombUpstream(body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "br")
		for off := 0; off < len(body); off += 64 {
			w.Write(body[off:min(off+64, len(body))])
			w.(http.Flusher).Flush()
		}
	})
}

// sendBomb posts a request through r with the given Authorization (none
// when empty) and no Accept-Encoding, and returns the body as the client
// got it.
func sendBomb(t *testing.T, r *rig, auth string) []byte {
	t.Helper()
	h := http.Header{}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	_, b := postRaw(t, r, h)
	return b
}

// TestCompressionBombCapped: a br body that decodes past the watch's cap
// reaches the client byte for byte; the watch stops decoding at the cap
// and a note names it; the side is not called cut or corrupt (its end is
// unknown past the cap). With no secret in the request every chunk is
// recorded; with one, the chunks that hold bytes past the cap, which
// cannot be checked for it, are withheld.
func TestCompressionBombCapped(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	body := brBomb(t, 4*limit)
	const key = "sk-canary-bomb-0123456789abcdef"
	for _, tc := range []struct {
		name, auth string
		whole      bool
	}{{"no secret", "", true}, {"secret", "Bearer " + key, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, bombUpstream(body), func(o *record.Options) { o.MaxDecoded = limit })
			got := sendBomb(t, r, tc.auth)
			c := r.finish()
			if !bytes.Equal(got, body) {
				t.Fatalf("the client got %d bytes, not the %d-byte wire body", len(got), len(body))
			}
			x := c.Exchanges[0]
			up := x.Upstream
			if tc.whole && !bytes.Equal(up.Body(), body) || !bytes.HasPrefix(body, up.Body()) {
				t.Fatalf("the upstream side recorded %d of %d bytes", len(up.Body()), len(body))
			}
			if !tc.whole {
				if len(up.Body()) == len(body) {
					t.Fatalf("the upstream side recorded all %d bytes: want the chunks before the cap only", len(body))
				}
				dec, _ := coding.Decode(up.Body(), "br")
				if len(dec) > limit {
					t.Fatalf("the recorded chunks decode to %d bytes, past the cap the guard checked", len(dec))
				}
			}
			if e := up.End; e.Outcome != tape.Complete || e.Bytes != int64(len(body)) {
				t.Fatalf("upstream end %+v: want complete, %d bytes", e, len(body))
			}
			want := "decodes past seam's cap of 1 MiB decoded per body"
			notes := 0
			for _, n := range x.Notes {
				if strings.Contains(n.Text, want) {
					notes++
					if !tc.whole && !strings.Contains(n.Text, "were not recorded") || tc.whole && !strings.Contains(n.Text, "every chunk was recorded") {
						t.Errorf("note %q", n.Text)
					}
					side := tape.Upstream
					if strings.Contains(n.Text, "the client side's") {
						side = tape.Client
					}
					kept := len(x.Side(side).Body())
					if from := fmt.Sprintf("chunks from byte %d on (%d bytes)", kept, len(body)-kept); !tc.whole && !strings.Contains(n.Text, from) {
						t.Errorf("note %q, want %q", n.Text, from)
					}
				}
			}
			if notes != 2 { // both sides: the client got the same br body
				t.Fatalf("%d notes naming the cap: %+v", notes, x.Notes)
			}
			if bytes.Contains(r.buf.Bytes(), []byte(key)) {
				t.Fatal("the key is in the capture")
			}
		})
	}
}

// TestCompressionBombMemory: 512 MiB of br from a few hundred bytes (the
// upstream's choice, the client asked for none) leaves the recorder's heap
// bounded: the watch decodes at most coding.MaxStreamBody, a piece at a
// time, and its parser holds at most its cap on a line.
func TestCompressionBombMemory(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures the heap: run without -race and -short")
	}
	body := brBomb(t, 512<<20)
	if len(body) > 2<<10 {
		t.Fatalf("the bomb is %d bytes", len(body))
	}
	r := newRig(t, bombUpstream(body), nil)
	// Collect often, so the heap sampled is what is held, not garbage
	// waiting for the next cycle.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	start := time.Now()
	got := sendBomb(t, r, "")
	c := r.finish()
	close(stop)
	wg.Wait()
	if !bytes.Equal(got, body) || !bytes.Equal(c.Exchanges[0].Upstream.Body(), body) {
		t.Fatal("the body was not proxied and recorded whole")
	}
	// Two watches (the client got the same br body) hold a line each, up
	// to the parser's cap of 16 MiB, then its data: 59-62 MiB sampled,
	// and up to 66 in one run in ten of eight in a row (garbage not yet
	// collected), so the bound leaves room above that; what it catches is
	// a heap that grows with the 512 MiB the bomb inflates to.
	if p := peak.Load(); p > 80<<20 {
		t.Fatalf("peak heap %d MiB decoding a 512 MiB bomb", p>>20)
	}
	t.Logf("peak heap %d MiB, %v", peak.Load()>>20, time.Since(start))
}

// TestCompressedRequestBodyRedacted: a gzip-encoded request body carrying
// a key in a secret field does not reach the capture: the recorded body
// decodes to the request with the field redacted, in gzip still, and a
// note says its bytes are not those sent; the upstream got the body as
// sent. The same body without a secret is recorded as sent.
func TestCompressedRequestBodyRedacted(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-gzip-body-0123456789abcdef"
	for _, tc := range []struct {
		name   string
		body   string
		secret bool
	}{
		{"secret", `{"model":"gpt-4o","stream":true,"api_key":"` + key + `"}`, true},
		{"clean", `{"model":"gpt-4o","stream":true}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gz, err := coding.Encode([]byte(tc.body), "gzip")
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				for _, e := range chatEvents {
					w.Write(e)
				}
			})
			r := newRig(t, up, nil)
			req, _ := http.NewRequest("POST", r.front.URL+"/v1/chat/completions", bytes.NewReader(gz))
			req.Header.Set("Content-Encoding", "gzip")
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			c := r.finish()
			if !bytes.Equal(got, gz) {
				t.Fatal("the upstream did not get the body as sent")
			}
			if bytes.Contains(r.buf.Bytes(), []byte(key)) {
				t.Fatal("the key is in the capture file")
			}
			x := c.Exchanges[0]
			dec, err := coding.Decode(x.Request.Body, "gzip")
			if err != nil || bytes.Contains(dec, []byte(key)) {
				t.Fatalf("the recorded body decodes to %q (%v)", dec, err)
			}
			noted := false
			for _, n := range x.Notes {
				noted = noted || strings.Contains(n.Text, "decoded, redacted and encoded again")
			}
			switch {
			case tc.secret && (!noted || !bytes.Contains(dec, []byte(`"api_key":"[redacted]"`))):
				t.Errorf("recorded %q, notes %+v", dec, x.Notes)
			case !tc.secret && (noted || !bytes.Equal(x.Request.Body, gz)):
				t.Errorf("a clean body was not recorded as sent (notes %+v)", x.Notes)
			}
		})
	}
}

// TestCapDoesNotLeakPastIt: a body whose secret lies past the cap, where
// a few wire bytes stand for much of it: the chunks the guard writes
// must not decode to the secret, though the decoded copy it checked (up to
// the cap) was clean. (FuzzStreamWatch found the guard writing them.)
func TestCapDoesNotLeakPastIt(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-012345"
	body, err := coding.Encode([]byte("data: "+strings.Repeat("a", 300)+key+"\n\n"), "deflate")
	if err != nil {
		t.Fatal(err)
	}
	// Two bytes at a time, so that the proxy reads the body in many chunks.
	slow := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "deflate")
		for off := 0; off < len(body); off += 2 {
			w.Write(body[off:min(off+2, len(body))])
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	})
	r := newRig(t, slow, func(o *record.Options) { o.MaxDecoded = 101 })
	if got := sendBomb(t, r, "Bearer "+key); !bytes.Equal(got, body) {
		t.Fatal("the body was not proxied whole")
	}
	c := r.finish()
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		dec, _ := coding.Decode(c.Exchanges[0].Side(s).Body(), "deflate")
		if bytes.Contains(dec, []byte(key)) {
			t.Fatalf("%s: the recorded chunks decode to the key", s)
		}
	}
	if bytes.Contains(r.buf.Bytes(), []byte(key)) {
		t.Fatal("the key is in the capture")
	}
}
