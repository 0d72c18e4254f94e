package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/seam-dev/seam/tlsca"
)

// realtimeModules installs openai, ws and https-proxy-agent into a cache
// directory of their own outside the repository (once) and returns it. It
// skips the test, saying why, when node or npm is missing or the install
// fails (no network, as in an offline CI).
func realtimeModules(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: the openai Realtime test needs node and npm", tool)
		}
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "seam-test-node-realtime")
	pkgs := []string{"openai", "ws", "https-proxy-agent"}
	have := true
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			have = false
		}
	}
	if have {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skipf("cannot make %s: %v", dir, err)
	}
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private":true}`+"\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	npm := exec.CommandContext(ctx, "npm", append([]string{"install", "--no-audit", "--no-fund", "--silent", "--fetch-retries=0", "--fetch-timeout=20000"}, pkgs...)...)
	npm.Dir = dir
	if out, err := npm.CombinedOutput(); err != nil {
		t.Skipf("npm install %s failed (offline?): %v\n%s", strings.Join(pkgs, " "), err, out)
	}
	return dir
}

// The key the SDK sends: it must reach neither the capture nor anything
// seam prints.
const realtimeKey = "sk-RTCANARY-0123456789abcdef"

// realtimeScenarios is a Realtime API over WebSocket whose model name picks
// how the session goes: healthy, closed 1011 in the middle of the response
// or after it, a failed response, an error event, long messages the two
// sides compress (permessage-deflate, the server echoing the key it was
// given), or the deltas sent in fragments.
var realtimeScenarios = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionContextTakeover})
	if err != nil {
		return
	}
	defer c.CloseNow()
	scenario := r.URL.Query().Get("model")
	ctx := r.Context()
	send := func(s string) { c.Write(ctx, websocket.MessageText, []byte(s)) }
	created := `{"type":"session.created","event_id":"ev_1","session":{"id":"sess_1","model":"` + scenario + `"}}`
	if scenario == "deflate" {
		created = `{"type":"session.created","event_id":"ev_1","session":{"id":"sess_1","model":"deflate","instructions":"` + strings.Repeat("Be brief. ", 40) + `","echo":"` + r.Header.Get("Authorization") + `"}}`
	}
	send(created)
	delta := func(d string) string {
		return fmt.Sprintf(`{"type":"response.output_text.delta","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"delta":%q}`, d)
	}
	deltas := []string{"Bon", "jour", " !"}
	if scenario == "deflate" {
		deltas = append(deltas, strings.Repeat(" Bonjour, le monde.", 30))
	}
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var ev struct{ Type string }
		json.Unmarshal(b, &ev)
		if ev.Type != "response.create" {
			continue
		}
		send(`{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}`)
		if scenario == "error" {
			send(`{"type":"error","error":{"type":"invalid_request_error","code":"unknown_parameter","message":"Unknown parameter: 'session.voice_x'."}}`)
		}
		text := ""
		for i, d := range deltas {
			if scenario == "fragmented" {
				fw, _ := c.Writer(ctx, websocket.MessageText)
				msg := delta(d)
				fw.Write([]byte(msg[:len(msg)/2]))
				fw.Write([]byte(msg[len(msg)/2:]))
				fw.Close()
			} else {
				send(delta(d))
			}
			text += d
			if scenario == "close-mid" && i == 0 {
				c.Close(websocket.StatusInternalError, "Internal server error")
				return
			}
		}
		send(fmt.Sprintf(`{"type":"response.output_text.done","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"text":%q}`, text))
		status, details := "completed", "null"
		if scenario == "failed" {
			status, details = "failed", `{"type":"failed","error":{"type":"server_error","message":"The server had an error while processing your request."}}`
		}
		send(`{"type":"response.done","response":{"id":"resp_1","status":"` + status + `","status_details":` + details + `,"usage":{"input_tokens":7,"output_tokens":3,"total_tokens":10}}}`)
		if scenario == "close-after" {
			c.Close(websocket.StatusInternalError, "keepalive ping timeout")
			return
		}
	}
})

// sdkSaw is what realtime.js prints: what openai-node's OpenAIRealtimeWS
// gave its caller.
type sdkSaw struct {
	Events []string `json:"events"`
	Text   string   `json:"text"`
	Errors []string `json:"errors"`
	Close  struct {
		Code   int    `json:"code"`
		Reason string `json:"reason"`
	} `json:"close"`
}

// TestOpenAIRealtimeNode runs openai-node's OpenAIRealtimeWS (the ws
// package, permessage-deflate offered) against a Realtime API, directly
// and through seam record --forward, in each scenario: the SDK sees the
// same session both ways; seam's capture assembles the text the SDK did
// and judges the session as the SDK lived it (error findings exactly when
// it failed: 1011 mid-response, a failed response; a warning for 1011
// after the response, an error event); no error finding on a healthy
// session, compressed or fragmented; the key is nowhere on disk.
func TestOpenAIRealtimeNode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the node test")
	}
	modules := realtimeModules(t)
	// A name, not an IP address: https-proxy-agent sends no server name
	// for an IP, and checks the certificate against "localhost".
	api := newFakeAPI(t, "localhost", realtimeScenarios)
	_, port, _ := net.SplitHostPort(api.addr())
	host := "localhost:" + port
	caDir := t.TempDir()
	out := filepath.Join(t.TempDir(), "realtime.ndjson")
	cmd, proxy, _ := startForward(t, caDir, out, "--ca-file", api.caFile, "--host", host)
	seamCA, err := os.ReadFile(filepath.Join(caDir, tlsca.CertFile))
	if err != nil {
		t.Fatal(err)
	}
	apiCA, _ := os.ReadFile(api.caFile)
	both := filepath.Join(t.TempDir(), "cas.pem")
	os.WriteFile(both, append(apiCA, seamCA...), 0o644)
	script, _ := filepath.Abs(filepath.Join("testdata", "realtime", "realtime.js"))
	run := func(mode, scenario string) sdkSaw {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, "node", script, mode, scenario)
		c.Dir = modules
		c.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(modules, "node_modules"), "NODE_EXTRA_CA_CERTS="+both,
			"BASE_URL=https://"+host+"/v1", "PROXY="+proxy.String(), "OPENAI_API_KEY="+realtimeKey)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		got, err := c.Output()
		if err != nil {
			t.Fatalf("node %s %s: %v\n%s", mode, scenario, err, stderr.Bytes())
		}
		var saw sdkSaw
		if err := json.Unmarshal(got, &saw); err != nil {
			t.Fatalf("node %s %s printed %q: %v", mode, scenario, got, err)
		}
		return saw
	}
	scenarios := []string{"healthy", "close-mid", "close-after", "failed", "error", "deflate", "fragmented"}
	saw := map[string]sdkSaw{}
	for _, s := range scenarios {
		direct, proxied := run("direct", s), run("proxy", s)
		a, _ := json.Marshal(direct)
		b, _ := json.Marshal(proxied)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: through seam the SDK saw\n%s\ndirectly\n%s", s, b, a)
		}
		saw[s] = proxied
	}
	stopSeam(t, cmd)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("RTCANARY")) {
		t.Error("the API key reached the capture")
	}
	rep := inspectJSON(t, out)
	// Nor in what seam decodes of it: the client's compressed session.update
	// carries it in api_key, the server's compressed session.created echoes
	// the Authorization header.
	for _, args := range [][]string{{"inspect", "--json", out}, {"export", "--format", "har", out}} {
		b, err := seamOutput(args...)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("RTCANARY")) {
			t.Errorf("seam %s prints the API key", args[0])
		}
	}
	xs := rep["exchanges"].([]any)
	if len(xs) != len(scenarios) {
		t.Fatalf("%d exchanges recorded, want %d", len(xs), len(scenarios))
	}
	for i, s := range scenarios {
		x := xs[i].(map[string]any)
		sdk := saw[s]
		var errs, ids []string
		for _, f := range x["findings"].([]any) {
			f := f.(map[string]any)
			ids = append(ids, f["id"].(string))
			if f["severity"] == "error" {
				errs = append(errs, f["id"].(string))
			}
		}
		ws := x["websocket"].(map[string]any)
		var serverClose float64
		compressed, fragmented := false, false
		for _, m := range ws["messages"].([]any) {
			m := m.(map[string]any)
			if m["side"] == "upstream" && m["opcode"] == "close" {
				serverClose = m["close_code"].(float64)
			}
			compressed = compressed || m["compressed"] == true
			fragmented = fragmented || m["frames"].(float64) > 1
		}
		text := ""
		if rt, ok := ws["realtime"].(map[string]any); ok {
			if rs, ok := rt["responses"].([]any); ok && len(rs) > 0 {
				if ps := rs[0].(map[string]any)["parts"].([]any); len(ps) > 0 {
					text = ps[0].(map[string]any)["text"].(string)
				}
			}
		}
		if text != sdk.Text {
			t.Errorf("%s: seam assembled %q, the SDK %q", s, text, sdk.Text)
		}
		wantErrs := map[string]string{"close-mid": "websocket.close-error", "failed": "realtime.response-failed"}[s]
		if strings.Join(errs, ",") != wantErrs {
			t.Errorf("%s: error findings %q, want %q (all: %v)", s, errs, wantErrs, ids)
		}
		switch s {
		case "close-mid", "close-after":
			if int(serverClose) != sdk.Close.Code || sdk.Close.Code != 1011 {
				t.Errorf("%s: the SDK saw close %d, the capture has the server's %v", s, sdk.Close.Code, serverClose)
			}
			if s == "close-after" && !strings.Contains(strings.Join(ids, ","), "websocket.close") {
				t.Errorf("%s: findings %v, want websocket.close", s, ids)
			}
		case "error":
			if len(sdk.Errors) != 1 || !strings.Contains(strings.Join(ids, ","), "realtime.error") {
				t.Errorf("%s: the SDK raised %q, seam found %v", s, sdk.Errors, ids)
			}
		case "deflate":
			// Both ways: the client's session.update (with the key in
			// api_key) and the server's echo of the Authorization header.
			sides := map[any]bool{}
			for _, m := range ws["messages"].([]any) {
				if m := m.(map[string]any); m["compressed"] == true {
					sides[m["side"]] = true
				}
			}
			if !compressed || len(sides) != 2 {
				t.Errorf("%s: compressed messages on %v, want both sides", s, sides)
			}
		case "fragmented":
			if !fragmented {
				t.Errorf("%s: no message came in fragments", s)
			}
		}
	}
}
