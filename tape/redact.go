package tape

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
)

// Redacted replaces every value that must not reach disk.
const Redacted = "[redacted]"

// RedactHeaders returns h with lower-case names and every value outside the
// allowlist of non-secret headers replaced by [Redacted]. Credentials
// (Authorization, X-Api-Key, Cookie, Set-Cookie and the like) are redacted
// whatever the allowlist says. It is the one place header values are chosen
// for disk. The names are kept, so a capture shows which headers were sent.
func RedactHeaders(h http.Header) Headers { return redactHeaderMap(h) }

// RedactStored returns r as it may leave seam (in an export, or a capture
// imported from another tool): the rules the recorder applies, applied
// again to a request that may predate them: header values outside the
// allowlist, secret query parameters and secret JSON body fields
// redacted. The secret values taken out of the body are returned too, to
// mask where the response echoes them. A compressed body is looked
// through as [Redaction.CodedBody] does. r is not modified.
func RedactStored(r *Request) (*Request, []string) {
	out := *r
	out.Headers = redactHeaderMap(r.Headers)
	if u, err := url.Parse(r.URL); err == nil && strings.HasPrefix(r.URL, "/") {
		out.URL = RedactURL(u)
	}
	body, secrets, _ := (*Redaction)(nil).CodedBody(r.Body, r.Headers.Get("content-type"), strings.Join(r.Headers["content-encoding"], ", "))
	if body == nil && len(r.Body) > 0 {
		out.BodyTruncated = true // withheld: a compressed body that cannot be looked through
	}
	out.Body = body
	return &out, secrets
}

// redactHeaderMap is RedactHeaders for a map of either kind.
func redactHeaderMap(h map[string][]string) Headers {
	if h == nil {
		return nil
	}
	out := make(Headers, len(h))
	for name, vals := range h {
		lower := strings.ToLower(name)
		keep := headerAllowed(lower)
		for _, v := range vals {
			switch {
			case lower == "sec-websocket-protocol":
				v = redactSubprotocols(v)
			case !keep:
				v = Redacted
			}
			out[lower] = append(out[lower], v)
		}
		if _, ok := out[lower]; !ok {
			out[lower] = []string{}
		}
	}
	return out
}

// headerAllowed reports whether the value of the lower-case header name may
// be kept.
func headerAllowed(name string) bool {
	if alwaysRedacted(name) {
		return false // credentials, whatever the lists below say
	}
	switch name {
	// Non-secret headers that explain a stream: its framing, its client, its
	// server, its limits.
	case "content-type", "content-length", "content-encoding", "content-language",
		"accept", "accept-encoding", "accept-language", "user-agent", "host",
		"transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade",
		"date", "server", "cache-control", "pragma", "expires", "vary", "via", "age",
		"etag", "last-modified", "alt-svc", "strict-transport-security",
		"x-content-type-options", "x-frame-options", "x-accel-buffering",
		"retry-after", "retry-after-ms",
		"anthropic-version", "anthropic-beta",
		"x-request-id", "request-id", "x-correlation-id", "traceparent",
		"cf-ray", "cf-cache-status", "x-envoy-upstream-service-time",
		"x-goog-api-client", "x-ms-region", "azureml-model-deployment",
		// OpenAI's headers that describe the call, not the account:
		// openai-organization and openai-project name the account, and
		// any other openai-* header is redacted with them.
		"openai-processing-ms", "openai-version", "openai-model", "openai-beta",
		// WebSocket handshake: inspect needs the negotiated extensions to
		// decode the frames (permessage-deflate).
		"sec-websocket-version", "sec-websocket-key", "sec-websocket-accept",
		"sec-websocket-extensions":
		return true
	}
	for _, prefix := range allowedPrefixes() {
		if strings.HasPrefix(name, prefix) {
			return !secretLooking(name)
		}
	}
	return false
}

// alwaysRedacted reports the credential headers redacted whatever an
// allowlist says.
func alwaysRedacted(name string) bool {
	switch name {
	case "authorization", "proxy-authorization", "x-api-key", "api-key",
		"cookie", "set-cookie", "set-cookie2", "x-goog-api-key",
		"x-amz-security-token", "x-auth-token", "x-csrf-token",
		"ocp-apim-subscription-key", "www-authenticate", "proxy-authenticate":
		return true
	}
	return false
}

// allowedPrefixes lists the header families whose values are kept unless the
// name looks secret.
func allowedPrefixes() []string {
	return []string{
		"x-stainless-", "x-ratelimit-", "anthropic-ratelimit-",
		"x-ms-ratelimit-", "access-control-",
	}
}

// redactSubprotocols redacts the WebSocket subprotocols of a
// Sec-WebSocket-Protocol value that carry a credential: browsers cannot set
// headers, so the OpenAI Realtime API takes the key as a subprotocol
// ("realtime, openai-insecure-api-key.sk-..."), and the account's
// organization and project ids too ("openai-organization.org-...",
// "openai-project.proj-..."), which keep their name and lose the id, as
// the headers of those names lose their values. The others are kept.
func redactSubprotocols(v string) string {
	parts := strings.Split(v, ",")
	for i, p := range parts {
		name := strings.TrimSpace(p)
		prefix, _, _ := strings.Cut(strings.ToLower(name), ".")
		switch {
		case secretLooking(strings.ToLower(name)):
			parts[i] = strings.Replace(p, name, Redacted, 1)
		case (prefix == "openai-organization" || prefix == "openai-project") && len(name) > len(prefix)+1:
			parts[i] = strings.Replace(p, name, name[:len(prefix)+1]+Redacted, 1)
		}
	}
	return strings.Join(parts, ",")
}

// secretLooking reports whether a header or parameter name has a segment that
// names a credential ("x-stainless-api-key", "openai-session-token"). Plurals
// like "tokens" in "x-ratelimit-remaining-tokens" count usage, not secrets.
func secretLooking(name string) bool {
	for seg := range strings.FieldsFuncSeq(name, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		switch seg {
		case "auth", "authorization", "key", "apikey", "token", "secret",
			"cookie", "session", "sessionid", "password", "passwd", "pwd",
			"signature", "sig", "credential", "credentials", "bearer", "jwt",
			"private", "csrf", "xsrf":
			return true
		}
	}
	return false
}

// RedactURL returns the path and query of u ("/v1/chat?x=1") with the value of
// every secret query parameter (key, api_key, token, sig, ...; any case)
// replaced by [Redacted]. Everything else is kept byte for byte, in order.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery == "" && !u.ForceQuery {
		return path
	}
	return path + "?" + redactQuery(u.RawQuery)
}

// redactQuery returns a raw query (or form body) with the value of every
// secret parameter replaced by [Redacted], the rest kept byte for byte.
func redactQuery(q string) string {
	var b strings.Builder
	b.Grow(len(q))
	first := true
	for part := range strings.SplitSeq(q, "&") {
		if !first {
			b.WriteByte('&')
		}
		first = false
		rawKey, _, hasValue := strings.Cut(part, "=")
		if !hasValue || !secretParam(rawKey) {
			b.WriteString(part)
			continue
		}
		b.WriteString(rawKey)
		b.WriteByte('=')
		b.WriteString(Redacted)
	}
	return b.String()
}

// RedactUpstream returns the upstream base URL u as seam names it in a
// capture header, on the terminal and in an error a client gets: without
// its user info (credentials) or its query (which may hold a key), not
// even an empty "?", so request URLs join it; "" for none (nil).
func RedactUpstream(u *url.URL) string {
	if u == nil {
		return ""
	}
	v := *u
	v.User = nil
	v.RawQuery, v.ForceQuery = "", false
	return v.String()
}

// secretParam reports whether the raw (still escaped) query parameter name
// names a secret.
func secretParam(rawKey string) bool {
	key, err := url.QueryUnescape(rawKey)
	if err != nil {
		key = rawKey
	}
	key = strings.ToLower(strings.TrimSpace(key))
	switch key {
	case "key", "api_key", "api-key", "apikey", "x-api-key", "x-goog-api-key",
		"token", "access_token", "refresh_token", "id_token", "auth", "auth_token",
		"authorization", "sig", "signature", "password", "passwd", "pwd", "pass",
		"secret", "client_secret", "code", "session", "sessionid", "session_id",
		"jwt", "bearer", "credential", "credentials", "private_token",
		"x-amz-signature", "x-amz-credential", "x-amz-security-token",
		"x-goog-signature", "x-goog-credential":
		return true
	}
	return secretLooking(key) ||
		strings.HasSuffix(key, "token") || strings.HasSuffix(key, "secret") ||
		strings.HasSuffix(key, "password") || strings.HasSuffix(key, "apikey")
}

// RedactStoredExchange returns x as it may be written to disk again (an
// import, a replay saved with -o): its requests redacted as [RedactStored]
// does, its response headers redacted, and the secret values taken out of
// the request bodies masked in its chunks as a [Masker] masks them. x is
// not modified.
func RedactStoredExchange(x *Exchange) *Exchange {
	out := *x
	var secrets []string
	for _, r := range []**Request{&out.Request, &out.UpstreamRequest} {
		if *r != nil {
			var s []string
			*r, s = RedactStored(*r)
			secrets = append(secrets, s...)
		}
	}
	for _, sd := range []*SideData{&out.Upstream, &out.Client} {
		if sd.Response != nil {
			resp := *sd.Response
			resp.Headers = redactHeaderMap(resp.Headers)
			sd.Response = &resp
		}
		if len(secrets) > 0 && len(sd.Chunks) > 0 {
			var chunks []Chunk
			m := NewMasker(secrets, nil, func(c Chunk) {
				c.Data = bytes.Clone(c.Data)
				chunks = append(chunks, c)
			})
			for _, c := range sd.Chunks {
				m.Chunk(c)
			}
			m.Flush()
			sd.Chunks = chunks
		}
	}
	return &out
}
