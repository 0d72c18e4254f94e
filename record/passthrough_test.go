package record_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// TestNoBuffering: the upstream writes one event, flushes, then blocks until
// released; the client behind the recorder must receive that event first.
func TestNoBuffering(t *testing.T) {
	release := make(chan struct{})
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"first\":true}\n\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "data: [DONE]\n\n")
	}), nil)

	resp, err := http.Post(r.front.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(resp.Body).ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		if line != "data: {\"first\":true}\n" {
			t.Fatalf("first line %q", line)
		}
	case <-time.After(10 * time.Second): // a failure bound, not synchronisation
		close(release)
		t.Fatal("the first event did not reach the client while the upstream was blocked: the proxy buffers")
	}
	close(release)
	io.Copy(io.Discard, resp.Body)
	c := r.finish()
	if o := c.Exchanges[0].Client.End.Outcome; o != tape.Complete {
		t.Errorf("outcome %s", o)
	}
}

// sseCorpus returns the SSE bodies the passthrough test runs over: the copies
// in fixtures/realworld, and every .sse file of ../shared/realworld when the
// shared data sits beside the repository (it is skipped when absent).
func sseCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	corpus := map[string][]byte{}
	for _, dir := range []string{"../fixtures/realworld", "../../shared/realworld"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			corpus[filepath.Base(f)] = b
		}
	}
	if len(corpus) == 0 {
		t.Fatal("no SSE corpus found in ../fixtures/realworld")
	}
	return corpus
}

// TestPassthroughByteExact: for every real SSE body, the upstream body, the
// recorded upstream chunks, the recorded client chunks and what the client
// read are the same bytes, and with an upstream that flushes once per event
// (in lockstep with the client, so reads cannot coalesce) the recorded
// boundaries are the upstream's write boundaries on both sides.
func TestPassthroughByteExact(t *testing.T) {
	for name, body := range sseCorpus(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			writes := sse.SplitEvents(body)
			up := newLockstep(writes)
			r := newRig(t, up, nil)
			resp, err := http.Post(r.front.URL+"/v1/x", "application/json", strings.NewReader(`{"stream":true}`))
			if err != nil {
				t.Fatal(err)
			}
			read := up.read(t, resp.Body)

			c := r.finish()
			x := c.Exchanges[0]
			want := sum(body)
			for what, got := range map[string][]byte{
				"recorded upstream": x.Upstream.Body(),
				"recorded client":   x.Client.Body(),
				"client read":       read,
			} {
				if sum(got) != want {
					t.Errorf("sha256 of %s differs from the upstream body (%d vs %d bytes)", what, len(got), len(body))
				}
			}
			wantLens := chunkLens(nil)
			for _, p := range writes {
				wantLens = append(wantLens, len(p))
			}
			if got := chunkLens(x.Upstream.Chunks); !slices.Equal(got, wantLens) {
				t.Errorf("upstream read boundaries %v, want write boundaries %v", got, wantLens)
			}
			if got := chunkLens(x.Client.Chunks); !slices.Equal(got, wantLens) {
				t.Errorf("client write boundaries %v, want %v", got, wantLens)
			}
			checkOffsets(t, x)
			for _, s := range []tape.Side{tape.Upstream, tape.Client} {
				if o := x.Side(s).End.Outcome; o != tape.Complete {
					t.Errorf("%s outcome %s, want complete", s, o)
				}
				// finish decoded the capture without warnings: each
				// side's hash matched what was reconstructed.
				if h := x.Side(s).End.SHA256; h != fmt.Sprintf("%x", want) {
					t.Errorf("%s end line sha256 %q, want %x", s, h, want)
				}
			}
			// The client side is stored once: every client chunk is in the
			// line of the upstream chunk it repeats.
			lines := bytes.Count(r.buf.Bytes(), []byte(`"side":"client"`)) - 2
			mirrored := bytes.Count(r.buf.Bytes(), []byte(`,"client":[`))
			if lines != 0 || mirrored != len(writes) {
				t.Errorf("%d client chunk lines, %d client chunks in upstream lines; want all %d in upstream lines", lines, mirrored, len(writes))
			}
		})
	}
}

// TestTimestampsMonotonic: chunk times never go backwards and follow the
// request.
func TestTimestampsMonotonic(t *testing.T) {
	body := []byte("data: {\"a\":1}\n\ndata: {\"a\":2}\n\ndata: [DONE]\n\n")
	r := newRig(t, sseHandler(sse.SplitEvents(body), nil), nil)
	resp, err := http.Post(r.front.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	x := r.finish().Exchanges[0]
	last := x.Request.T
	for _, c := range x.Upstream.Chunks {
		if c.T < last {
			t.Fatalf("chunk at t=%d before previous t=%d", c.T, last)
		}
		last = c.T
	}
}

// sseHandler writes parts as an SSE stream, flushing each; if hold is not
// nil it then blocks until hold is closed or the request ends.
func sseHandler(parts [][]byte, hold chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range parts {
			w.Write(p)
			w.(http.Flusher).Flush()
		}
		if hold != nil {
			select {
			case <-hold:
			case <-req.Context().Done():
			}
		}
	})
}

// lockstep is an upstream that writes an SSE body a write at a time, each
// once the client has read the one before (read), so that no read can
// coalesce two writes.
type lockstep struct {
	writes [][]byte
	step   chan struct{}
}

func newLockstep(writes [][]byte) *lockstep {
	return &lockstep{writes: writes, step: make(chan struct{})}
}

func (l *lockstep) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	for i, p := range l.writes {
		if i > 0 {
			select {
			case <-l.step: // the client has the previous write
			case <-req.Context().Done():
				return
			}
		}
		w.Write(p)
		w.(http.Flusher).Flush()
	}
}

// read reads body write by write, letting the upstream go on after each,
// and returns all it read; it closes body.
func (l *lockstep) read(t *testing.T, body io.ReadCloser) []byte {
	t.Helper()
	defer body.Close()
	var read []byte
	buf := make([]byte, 64<<10)
	for i, p := range l.writes {
		for want := len(read) + len(p); len(read) < want; {
			n, err := body.Read(buf)
			read = append(read, buf[:n]...)
			if err != nil && len(read) < want {
				t.Fatalf("read after %d bytes: %v", len(read), err)
			}
		}
		if i < len(l.writes)-1 {
			l.step <- struct{}{}
		}
	}
	rest, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("read after %d bytes: %v", len(read), err)
	}
	return append(read, rest...)
}

// TestPassthroughHeldChunkStoredOnce: a chunk whose last byte could begin
// one of the request's secrets is held back by both sides' maskers until
// the next chunk shows it does not; it is still stored once (the client's
// copy a reference to the upstream chunk before the last), and both sides'
// hashes still check.
func TestPassthroughHeldChunkStoredOnce(t *testing.T) {
	t.Parallel()
	writes := []string{"data: {\"a\":\"xs", "k\"}\n\n", "data: {\"b\":1}\n\n", "data: [DONE]\n\n"}
	var chunks [][]byte
	for _, w := range writes {
		chunks = append(chunks, []byte(w))
	}
	up := newLockstep(chunks)
	r := newRig(t, up, nil)
	req, _ := http.NewRequest("POST", r.front.URL+"/v1/chat/completions", strings.NewReader(`{"stream":true}`))
	req.Header.Set("Authorization", "Bearer sk-held-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	read := up.read(t, resp.Body)
	c := r.finish()
	x := c.Exchanges[0]
	body := strings.Join(writes, "")
	if string(read) != body || string(x.Client.Body()) != body || string(x.Upstream.Body()) != body {
		t.Fatalf("read %q, recorded client %q, upstream %q", read, x.Client.Body(), x.Upstream.Body())
	}
	if x.Client.End.SHA256 == "" || x.Client.End.SHA256 != x.Upstream.End.SHA256 {
		t.Errorf("ends %+v %+v: want the same hash on both", x.Upstream.End, x.Client.End)
	}
	if regexp.MustCompile(`"side":"client","t":\d+,"off":\d+,"(data|sse|data_b64)"`).Match(r.buf.Bytes()) {
		t.Errorf("a client chunk was stored with its bytes:\n%s", r.buf.Bytes())
	}
	if !bytes.Contains(r.buf.Bytes(), []byte(`,"ref":0,`)) {
		t.Errorf("the held chunk is not a reference:\n%s", r.buf.Bytes())
	}
}
