package record_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// TestCanarySecretsNeverReachDisk sends canary secrets in every header and
// query position a key can travel in, and asserts that the upstream got them
// unchanged while no canary byte reaches the capture.
func TestCanarySecretsNeverReachDisk(t *testing.T) {
	const canary = "CANARY7f3a9"
	secretHeaders := map[string]string{
		"Authorization":       "Bearer sk-" + canary + "-auth",
		"X-Api-Key":           canary + "-xapikey",
		"Api-Key":             canary + "-apikey",
		"Cookie":              "session=" + canary + "-cookie",
		"Proxy-Authorization": "Basic " + canary + "-proxyauth",
		"X-Goog-Api-Key":      canary + "-goog",
	}
	query := "?key=" + canary + "-qkey&api_key=" + canary + "-qapikey&model=gpt-4o"

	var mu sync.Mutex
	got := http.Header{}
	var gotQuery string
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		got = req.Header.Clone()
		gotQuery = req.URL.RawQuery
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Set-Cookie", "upstream="+canary+"-setcookie")
		io.WriteString(w, "data: [DONE]\n\n")
	}), nil)

	req, _ := http.NewRequest("POST", r.front.URL+"/v1/chat/completions"+query, strings.NewReader(`{"model":"gpt-4o"}`))
	for k, v := range secretHeaders {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c := r.finish()

	mu.Lock()
	for k, v := range secretHeaders {
		if got.Get(k) != v {
			t.Errorf("upstream got %s %q, want %q unchanged", k, got.Get(k), v)
		}
	}
	if gotQuery != strings.TrimPrefix(query, "?") {
		t.Errorf("upstream got query %q, want %q", gotQuery, query[1:])
	}
	mu.Unlock()
	if i := bytes.Index(r.buf.Bytes(), []byte(canary)); i >= 0 {
		line := bytes.Count(r.buf.Bytes()[:i], []byte("\n")) + 1
		t.Fatalf("canary secret on capture line %d:\n%s", line, r.buf.Bytes())
	}
	// The base64 form of a secret must not slip through either.
	for _, frag := range []string{"Q0FOQVJZ", "NBTkFSW", "DQU5BUl"} {
		if bytes.Contains(r.buf.Bytes(), []byte(frag)) {
			t.Fatalf("base64 of the canary in the capture")
		}
	}
	x := c.Exchanges[0]
	if !strings.Contains(x.Request.URL, "model=gpt-4o") {
		t.Errorf("non-secret query parameter lost: %q", x.Request.URL)
	}
	if v := x.Request.Headers["content-type"]; len(v) != 1 || v[0] != "application/json" {
		t.Errorf("allowlisted header content-type recorded as %v", v)
	}
	if v := x.Request.Headers["authorization"]; len(v) != 1 || v[0] != "[redacted]" {
		t.Errorf("authorization recorded as %v, want it present and redacted", v)
	}
}

// TestCanaryInBodiesNeverReachDisk puts canary secrets in the request's
// headers, query and JSON body (at depth, and where a --redact pattern
// names them) and has the upstream echo every one of them: in stream
// chunks split across reads inside the secret, in response headers and in
// a JSON error body. The client gets every byte as the upstream sent it;
// the capture, and its HAR and curl exports, hold no canary, while chunk
// offsets and boundaries stay exact and a note says what was masked.
func TestCanaryInBodiesNeverReachDisk(t *testing.T) {
	canaries := map[string]string{
		"auth":   "sk-proj-CANARYauth0123456789",
		"query":  "CANARYquery0123456",
		"body1":  "CANARYbody1-0123456",
		"body2":  "CANARYbody2-0123456",
		"body3":  "CANARYbody3/<0123456>",
		"path":   "CANARYpath-0123456",
		"regexp": "acct-CANARY9876543210",
	}
	body := `{"model":"gpt-4o","stream":true,"api_key":"` + canaries["body1"] +
		`","metadata":{"service":{"credentials":{"clientSecret":"` + canaries["body2"] + `"}},"owner":"` + canaries["path"] + `"}` +
		`,"tools":[{"type":"mcp","headers":{"X-Api-Key":"` + strings.ReplaceAll(canaries["body3"], "/", `\/`) + `"}}]` +
		`,"messages":[{"role":"user","content":"my account is ` + canaries["regexp"] + `"}],"max_tokens":5}`
	red, err := tape.ParseRedaction([]string{"json:metadata.owner", "re:acct-[A-Z0-9]+"})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		echoed []byte
	)
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		if string(b) != body {
			t.Errorf("the upstream got a body other than the client's:\n%s", b)
		}
		w.Header().Set("X-Echo-Key", canaries["auth"])
		w.Header().Set("OpenAI-Organization", "org-"+canaries["query"])
		if req.URL.Path == "/v1/error" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+canaries["auth"]+`"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		var sent bytes.Buffer
		for _, name := range []string{"auth", "query", "body1", "body2", "body3", "path", "regexp"} {
			s := canaries[name]
			// Split inside the secret, at a different place each time.
			ev := `data: {"choices":[{"index":0,"delta":{"content":"echo ` + s + `"}}]}` + "\n\n"
			if name == "body3" {
				ev = `data: {"choices":[{"index":0,"delta":{"content":"echo ` + strings.ReplaceAll(s, "/", `\/`) + `"}}]}` + "\n\n"
			}
			cut := strings.Index(ev, "echo ") + 5 + 1 + len(sent.String())%7
			for _, part := range []string{ev[:cut], ev[cut:]} {
				io.WriteString(w, part)
				sent.WriteString(part)
				w.(http.Flusher).Flush()
				time.Sleep(3 * time.Millisecond)
			}
		}
		io.WriteString(w, "data: [DONE]\n\n")
		sent.WriteString("data: [DONE]\n\n")
		mu.Lock()
		echoed = sent.Bytes()
		mu.Unlock()
	}), func(o *record.Options) { o.Redaction = red })

	for _, path := range []string{"/v1/chat/completions", "/v1/error"} {
		req, _ := http.NewRequest("POST", r.front.URL+path+"?key="+canaries["query"]+"&alt=sse", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+canaries["auth"])
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		mu.Lock()
		if path == "/v1/chat/completions" && !bytes.Equal(got, echoed) {
			t.Errorf("the client got\n%s\nnot what the upstream sent\n%s", got, echoed)
		}
		mu.Unlock()
		if resp.Header.Get("X-Echo-Key") != canaries["auth"] {
			t.Errorf("the client lost a response header")
		}
	}
	c := r.finish()
	var har, curl bytes.Buffer
	if err := convert.WriteHAR(&har, c, "test"); err != nil {
		t.Fatal(err)
	}
	for _, x := range c.Exchanges {
		if err := convert.WriteCurl(&curl, x, "https://api.openai.com"); err != nil {
			t.Fatal(err)
		}
		checkOffsets(t, x)
	}
	for what, out := range map[string][]byte{"capture": r.buf.Bytes(), "HAR": har.Bytes(), "curl": curl.Bytes()} {
		for name, s := range canaries {
			for _, form := range []string{s, strings.ReplaceAll(s, "/", `\/`), strings.ReplaceAll(strings.ReplaceAll(s, "<", `\u003c`), ">", `\u003e`)} {
				if i := bytes.Index(out, []byte(form)); i >= 0 {
					t.Errorf("%s holds the %s canary %q: …%s…", what, name, form, out[max(0, i-80):min(len(out), i+40)])
				}
			}
		}
		if bytes.Contains(out, []byte("CANARY")) {
			t.Errorf("%s holds a piece of a canary:\n%s", what, out)
		}
	}
	x := c.Exchanges[0]
	if len(x.Upstream.Chunks) < 14 || len(x.Client.Chunks) < 14 {
		t.Errorf("%d upstream and %d client chunks: the reads were not split", len(x.Upstream.Chunks), len(x.Client.Chunks))
	}
	if !strings.Contains(string(x.Request.Body), `"max_tokens":5`) || !strings.Contains(string(x.Request.Body), `"api_key":"[redacted]"`) {
		t.Errorf("request body %s", x.Request.Body)
	}
	notes := 0
	for _, n := range x.Notes {
		if strings.Contains(n.Text, "masked at the same length") {
			notes++
		}
	}
	if notes != 2 {
		t.Errorf("%d masking notes, want one per side: %+v", notes, x.Notes)
	}
}

// TestUnreachableUpstreamNamesNoSecret: the 502 a client gets when the
// upstream cannot be reached names the upstream without the credentials or
// the query its URL was given with, and the capture holds neither.
func TestUnreachableUpstreamNamesNoSecret(t *testing.T) {
	var host string
	r := newRig(t, nil, func(o *record.Options) {
		host = o.Upstream.Host
		u := *o.Upstream
		u.User = url.UserPassword("seam", "CANARYpass")
		u.Path, u.RawQuery = "/openai", "key=CANARYkey"
		o.Upstream = &u
	})
	resp, err := http.Post(r.front.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r.finish()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "seam: upstream http://"+host+"/openai failed") {
		t.Errorf("%d %s, want a 502 naming http://%s/openai", resp.StatusCode, body, host)
	}
	for what, b := range map[string][]byte{"the 502": body, "the capture": r.buf.Bytes()} {
		if bytes.Contains(b, []byte("CANARY")) {
			t.Errorf("%s holds the upstream's credentials or query:\n%s", what, b)
		}
	}
}
