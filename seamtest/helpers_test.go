package seamtest_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// fakeT is a testing.TB that keeps what a helper reports instead of
// failing the test running it, so that a test can assert that seamtest
// fails a test. Its cleanups run when run is called.
type fakeT struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	fatal    bool
	cleanups []func()
}

func newFakeT(t *testing.T) *fakeT { return &fakeT{TB: t} }

func (f *fakeT) Helper() {}

func (f *fakeT) Errorf(format string, args ...any) { f.record(fmt.Sprintf(format, args...)) }

func (f *fakeT) Error(args ...any) { f.record(fmt.Sprint(args...)) }

func (f *fakeT) Fatalf(format string, args ...any) {
	f.record(fmt.Sprintf(format, args...))
	f.mu.Lock()
	f.fatal = true
	f.mu.Unlock()
}

func (f *fakeT) Cleanup(fn func()) {
	f.mu.Lock()
	f.cleanups = append(f.cleanups, fn)
	f.mu.Unlock()
}

func (f *fakeT) record(msg string) {
	f.mu.Lock()
	f.errors = append(f.errors, msg)
	f.mu.Unlock()
}

// run runs the cleanups, last registered first, as the testing package does.
func (f *fakeT) run() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	f.cleanups = nil
}

// failures returns what was reported, joined.
func (f *fakeT) failures() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.errors, "\n")
}

// recorded returns exchange 1 of a fixture capture.
func recorded(t *testing.T, path string) *tape.Exchange {
	t.Helper()
	c, err := tape.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return c.Exchanges[0]
}

// send posts the recorded request of x to base and returns the response
// and its body.
func send(t *testing.T, client *http.Client, base string, x *tape.Exchange) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(x.Request.Method, base+x.Request.URL, bytes.NewReader(x.Request.Body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-test-not-a-key")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// relay is an SSE proxy under test: it sends each request to upstream
// and relays the response event by event, leaving out the events drop
// selects.
func relay(t *testing.T, drop func(event []byte) bool) func(upstream string) string {
	return func(upstream string) string {
		tr := &http.Transport{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			req, err := http.NewRequestWithContext(r.Context(), r.Method, upstream+r.URL.RequestURI(), r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			req.Header = r.Header.Clone()
			resp, err := tr.RoundTrip(req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			for k, v := range resp.Header {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(resp.StatusCode)
			rc := http.NewResponseController(w)
			br := bufio.NewReader(resp.Body)
			var event []byte
			for {
				line, err := br.ReadBytes('\n')
				event = append(event, line...)
				if (bytes.Equal(line, []byte("\n")) || errors.Is(err, io.EOF)) && len(event) > 0 {
					if drop == nil || !drop(event) {
						w.Write(event)
						rc.Flush()
					}
					event = nil
				}
				if err != nil {
					return
				}
			}
		}))
		t.Cleanup(func() {
			srv.Close()
			tr.CloseIdleConnections()
		})
		return srv.URL
	}
}

// secondToolCall selects the Chat Completions events of the second
// parallel tool call.
func secondToolCall(event []byte) bool {
	return bytes.Contains(event, []byte(`"tool_calls":[{"index":1`))
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
