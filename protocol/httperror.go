package protocol

import (
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// ErrorClip is how long HTTPError keeps a provider's message, in bytes.
const ErrorClip = 300

// HTTPError returns what the provider said in the body of a response
// whose status is not 2xx, the way its SDK reports it: the error object
// of OpenAI, Anthropic, Gemini and OpenAI-compatible servers
// ({"error":{…}}), AWS's {"message":…} named by its error type (the
// x-amzn-ErrorType header or "__type", as the AWS SDKs name the
// exception: "ValidationException: The provided model identifier is
// invalid."), a "detail" (FastAPI servers), an HTML page's title, or the
// first line of a plain-text body. "" for an empty body.
func HTTPError(h tape.Headers, body string) string {
	body = strings.TrimSpace(body)
	if body == "" {
		return ""
	}
	if gjson.Valid(body) {
		r := gjson.Parse(body)
		if !r.IsObject() {
			return excerpt.Clip(r.Raw, ErrorClip)
		}
		if e := r.Get("error"); e.Exists() && (e.Type == gjson.String || e.IsObject()) {
			return excerpt.Clip(ErrorText(e), ErrorClip)
		}
		msg := firstString(r, "message", "Message", "errorMessage", "error_message")
		if msg == "" {
			if d := r.Get("detail"); d.Exists() {
				msg = d.String()
				if d.Type != gjson.String {
					msg = d.Raw
				}
			}
		}
		if msg == "" {
			return excerpt.Clip(r.Raw, ErrorClip)
		}
		if typ := errorType(h, r); typ != "" && !strings.HasPrefix(msg, typ) {
			msg = typ + ": " + msg
		}
		return excerpt.Clip(msg, ErrorClip)
	}
	if strings.HasPrefix(body, "<") {
		lower := strings.ToLower(body)
		if i := strings.Index(lower, "<title>"); i >= 0 {
			rest := body[i+len("<title>"):]
			if j := strings.Index(strings.ToLower(rest), "</title>"); j >= 0 {
				return excerpt.Clip(strings.Join(strings.Fields(rest[:j]), " "), ErrorClip)
			}
		}
	}
	line, _, _ := strings.Cut(body, "\n")
	return excerpt.Clip(strings.TrimSpace(line), ErrorClip)
}

// errorType names an error the AWS way (its exception's name, from the
// x-amzn-ErrorType header or the body's "__type", without the namespace
// either carries), or by the body's "type" or string "code".
func errorType(h tape.Headers, r gjson.Result) string {
	t := ""
	if v := h["x-amzn-errortype"]; len(v) > 0 {
		t = v[0]
	}
	if t == "" {
		t = r.Get("__type").String()
	}
	if t != "" {
		t, _, _ = strings.Cut(t, ":")
		if i := strings.LastIndexByte(t, '#'); i >= 0 {
			t = t[i+1:]
		}
		return strings.TrimSpace(t)
	}
	if c := r.Get("code"); c.Type == gjson.String {
		return c.String()
	}
	return r.Get("type").String()
}

func firstString(r gjson.Result, keys ...string) string {
	for _, k := range keys {
		if v := r.Get(k); v.Type == gjson.String && v.String() != "" {
			return v.String()
		}
	}
	return ""
}
