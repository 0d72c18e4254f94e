package record_test

import (
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// streamFor is the deterministic SSE body the upstream sends for stream id.
func streamFor(id int) [][]byte {
	var parts [][]byte
	for i := range 12 {
		parts = append(parts, fmt.Appendf(nil, "data: {\"id\":%d,\"i\":%d,\"delta\":\"%s\"}\n\n", id, i, strings.Repeat(strconv.Itoa(id%10), 20+i)))
	}
	return append(parts, []byte("data: [DONE]\n\n"))
}

// TestConcurrentStreamsLoseNoByte runs 1,000 concurrent streams through one
// recorder and checks, per exchange, that the recorded upstream bytes, the
// recorded client bytes and what the client read hash the same as what the
// upstream sent.
func TestConcurrentStreamsLoseNoByte(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		id, _ := strconv.Atoi(req.URL.Query().Get("id"))
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range streamFor(id) {
			w.Write(p)
			w.(http.Flusher).Flush()
		}
	}), nil)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0}}
	read := make([][32]byte, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for id := range n {
		wg.Go(func() {
			resp, err := client.Post(fmt.Sprintf("%s/v1/chat/completions?id=%d", r.front.URL, id), "application/json", strings.NewReader(`{}`))
			if err != nil {
				errs <- err
				return
			}
			h := sha256.New()
			_, err = io.Copy(h, resp.Body)
			resp.Body.Close()
			if err != nil {
				errs <- err
				return
			}
			copy(read[id][:], h.Sum(nil))
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := r.finish()
	if len(c.Exchanges) != n {
		t.Fatalf("%d exchanges recorded, want %d", len(c.Exchanges), n)
	}
	seen := map[int]bool{}
	for _, x := range c.Exchanges {
		id, err := strconv.Atoi(strings.TrimPrefix(x.Request.URL, "/v1/chat/completions?id="))
		if err != nil || seen[id] {
			t.Fatalf("exchange %d: url %q", x.Ex, x.Request.URL)
		}
		seen[id] = true
		var want []byte
		for _, p := range streamFor(id) {
			want = append(want, p...)
		}
		w := sum(want)
		if sum(x.Upstream.Body()) != w || sum(x.Client.Body()) != w || read[id] != w {
			t.Fatalf("stream %d (exchange %d): bytes differ", id, x.Ex)
		}
		checkOffsets(t, x)
	}
}
