package tape

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestRedactHeaders(t *testing.T) {
	t.Parallel()
	const canary = "sk-CANARY-0123456789"
	tests := []struct {
		name string
		keep bool
	}{
		// Credentials, in several spellings: always redacted.
		{"Authorization", false},
		{"authorization", false},
		{"AUTHORIZATION", false},
		{"Proxy-Authorization", false},
		{"X-Api-Key", false},
		{"x-api-key", false},
		{"Api-Key", false},
		{"Cookie", false},
		{"Set-Cookie", false},
		{"X-Goog-Api-Key", false},
		{"X-Amz-Security-Token", false},
		{"Ocp-Apim-Subscription-Key", false},
		// Unknown headers: redacted by default.
		{"X-Custom-Thing", false},
		{"X-Forwarded-For", false},
		{"Referer", false},
		{"OpenAI-Organization-Token", false},
		{"X-Stainless-Api-Key", false},
		{"X-Stainless-Session-Id", false},
		// The allowlist.
		{"Content-Type", true},
		{"content-length", true},
		{"Accept", true},
		{"Accept-Encoding", true},
		{"User-Agent", true},
		{"OpenAI-Organization", false}, // names the account
		{"OpenAI-Project", false},
		{"OpenAI-Whatever", false},
		{"OpenAI-Model", true},
		{"OpenAI-Version", true},
		{"OpenAI-Processing-Ms", true},
		{"Openai-Beta", true},
		{"Anthropic-Version", true},
		{"Anthropic-Beta", true},
		{"X-Request-Id", true},
		{"Request-Id", true},
		{"X-Stainless-Lang", true},
		{"X-Stainless-Package-Version", true},
		{"X-Stainless-Retry-Count", true},
		{"Date", true},
		{"Server", true},
		{"Cache-Control", true},
		{"Transfer-Encoding", true},
		{"Connection", true},
		{"Retry-After", true},
		{"X-Ratelimit-Remaining-Tokens", true},
		{"X-Ratelimit-Limit-Requests", true},
		{"Anthropic-Ratelimit-Tokens-Remaining", true},
		{"CF-Ray", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			h[tt.name] = []string{canary, canary + "-2"}
			got := RedactHeaders(h)
			lower := strings.ToLower(tt.name)
			vals, ok := got[lower]
			if !ok || len(got) != 1 {
				t.Fatalf("got %v, want one header named %q", got, lower)
			}
			want := []string{Redacted, Redacted}
			if tt.keep {
				want = []string{canary, canary + "-2"}
			}
			if !slices.Equal(vals, want) {
				t.Errorf("values %q, want %q", vals, want)
			}
		})
	}
}

func TestRedactHeadersMergesCase(t *testing.T) {
	t.Parallel()
	h := http.Header{"Content-Type": {"a"}, "content-type": {"b"}, "X-Empty": {}}
	got := RedactHeaders(h)
	if v := got["content-type"]; len(v) != 2 {
		t.Errorf("content-type %q, want both values", v)
	}
	if _, ok := got["x-empty"]; !ok {
		t.Error("a header without values lost its name")
	}
	if RedactHeaders(nil) != nil {
		t.Error("nil header not nil")
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"/v1/chat/completions", "/v1/chat/completions"},
		{"", "/"},
		{"/v1/x?", "/v1/x?"},
		{"/v1beta/models/gemini:streamGenerateContent?alt=sse&key=AIzaCANARY", "/v1beta/models/gemini:streamGenerateContent?alt=sse&key=[redacted]"},
		{"/x?KEY=a&Api_Key=b&api-key=c&APIKEY=d", "/x?KEY=[redacted]&Api_Key=[redacted]&api-key=[redacted]&APIKEY=[redacted]"},
		{"/x?token=a&access_token=b&refresh_token=c&auth=d", "/x?token=[redacted]&access_token=[redacted]&refresh_token=[redacted]&auth=[redacted]"},
		{"/x?sig=a&signature=b&password=c&secret=d&client_secret=e&code=f", "/x?sig=[redacted]&signature=[redacted]&password=[redacted]&secret=[redacted]&client_secret=[redacted]&code=[redacted]"},
		{"/x?X-Amz-Signature=a&X-Amz-Credential=b&my_token=c&model_key=d", "/x?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&my_token=[redacted]&model_key=[redacted]"},
		{"/x?api%5Fkey=a", "/x?api%5Fkey=[redacted]"},
		{"/x?b=2&a=%20x+y&max_tokens=5&stream=true", "/x?b=2&a=%20x+y&max_tokens=5&stream=true"},
		{"/x?token&key=", "/x?token&key=[redacted]"},
		{"/a%2Fb/c?x=1", "/a%2Fb/c?x=1"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			u, err := url.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := RedactURL(u); got != tt.want {
				t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	if RedactURL(nil) != "" {
		t.Error("nil URL")
	}
}

// TestRedactUpstream: the upstream URL seam names in a capture header, on
// the terminal and in a 502 loses its credentials and query, and keeps the
// rest (scheme, host, port, path) as given.
func TestRedactUpstream(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://api.openai.com":                                                  "https://api.openai.com",
		"https://user:sk-CANARY@gw.example:8443/openai/v1/":                       "https://gw.example:8443/openai/v1/",
		"https://generativelanguage.googleapis.com/v1beta?key=AIzaCANARY&alt=sse": "https://generativelanguage.googleapis.com/v1beta",
		"http://[::1]:9000/p%2Fq?":                                                "http://[::1]:9000/p%2Fq",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := RedactUpstream(u); got != want {
			t.Errorf("RedactUpstream(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCanaryNeverOnDisk pushes a canary secret through every header and query
// position the recorder writes and checks the encoded lines never hold it.
func TestCanaryNeverOnDisk(t *testing.T) {
	t.Parallel()
	const canary = "CANARY7f3a"
	h := http.Header{}
	for _, name := range []string{"Authorization", "X-Api-Key", "Api-Key", "Cookie", "Set-Cookie", "Proxy-Authorization", "X-Goog-Api-Key", "X-Whatever"} {
		h.Set(name, "Bearer "+canary)
	}
	u, _ := url.Parse("/v1/x?key=" + canary + "&api_key=" + canary + "&token=" + canary + "&Signature=" + canary)
	line := AppendRequest(nil, Request{Ex: 1, Method: "POST", URL: RedactURL(u), Headers: RedactHeaders(h)})
	line = AppendResponse(line, Response{Ex: 1, Side: Upstream, Status: 200, Headers: RedactHeaders(h)})
	if strings.Contains(string(line), canary) {
		t.Errorf("canary on disk:\n%s", line)
	}
}

func TestRedactWebSocketHandshake(t *testing.T) {
	t.Parallel()
	h := http.Header{
		"Sec-Websocket-Protocol":   {"realtime, openai-insecure-api-key.sk-proj-abc123, openai-beta.realtime-v1, openai-organization.org-CANARY1, openai-project.proj_CANARY2"},
		"Sec-Websocket-Extensions": {"permessage-deflate; client_max_window_bits"},
		"Sec-Websocket-Key":        {"dGhlIHNhbXBsZSBub25jZQ=="},
	}
	got := RedactHeaders(h)
	// The organization and project ids, redacted as headers, are redacted
	// as subprotocols too.
	if p := got["sec-websocket-protocol"][0]; p != "realtime, [redacted], openai-beta.realtime-v1, openai-organization.[redacted], openai-project.[redacted]" {
		t.Errorf("subprotocols %q", p)
	}
	if e := got["sec-websocket-extensions"][0]; e != "permessage-deflate; client_max_window_bits" {
		t.Errorf("extensions %q", e)
	}
	if k := got["sec-websocket-key"][0]; k != "dGhlIHNhbXBsZSBub25jZQ==" {
		t.Errorf("key %q", k)
	}
}

// TestMaskFields: a client's WebSocket message with a key in a secret
// field (session.update's api_key) is masked in place, at the same length,
// and stays the JSON it was; the key comes back as a secret to mask where
// the server echoes it.
func TestMaskFields(t *testing.T) {
	t.Parallel()
	r, err := ParseRedaction([]string{"json:session.tools.*.headers", "re:org-[A-Za-z0-9]+"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"type":"session.update","session":{"api_key":"sk-CANARY-0123456789"}}`, `{"type":"session.update","session":{"api_key":"[redacted]**********"}}`},
		{`{"type":"x","token":"abc","pin":1,"secret":12345}`, `{"type":"x","token":"***","pin":1,"secret":0    }`},
		{`{"session":{"tools":[{"headers":{"x":"y"}}]},"o":"org-CANARY"}`, `{"session":{"tools":[{"headers":0        }]},"o":"[redacted]"}`},
		{`{"type":"session.update","api_key":"sk-cut-short`, `{"type":"session.update","api_key":"[redacted]**`},
		{`not json, no key`, `not json, no key`},
	} {
		b := []byte(tc.in)
		n, secrets := r.MaskFields(b)
		if string(b) != tc.want || len(b) != len(tc.in) {
			t.Errorf("%s\n got %s\nwant %s", tc.in, b, tc.want)
		}
		if (n > 0) != (len(secrets) > 0) || (n > 0) != (tc.in != tc.want) {
			t.Errorf("%s: %d masked, secrets %q", tc.in, n, secrets)
		}
	}
}

// TestRedactUpstreamNone: no upstream names none; captures' exchanges add
// up.
func TestRedactUpstreamNone(t *testing.T) {
	if got := RedactUpstream(nil); got != "" {
		t.Errorf("RedactUpstream(nil) = %q", got)
	}
	caps := []*Capture{{Exchanges: []*Exchange{{Ex: 1}, {Ex: 2}}}, {}, {Exchanges: []*Exchange{{Ex: 1}}}}
	if n := CountExchanges(caps); n != 3 {
		t.Errorf("CountExchanges = %d", n)
	}
}
