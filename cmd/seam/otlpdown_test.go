package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// downStream is the body the Collector-down test's upstream streams: n
// Chat Completions chunks, a finish and [DONE].
func downStream(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf(`data: {"id":"chatcmpl-down","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"word %d "},"finish_reason":null}]}`+"\n\n", i))
	}
	out = append(out, `data: {"id":"chatcmpl-down","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":20,"total_tokens":25}}`+"\n\n", "data: [DONE]\n\n")
	return out
}

// TestOTLPCollectorDown records under load while the OTLP receiver is
// down: every stream reaches its client whole and every exchange is in
// the capture, the spans that could not be sent are counted exactly (sent
// + dropped = exchanges) and said once; once the receiver is back, export
// resumes.
func TestOTLPCollectorDown(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the export retries to give up")
	}
	events := downStream(20)
	want := strings.Join(events, "")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}))
	defer up.Close()
	recv := newOTLPRecv(t)
	recv.down()

	out := filepath.Join(t.TempDir(), "down.ndjson")
	cmd := exec.Command("seam", "record", "--upstream", up.URL, "--listen", "127.0.0.1:0", "-o", out, "-q", "--otlp", recv.URL())
	cmd.Env = append(os.Environ(), "OTEL_BSP_MAX_QUEUE_SIZE=32", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE=8")
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	br := bufio.NewReader(stderrPipe)
	line, err := br.ReadString('\n')
	m := regexp.MustCompile(`listening on http://(\S+)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("banner %q: %v", line, err)
	}
	base := "http://" + m[1]
	var stderr strings.Builder
	stderrDone := make(chan struct{})
	go func() {
		io.Copy(&stderr, br)
		close(stderrDone)
	}()

	const load, after = 300, 20
	send := func(from, to int) {
		var wg sync.WaitGroup
		next := make(chan int)
		for range 8 {
			wg.Go(func() {
				for i := range next {
					body := fmt.Sprintf(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"count %d"}]}`, i)
					resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(body))
					if err != nil {
						t.Errorf("request %d: %v", i, err)
						continue
					}
					got, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || string(got) != want {
						t.Errorf("request %d: the client got %d bytes (%v), want the %d the upstream sent", i, len(got), err, len(want))
					}
				}
			})
		}
		for i := from; i < to; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	send(0, load)
	if t.Failed() {
		t.FailNow()
	}

	// The follower inspects the exchanges behind the recording (at most
	// half a core): give it time to meet the full queue while the
	// receiver is still down, so spans are dropped however fast this
	// machine recorded.
	time.Sleep(4 * time.Second)
	// The receiver comes back: what is still queued goes out, then every
	// new exchange's span.
	recv.up()
	recv.waitSpans(1, 20*time.Second)
	settled := len(recv.Spans())
	for deadline := time.Now().Add(20 * time.Second); ; {
		time.Sleep(1500 * time.Millisecond)
		n := len(recv.Spans())
		if n == settled || time.Now().After(deadline) {
			break
		}
		settled = n
	}
	send(load, load+after)
	spans := recv.waitSpans(settled+after, 20*time.Second)
	for ex := load + 1; ex <= load+after; ex++ {
		if _, err := spanOf(spans, ex); err != nil {
			t.Errorf("exchange %d, recorded after the receiver came back: %v", ex, err)
		}
	}

	cmd.Process.Signal(os.Interrupt)
	<-stderrDone
	if err := cmd.Wait(); err != nil {
		t.Fatalf("seam record: %v\n%s", err, stderr.String())
	}
	said := stderr.String()
	sm := regexp.MustCompile(`otlp: (\d+) spans? sent to \S+, (\d+) dropped \(`).FindStringSubmatch(said)
	if sm == nil {
		t.Fatalf("no summary of the spans dropped:\n%s", said)
	}
	sent, _ := strconv.Atoi(sm[1])
	dropped, _ := strconv.Atoi(sm[2])
	ids := map[string]bool{}
	for _, s := range recv.Spans() {
		ids[s.SpanID] = true
	}
	if sent != len(ids) || len(ids) != len(recv.Spans()) {
		t.Errorf("summary says %d sent; the receiver got %d spans, %d distinct", sent, len(recv.Spans()), len(ids))
	}
	if sent+dropped != load+after || dropped == 0 {
		t.Errorf("%d sent + %d dropped, want %d exchanges with some dropped", sent, dropped, load+after)
	}
	if n := strings.Count(said, "otlp: dropping spans"); n != 1 {
		t.Errorf("the drop was said %d times, want once:\n%s", n, said)
	}

	c, err := tape.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) > 0 || len(c.Exchanges) != load+after {
		t.Fatalf("capture: %d exchanges, warnings %v; want %d, none", len(c.Exchanges), c.Warnings, load+after)
	}
	for _, x := range c.Exchanges {
		e := x.Client.End
		if e == nil || e.Outcome != tape.Complete || string(x.Client.Body()) != want || x.Upstream.End == nil || string(x.Upstream.Body()) != want {
			t.Fatalf("exchange %d is not whole in the capture", x.Ex)
		}
	}
	t.Logf("%d spans sent, %d dropped while the receiver was down", sent, dropped)
}
