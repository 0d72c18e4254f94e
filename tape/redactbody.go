package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/coding"
	"github.com/tidwall/gjson"
)

// Redaction is what is redacted before a request or response reaches disk:
// the built-in rules (secret headers, secret query parameters, secret
// fields of JSON request bodies, and the secret values a request carried
// wherever a response echoes them), plus the patterns given with seam
// record --redact. The nil *Redaction applies the built-in rules only.
type Redaction struct {
	headers map[string]bool
	paths   [][]string
	res     []*regexp.Regexp
}

// ParseRedaction parses --redact patterns:
//
//	header:NAME   the value of header NAME (any case), in requests and responses
//	json:PATH     the value at PATH in a JSON request body, whatever its type:
//	              keys separated by dots, * for any one key or array element,
//	              ** for any number of levels (json:metadata.user_id,
//	              json:messages.*.name, json:**.email)
//	re:REGEXP     every match of the Go regular expression in request bodies,
//	              URLs and header values; and, at the same length, in
//	              response chunks
func ParseRedaction(specs []string) (*Redaction, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	r := &Redaction{headers: map[string]bool{}}
	for _, s := range specs {
		kind, v, ok := strings.Cut(s, ":")
		if !ok || v == "" {
			return nil, fmt.Errorf("--redact %q: want header:NAME, json:PATH or re:REGEXP", s)
		}
		switch kind {
		case "header":
			r.headers[strings.ToLower(v)] = true
		case "json":
			path := strings.Split(v, ".")
			if slices.Contains(path, "") {
				return nil, fmt.Errorf("--redact %q: an empty key in the path", s)
			}
			r.paths = append(r.paths, path)
		case "re":
			re, err := regexp.Compile(v)
			if err != nil {
				return nil, fmt.Errorf("--redact %q: %w", s, err)
			}
			if re.MatchString("") {
				return nil, fmt.Errorf("--redact %q: the expression matches the empty string", s)
			}
			r.res = append(r.res, re)
		default:
			return nil, fmt.Errorf("--redact %q: unknown kind %q; want header:NAME, json:PATH or re:REGEXP", s, kind)
		}
	}
	return r, nil
}

// Headers returns h redacted for disk: [RedactHeaders], then the headers
// --redact names, then the regular expressions applied to the values kept.
func (r *Redaction) Headers(h http.Header) Headers {
	out := RedactHeaders(h)
	if r == nil {
		return out
	}
	for name, vals := range out {
		for i, v := range vals {
			if r.headers[name] {
				vals[i] = Redacted
			} else if v != Redacted {
				vals[i] = r.text(v)
			}
		}
	}
	return out
}

// URL returns u redacted for disk: [RedactURL], then the regular
// expressions.
func (r *Redaction) URL(u *url.URL) string {
	s := RedactURL(u)
	if r == nil {
		return s
	}
	return r.text(s)
}

// text replaces every match of the regular expressions in s.
func (r *Redaction) text(s string) string {
	if r == nil {
		return s
	}
	for _, re := range r.res {
		s = re.ReplaceAllLiteralString(s, Redacted)
	}
	return s
}

// Body returns a request body redacted for disk, and the secret values it
// took out, for a [Masker] to mask where the response echoes them.
//
// In a JSON body, at any depth, the value of every field with a secret
// name (api_key, apiKey, key, token, secret, password, access_token,
// client_secret, private_key, authorization, ... in any case; see
// secretField) becomes "[redacted]" when it is a string or a number
// (booleans and nulls are kept; an object or array under a secret name is
// walked, not replaced), and so does the value at every --redact json:
// path, whatever its type (an object or array whole, its values then
// counting as secrets). The rest of the body is kept byte for byte. A body
// that is not valid JSON (a recording cut short) gets a textual scan for
// "secret-name": value pairs instead, paths aside. A form body
// (application/x-www-form-urlencoded) is redacted as a URL query. Then the
// regular expressions apply. body itself is never modified.
func (r *Redaction) Body(body []byte, contentType string) ([]byte, []string) {
	var secrets []string
	switch {
	case len(body) == 0:
		return body, nil
	case isJSONStart(body):
		body, secrets = r.redactJSON(body)
	case strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "application/x-www-form-urlencoded"):
		if red := redactQuery(string(body)); red != string(body) {
			secrets = formSecrets(string(body))
			body = []byte(red)
		}
	}
	if r != nil && len(r.res) > 0 {
		for _, re := range r.res {
			for _, m := range re.FindAll(body, -1) {
				secrets = append(secrets, string(m))
			}
			body = re.ReplaceAllLiteral(body, []byte(Redacted))
		}
	}
	return body, secrets
}

// maxCodedRequest caps the decoded copy of a compressed request body that
// CodedBody looks through: twice the most of a body the recorder keeps
// (16 MiB), the copy held only while it is checked.
const maxCodedRequest = 32 << 20

// codedSlots bounds how many decoded copies CodedBody holds at once, for
// the requests of a busy recorder: two, 64 MiB at most.
var codedSlots = make(chan struct{}, 2)

// CodedBody is [Redaction.Body] for a body sent with a Content-Encoding:
// a compressed body hides its secret fields from Body, and its bytes
// cannot be redacted in place. So a decoded copy (at most 32 MiB) is
// redacted instead: when that changes nothing, the body is returned as
// sent; when it does, the redacted copy is encoded again in the same
// codings (the request line's headers still say what they are) and a note
// says the bytes are not those sent. A body seam cannot decode to look
// through (a coding it does not know, a corrupt stream, a copy past the
// cap) is withheld: out is nil and the note says why. A cut body (the
// recorder keeps at most a prefix) decodes as far as it goes, and is
// redacted and encoded again whole. A body without a coding is Body's.
func (r *Redaction) CodedBody(body []byte, contentType, contentEncoding string) (out []byte, secrets []string, note string) {
	cs, err := coding.Codings(contentEncoding)
	switch {
	case err == nil && len(cs) == 0, len(body) == 0:
		out, secrets = r.Body(body, contentType)
		return out, secrets, ""
	case err != nil:
		return nil, nil, fmt.Sprintf("seam: the request body is sent with Content-Encoding %q, which seam cannot decode to look for secret values (%v): it was not recorded", contentEncoding, err)
	}
	codedSlots <- struct{}{}
	defer func() { <-codedSlots }()
	dec, err := coding.NewBudget(maxCodedRequest, 0).Decode(body, contentEncoding)
	if err != nil && !errors.Is(err, coding.ErrCut) {
		return nil, nil, fmt.Sprintf("seam: the request body is sent with Content-Encoding %q, and its decoded copy cannot be looked through for secret values (%v): it was not recorded", contentEncoding, err)
	}
	red, secrets := r.Body(dec, contentType)
	if bytes.Equal(red, dec) {
		return body, secrets, ""
	}
	enc, err := coding.Encode(red, contentEncoding)
	if err != nil {
		return nil, nil, fmt.Sprintf("seam: the request body is sent with Content-Encoding %q and holds secret values, and its redacted copy could not be encoded again (%v): it was not recorded", contentEncoding, err)
	}
	return enc, secrets, fmt.Sprintf("seam: the request body is sent with Content-Encoding %q and holds secret values: it was decoded, redacted and encoded again, so its bytes are not those sent", contentEncoding)
}

// isJSONStart reports whether body starts, after white space, like a JSON
// object or array.
func isJSONStart(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

// formSecrets returns the values of the secret parameters of a form body.
func formSecrets(q string) []string {
	var out []string
	for part := range strings.SplitSeq(q, "&") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || !secretParam(k) {
			continue
		}
		out = append(out, v)
		if u, err := url.QueryUnescape(v); err == nil && u != v {
			out = append(out, u)
		}
	}
	return out
}

// jsonSpan is a value of a JSON body to be replaced.
type jsonSpan struct{ from, to int }

// redactJSON finds the values to redact with gjson, whose results carry
// their offset in the body, and replaces them; the rest of the body is
// kept byte for byte. A body that is not valid JSON (cut short, or broken)
// gets a textual scan for "secret-name": value pairs instead, which finds
// the secret fields but not the --redact paths.
func (r *Redaction) redactJSON(body []byte) ([]byte, []string) {
	spans, secrets := r.jsonSecrets(body)
	if len(spans) == 0 {
		return body, nil
	}
	out := make([]byte, 0, len(body))
	at := 0
	for _, s := range spans {
		out = append(out, body[at:s.from]...)
		out = append(out, `"`+Redacted+`"`...)
		at = s.to
	}
	out = append(out, body[at:]...)
	return out, secrets
}

// jsonSecrets returns the values of a JSON body to redact, outermost
// first, and the secret values they hold (see redactJSON).
func (r *Redaction) jsonSecrets(body []byte) ([]jsonSpan, []string) {
	if r == nil && !mayHoldSecretField(body) {
		return nil, nil // fast path: no string ends with a secret name
	}
	var (
		spans   []jsonSpan
		secrets []string
	)
	var secret func(v gjson.Result)
	secret = func(v gjson.Result) {
		switch v.Type {
		case gjson.String:
			secrets = append(secrets, v.Str)
			if raw := v.Raw[1 : len(v.Raw)-1]; raw != v.Str {
				secrets = append(secrets, raw)
			}
		case gjson.Number:
			secrets = append(secrets, v.Raw)
		case gjson.JSON: // a container a path names: every value in it
			v.ForEach(func(_, x gjson.Result) bool {
				secret(x)
				return true
			})
		}
	}
	lead := len(body) - len(bytes.TrimLeft(body, " \t\r\n"))
	if gjson.ValidBytes(body) {
		paths := r != nil && len(r.paths) > 0
		var path []string
		var walk func(v gjson.Result)
		walk = func(v gjson.Result) {
			object, i := v.IsObject(), 0
			v.ForEach(func(k, val gjson.Result) bool {
				at := jsonSpan{lead + val.Index, lead + val.Index + len(val.Raw)}
				if paths {
					key := k.Str
					if !object {
						key = strconv.Itoa(i)
						i++
					}
					path = append(path, key)
					defer func() { path = path[:len(path)-1] }()
					if r.pathMatch(path) {
						spans = append(spans, at)
						secret(val)
						return true
					}
				}
				switch {
				case val.IsObject() || val.IsArray():
					walk(val)
				case object && (val.Type == gjson.String || val.Type == gjson.Number) && secretField(k.Str):
					spans = append(spans, at)
					secret(val)
				}
				return true
			})
		}
		walk(gjson.ParseBytes(body[lead:]))
	} else {
		for _, m := range secretPair.FindAllSubmatchIndex(body, -1) {
			if secretField(unquoteKey(body[m[2]:m[3]])) {
				spans = append(spans, jsonSpan{m[4], m[5]})
				secrets = append(secrets, strings.Trim(string(body[m[4]:m[5]]), `"`))
			}
		}
	}
	return outermost(spans), secrets
}

// secretPair finds "key": value pairs in text that is not valid JSON: the
// key (group 1) and a string, possibly cut short, or a number (group 2).
var secretPair = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"[ \t\r\n]*:[ \t\r\n]*("(?:[^"\\]|\\.)*"?|-?[0-9][0-9.eE+-]*)`)

// unquoteKey decodes a key's JSON escapes, or returns it as it is.
func unquoteKey(raw []byte) string {
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
		return string(raw)
	}
	return s
}

// outermost drops the spans inside other spans (a field redacted inside an
// object a path redacts whole); spans come in the order their values end.
func outermost(spans []jsonSpan) []jsonSpan {
	slices.SortFunc(spans, func(a, b jsonSpan) int {
		if a.from != b.from {
			return a.from - b.from
		}
		return b.to - a.to
	})
	out := spans[:0]
	for _, s := range spans {
		if len(out) > 0 && s.from < out[len(out)-1].to {
			continue
		}
		out = append(out, s)
	}
	return out
}

// pathMatch reports whether the path of keys (array indexes as decimal
// strings) is one a --redact json: pattern names.
func (r *Redaction) pathMatch(p []string) bool {
	if r == nil {
		return false
	}
	for _, pat := range r.paths {
		if matchPath(pat, p) {
			return true
		}
	}
	return false
}

func matchPath(pat, p []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchPath(pat[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 || (pat[0] != "*" && pat[0] != p[0]) {
			return false
		}
		pat, p = pat[1:], p[1:]
	}
	return len(p) == 0
}

// secretField reports whether a JSON key names a secret. The name is
// compared without case, '_' and '-' (apiKey, api_key and API-KEY are one
// name): key, token, secret, password, passwd, pwd, apikey, accesstoken,
// refreshtoken, idtoken, authtoken, sessiontoken, clientsecret, privatekey,
// secretkey, accesskey, secretaccesskey, authorization, bearer,
// credential, credentials, and any name ending in apikey, token, secret,
// password or privatekey (githubToken, aws_secret, db_password). Plurals
// count things rather than hold secrets: max_tokens is kept.
func secretField(name string) bool {
	n := strings.Map(func(r rune) rune {
		switch {
		case r == '_' || r == '-':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, name)
	switch n {
	case "key", "token", "secret", "password", "passwd", "pwd", "apikey",
		"accesstoken", "refreshtoken", "idtoken", "authtoken", "sessiontoken",
		"clientsecret", "privatekey", "secretkey", "accesskey", "secretaccesskey",
		"authorization", "bearer", "credential", "credentials":
		return true
	}
	for _, suffix := range []string{"apikey", "token", "secret", "password", "privatekey"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// mayHoldSecretField reports whether body may hold a field secretField
// names: some string in it ends (before its closing quote, in any case)
// with key, token, secret, password, passwd, pwd, authorization, bearer or
// credential(s), or it holds \u escapes (which could spell one). Most
// request bodies hold none, and skip the tokenizer.
func mayHoldSecretField(body []byte) bool {
	if bytes.Contains(body, []byte(`\u`)) {
		return true
	}
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '"')
		if j < 0 {
			return false
		}
		i += j + 1
		for _, s := range secretSuffixes {
			if endsWithName(body[:i-1], s) {
				return true
			}
		}
	}
}

// endsWithName reports whether b ends with name, compared as secretField
// compares: without case, '_' or '-'.
func endsWithName(b []byte, name string) bool {
	i, j := len(b)-1, len(name)-1
	for j >= 0 && i >= 0 {
		c := b[i]
		i--
		switch {
		case c == '_' || c == '-':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if c != name[j] {
			return false
		}
		j--
	}
	return j < 0
}

var secretSuffixes = []string{"key", "token", "secret", "password", "passwd", "pwd", "authorization", "bearer", "credential", "credentials"}
