package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/seam-dev/seam/tape"
)

// realtimeServer speaks a small part of the OpenAI Realtime protocol: a
// session.created on connect, an echo of anything that is not an event it
// knows, and for response.create a streamed text response with an error
// event in the middle (which leaves the session open), then a close.
var realtimeServer = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"realtime"}, CompressionMode: websocket.CompressionContextTakeover})
	if err != nil {
		return
	}
	ctx := r.Context()
	send := func(s string) { c.Write(ctx, websocket.MessageText, []byte(s)) }
	send(`{"type":"session.created","event_id":"ev_1","session":{"id":"sess_test","model":"gpt-realtime"}}`)
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var ev struct{ Type string }
		json.Unmarshal(b, &ev)
		switch ev.Type {
		case "conversation.item.create":
		case "response.create":
			send(`{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}`)
			for _, d := range []string{"Bon", "jour", ", ", "monde"} {
				send(fmt.Sprintf(`{"type":"response.output_text.delta","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"delta":%q}`, d))
			}
			send(`{"type":"error","error":{"type":"invalid_request_error","code":"unknown_parameter","message":"Unknown parameter: 'voice_x'."}}`)
			send(`{"type":"response.output_text.done","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0,"text":"Bonjour, monde"}`)
			send(`{"type":"response.done","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":7,"output_tokens":4,"total_tokens":11}}}`)
		case "bye":
			c.Close(websocket.StatusNormalClosure, "bye")
			return
		default:
			c.Write(ctx, websocket.MessageText, b) // echo
		}
	}
})

// talkRealtime runs a session as a client would and returns what it read.
func talkRealtime(t *testing.T, url string, client *http.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPClient: client, Subprotocols: []string{"realtime", "openai-insecure-api-key.sk-never-on-disk"},
		CompressionMode: websocket.CompressionContextTakeover,
		HTTPHeader:      http.Header{"Authorization": {"Bearer sk-never-on-disk"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	read := func() {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	read() // session.created
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"test.echo","n":1}`))
	read()
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"conversation.item.create","item":{"type":"message","role":"user","content":[{"type":"input_text","text":"Say hello in French"}]}}`))
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create"}`))
	for !strings.Contains(strings.Join(got, ""), "response.done") {
		read()
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"bye"}`))
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("want the server's close, got %v", err)
	}
	return got
}

// inspectJSON runs seam inspect --json on a capture.
func inspectJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	out, err := seamOutput("inspect", "--json", path)
	if err != nil {
		t.Fatalf("seam inspect: %v", err)
	}
	var r map[string]any
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkRealtimeCapture checks, through seam inspect, that the capture
// holds the session frame by frame and that the transcript assembles.
func checkRealtimeCapture(t *testing.T, path string, clientGot []string, host string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "sk-never-on-disk") {
		t.Error("the API key reached the capture")
	}
	rep := inspectJSON(t, path)
	xs := rep["exchanges"].([]any)
	if len(xs) != 1 {
		t.Fatalf("%d exchanges", len(xs))
	}
	x := xs[0].(map[string]any)
	if x["protocol"] != "openai-realtime" || x["status"] != float64(101) {
		t.Errorf("protocol %v status %v", x["protocol"], x["status"])
	}
	if host != "" && x["origin"] != "https://"+host {
		t.Errorf("origin %v, want https://%s", x["origin"], host)
	}
	ws := x["websocket"].(map[string]any)
	var fromServer []string
	for _, m := range ws["messages"].([]any) {
		m := m.(map[string]any)
		if m["side"] == "upstream" && m["opcode"] == "text" {
			fromServer = append(fromServer, m["text"].(string))
		}
	}
	if strings.Join(fromServer, "\n") != strings.Join(clientGot, "\n") {
		t.Errorf("decoded server messages differ from what the client read:\n%q\n%q", fromServer, clientGot)
	}
	rt := ws["realtime"].(map[string]any)
	if rt["session_id"] != "sess_test" {
		t.Errorf("session %v", rt["session_id"])
	}
	inputs := rt["inputs"].([]any)
	if len(inputs) != 1 || inputs[0].(map[string]any)["text"] != "Say hello in French" {
		t.Errorf("inputs %v", inputs)
	}
	resp := rt["responses"].([]any)[0].(map[string]any)
	part := resp["parts"].([]any)[0].(map[string]any)
	if resp["status"] != "completed" || part["text"] != "Bonjour, monde" || part["done"] != "Bonjour, monde" {
		t.Errorf("response %v", resp)
	}
	var ids []string
	for _, f := range x["findings"].([]any) {
		ids = append(ids, f.(map[string]any)["id"].(string))
	}
	if strings.Join(ids, ",") != "realtime.error" {
		t.Errorf("findings %v, want the one error event", ids)
	}
	text, err := seamOutput("inspect", "--color", "never", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`realtime session "sess_test"`, `text: "Bonjour, monde"`, `user (text): "Say hello in French"`, "→ text", "← close"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("seam inspect text lacks %q:\n%s", want, text)
		}
	}
}

// TestWebSocketRecordReverse records a Realtime-style session through
// seam record --upstream (ws://): every frame of both directions is in the
// capture, and seam inspect assembles the transcript.
func TestWebSocketRecordReverse(t *testing.T) {
	up := httptest.NewServer(realtimeServer)
	defer up.Close()
	out := filepath.Join(t.TempDir(), "ws.ndjson")
	cmd, addr := startRecord(t, up.URL, out)
	got := talkRealtime(t, "ws://"+addr+"/v1/realtime?model=gpt-realtime", nil)
	stopSeam(t, cmd)
	checkRealtimeCapture(t, out, got, "")
}

// TestWebSocketRecordForward records the same session through seam record
// --forward: wss:// inside a CONNECT tunnel that seam decrypts.
func TestWebSocketRecordForward(t *testing.T) {
	api := newFakeAPI(t, "api.openai.com", realtimeServer)
	out := filepath.Join(t.TempDir(), "wss.ndjson")
	cmd, proxy, seamCA := startForward(t, t.TempDir(), out, "--ca-file", api.caFile, "--resolve", "api.openai.com:443:"+api.addr())
	pem, err := os.ReadFile(seamCA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots}}}
	got := talkRealtime(t, "wss://api.openai.com/v1/realtime?model=gpt-realtime", client)
	client.CloseIdleConnections()
	stopSeam(t, cmd)
	checkRealtimeCapture(t, out, got, "api.openai.com")
}

// TestWebSocketOpenAtStop: ctrl-c while a WebSocket session is open ends
// the recording after the grace period (the switched connection is cut),
// with the session's frames and both ends in the capture.
func TestWebSocketOpenAtStop(t *testing.T) {
	up := httptest.NewServer(realtimeServer)
	defer up.Close()
	out := filepath.Join(t.TempDir(), "open.ndjson")
	cmd, addr := startRecord(t, up.URL, out)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/v1/realtime", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if _, _, err := c.Read(ctx); err != nil { // session.created
		t.Fatal(err)
	}
	waitForFile(t, out, `"type":"chunk"`)
	start := time.Now()
	stopSeam(t, cmd)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("seam took %s to stop with a WebSocket open", d)
	}
	capt, err := tape.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(capt.Exchanges) != 1 {
		t.Fatalf("%d exchanges", len(capt.Exchanges))
	}
	x := capt.Exchanges[0]
	if x.Upstream.End == nil || x.Client.End == nil || len(x.Upstream.Chunks) == 0 {
		t.Errorf("ends %+v %+v, %d upstream frames", x.Upstream.End, x.Client.End, len(x.Upstream.Chunks))
	}
}

// TestTLSOnPlainListener: openai-node's Realtime clients always dial wss:,
// so pointed at seam record's plain-HTTP listener they start a TLS
// handshake that fails with nothing on seam's side to say why. seam now
// says so on stderr, once per client host, and how to record instead.
func TestTLSOnPlainListener(t *testing.T) {
	up := httptest.NewServer(realtimeServer)
	defer up.Close()
	cmd, addr, stderr := launchSeam(t, `listening on http://(\S+)`, "record", "--upstream", up.URL, "--listen", "127.0.0.1:0", "-o", filepath.Join(t.TempDir(), "tls.ndjson"))
	said := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(stderr)
		said <- b
	}()
	for range 2 {
		c, err := tls.Dial("tcp", addr, &tls.Config{ServerName: "api.openai.com"})
		if err == nil {
			c.Close()
			t.Fatal("a TLS handshake with seam's plain listener succeeded")
		}
	}
	// An HTTP client is served as before.
	if resp, err := http.Get("http://" + addr + "/v1/realtime"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	stopSeam(t, cmd)
	rest := <-said
	want := "started a TLS handshake on http://" + addr + ", which speaks plain HTTP"
	if n := strings.Count(string(rest), want); n != 1 {
		t.Errorf("stderr says %d times %q:\n%s", n, want, rest)
	}
	if !strings.Contains(string(rest), "seam record --forward") {
		t.Errorf("stderr does not say to use --forward:\n%s", rest)
	}
}
