package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// startSeamLines runs seam with args and returns the address its first
// stderr line announces and the stderr lines that follow, as they come.
func startSeamLines(t *testing.T, args ...string) (string, <-chan string) {
	t.Helper()
	_, addr, rest := launchSeam(t, `on http://(\S+)`, args...)
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		for {
			l, err := rest.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimSuffix(l, "\n")
		}
	}()
	return addr, lines
}

// nextLine returns the next stderr line that starts with prefix.
func nextLine(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stderr ended before a line starting %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("no line starting %q", prefix)
		}
	}
}

// TestServeLogsRequests checks seam serve's line per request: a hit names
// the exchange that answered, its status and the faults applied; a miss
// says why nothing matched, with what came from the client drawn with
// visible markers; -q prints neither.
func TestServeLogsRequests(t *testing.T) {
	fixture := filepath.Join(fixturesDir, "openai-chat-tools.ndjson")
	src, err := tape.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	req := src.Exchanges[0].Request
	post := func(addr, path, body string) {
		t.Helper()
		postJSON(t, "http://"+addr+path, body)
	}
	addr, lines := startSeamLines(t, "serve", "--listen", "127.0.0.1:0", "--speed", "0", "--fault", "split-rune", fixture)
	post(addr, req.URL, string(req.Body))
	hit := nextLine(t, lines, "hit ")
	if !regexp.MustCompile(`^hit  POST /v1/chat/completions → exchange 1: 200 in \S+, faults split-rune$`).MatchString(hit) {
		t.Errorf("hit line %q", hit)
	}
	post(addr, "/v1/chat/completions%1b%5b2J%e2%80%ae", `{"model":"other\u001b]52;c;x\u0007","messages":[]}`)
	miss := nextLine(t, lines, "miss ")
	if !strings.HasPrefix(miss, "miss POST /v1/chat/completions␛[2J⟨U+202E⟩ → 404: ") || strings.ContainsAny(miss, "\x1b\x07\u202e") {
		t.Errorf("miss line %q", miss)
	}
	post(addr, req.URL, `{"model":"other","messages":[]}`)
	miss = nextLine(t, lines, "miss ")
	if want := `miss POST /v1/chat/completions → 404: closest is exchange 1`; !strings.HasPrefix(miss, want) || !strings.Contains(miss, `model "other"`) {
		t.Errorf("miss line %q, want it to start %q and name the model", miss, want)
	}

	quiet, qlines := startSeamLines(t, "serve", "--listen", "127.0.0.1:0", "--speed", "0", "-q", fixture)
	post(quiet, req.URL, string(req.Body))
	post(quiet, req.URL, `{}`)
	wait := time.After(300 * time.Millisecond)
	for {
		select {
		case l, ok := <-qlines:
			if !ok {
				return
			}
			if strings.HasPrefix(l, "hit ") || strings.HasPrefix(l, "miss ") {
				t.Errorf("-q printed %q", l)
			}
		case <-wait:
			return
		}
	}
}
