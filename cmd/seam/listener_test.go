package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/internal/streamtest"
)

// TestRebindingRefused: seam serve and seam record refuse a request for
// Host evil.example, and answer it once --allow-host names it.
func TestRebindingRefused(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "upstream") }))
	defer up.Close()
	fixture := filepath.Join(fixturesDir, "incident-holdback-off.ndjson")
	for _, tc := range []struct {
		name    string
		start   func(flags ...string) string
		allowed int
	}{
		{"serve", func(flags ...string) string {
			_, addr := startSeam(t, `on http://(\S+)`, append(append([]string{"serve", "--listen", "127.0.0.1:0"}, flags...), fixture)...)
			return addr
		}, http.StatusNotFound}, // a miss: answered
		{"record", func(flags ...string) string {
			_, addr := startRecord(t, up.URL, t.TempDir(), flags...)
			return addr
		}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := tc.start()
			if status, body := streamtest.GetHost(t, addr, "evil.example", "/v1/chat/completions"); status != http.StatusMisdirectedRequest || !strings.Contains(body, "--allow-host evil.example") {
				t.Errorf("Host evil.example: %d %s", status, body)
			}
			if status, body := streamtest.GetHost(t, addr, addr, "/v1/chat/completions"); status != tc.allowed {
				t.Errorf("Host %s: %d %s", addr, status, body)
			}
			addr = tc.start("--allow-host", "evil.example")
			if status, body := streamtest.GetHost(t, addr, "evil.example", "/v1/chat/completions"); status != tc.allowed {
				t.Errorf("--allow-host evil.example: %d %s", status, body)
			}
		})
	}
}

// TestRecordRedactFlag: seam record --redact adds patterns to what never
// reaches the capture file, beside the built-in rules.
func TestRecordRedactFlag(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Tenant", "CANARYtenant-42")
		io.WriteString(w, `{"echo":"CANARYowner-1 acct-CANARY77 sk-CANARYkey-0123"}`)
	}))
	defer up.Close()
	out := filepath.Join(t.TempDir(), "redact.ndjson")
	_, addr := startRecord(t, up.URL, out, "--redact", "json:metadata.owner", "--redact", "re:acct-[A-Z0-9]+", "--redact", "header:X-Tenant")
	body := `{"model":"m","api_key":"sk-CANARYkey-0123","metadata":{"owner":"CANARYowner-1"},"note":"acct-CANARY77"}`
	resp, err := http.Post("http://"+addr+"/v1/x", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(got), "CANARYowner-1") {
		t.Errorf("the client got %s", got)
	}
	waitForFile(t, out, `"side":"client","t"`)
	waitForFile(t, out, `"type":"end","ex":1,"side":"client"`)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("CANARY")) {
		t.Errorf("a canary reached the capture:\n%s", b)
	}
	if !bytes.Contains(b, []byte(`\"metadata\":{\"owner\":\"[redacted]\"}`)) {
		t.Errorf("the json: path was not redacted:\n%s", b)
	}
}
