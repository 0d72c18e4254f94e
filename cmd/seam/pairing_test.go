package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSandwichHeaderStripped records, with seam record --proxy, a gateway
// that passes requests and answers through unchanged but drops the
// headers it does not know (seam's Seam-Exchange among them, as LiteLLM
// does) and sends six parallel requests upstream in another order than
// they came. Paired in arrival order, five of the six exchanges accused
// the gateway of swapping answers; paired by content, seam inspect finds
// nothing to warn about, says how each exchange was paired, and seam
// record said once that the header was dropped.
func TestSandwichHeaderStripped(t *testing.T) {
	topics := []string{"otters", "volcanoes", "the Baltic Sea", "bees", "glass", "Saturn's rings"}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string
			Messages []struct{ Content string }
		}
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "text/event-stream")
		for i, part := range []string{"One fact about ", req.Messages[len(req.Messages)-1].Content, "."} {
			b, _ := json.Marshal(part)
			role := ""
			if i == 0 {
				role = `"role":"assistant",`
			}
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{%s\"content\":%s},\"finish_reason\":null}]}\n\n", req.Model, role, b)
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", req.Model)
	}))
	defer api.Close()

	// The gateway: known headers only, and the requests held until all six
	// came, then sent upstream last first.
	var back atomic.Value
	var mu sync.Mutex
	var waiting []chan struct{}
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		turn := make(chan struct{})
		mu.Lock()
		if waiting = append(waiting, turn); len(waiting) == len(topics) {
			go func(ts []chan struct{}) {
				for i := len(ts) - 1; i >= 0; i-- {
					close(ts[i])
					time.Sleep(30 * time.Millisecond)
				}
			}(waiting)
		}
		mu.Unlock()
		<-turn
		out, _ := http.NewRequestWithContext(r.Context(), "POST", "http://"+back.Load().(string)+r.URL.Path, strings.NewReader(string(body)))
		out.Header.Set("Content-Type", r.Header.Get("Content-Type"))
		out.Header.Set("Authorization", r.Header.Get("Authorization"))
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			w.Write(buf[:n])
			w.(http.Flusher).Flush()
			if err != nil {
				return
			}
		}
	}))
	defer gateway.Close()

	out := filepath.Join(t.TempDir(), "sandwich.ndjson")
	cmd, front, br := launchSeam(t, `listening on http://(\S+) → `, "record", "--upstream", api.URL, "--proxy", gateway.URL,
		"--listen", "127.0.0.1:0", "--back", "127.0.0.1:0", "-q", "-o", out)
	line, err := br.ReadString('\n')
	m := regexp.MustCompile(`listening on http://(\S+) → \S+ for the proxy under test`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("second banner %q: %v", line, err)
	}
	back.Store(m[1])
	said := make(chan string, 1)
	go func() { b, _ := io.ReadAll(br); said <- string(b) }()

	var wg sync.WaitGroup
	for _, topic := range topics {
		wg.Go(func() {
			body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "stream": true, "messages": []map[string]string{
				{"role": "system", "content": "Answer in one short sentence."}, {"role": "user", "content": topic}}})
			req, _ := http.NewRequest("POST", "http://"+front+"/v1/chat/completions", strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer sk-test-0123456789")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(b), topic) {
				t.Errorf("the client asking about %s got %q", topic, b)
			}
		})
	}
	wg.Wait()
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if s := <-said; strings.Count(s, "does not pass the Seam-Exchange request header on") != 1 {
		t.Errorf("seam record said:\n%s\nwant the dropped header named once", s)
	}

	report, err := seamCombinedOutput("inspect", "--fail-on", "warn", out)
	if err != nil {
		t.Errorf("seam inspect --fail-on warn: %v\n%s", err, report)
	}
	if n := strings.Count(string(report), "paired by request content"); n != len(topics) {
		t.Errorf("inspect says %d times how the legs were paired, want %d:\n%s", n, len(topics), report)
	}
	js, _ := seamCombinedOutput("inspect", "--json", out)
	if n := len(regexp.MustCompile(`"paired": ?"content"`).FindAll(js, -1)); n != len(topics) {
		t.Errorf("inspect --json has %d paired fields, want %d", n, len(topics))
	}
	page := filepath.Join(t.TempDir(), "report.html")
	if msg, err := seamCombinedOutput("report", "-o", page, out); err != nil {
		t.Fatalf("seam report: %v\n%s", err, msg)
	}
	html, _ := os.ReadFile(page)
	if n := strings.Count(string(html), "paired by request content"); n != len(topics) {
		t.Errorf("the report says %d times how the legs were paired, want %d", n, len(topics))
	}
}
