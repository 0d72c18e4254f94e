package convert

import (
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/tape"
)

// WriteCurl writes a shell command that sends x's request again to base (the
// upstream URL, e.g. https://api.openai.com). tape.Headers that were redacted are
// sent from environment variables named after them (authorization from
// $AUTHORIZATION), so no secret needs to be in the command; the secret
// fields of a JSON body are sent as "[redacted]" (see [tape.RedactStored]).
//
// A capture may come from a stranger, so the command never runs anything
// but curl: every word taken from the capture is single-quoted, the URL is
// passed with --url and the body with --data-raw (curl reads no file named
// by an @), and the request is refused, with an error, when its method or a
// header name is not an HTTP token, a header value holds a line break or a
// NUL, the body holds a NUL (no shell argument can carry one) or base is not
// an http or https URL.
func WriteCurl(w io.Writer, x *tape.Exchange, base string) error {
	if x.Request == nil {
		return fmt.Errorf("exchange %d: no request was recorded", x.Ex)
	}
	// The capture may predate the recorder's redaction, or be imported.
	r, _ := tape.RedactStored(x.Request)
	if !validToken(r.Method) {
		return fmt.Errorf("exchange %d: method %q is not an HTTP token; refusing to write it into a shell command", x.Ex, r.Method)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("exchange %d: upstream %q is not an http or https URL; name one with --upstream", x.Ex, base)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "curl -sS -N -X %s --url %s", shellquote.Quote(r.Method), shellquote.Quote(strings.TrimSuffix(base, "/")+r.URL))
	for _, k := range slices.Sorted(maps.Keys(r.Headers)) {
		if skipCurlHeader[k] {
			continue
		}
		if !validToken(k) {
			return fmt.Errorf("exchange %d: header name %q is not an HTTP token; refusing to write it into a shell command", x.Ex, k)
		}
		for _, v := range r.Headers[k] {
			if v == tape.Redacted {
				// The name is a token, so it needs no quoting, and the
				// variable's name is made of letters, digits and _ only.
				fmt.Fprintf(&b, " \\\n  -H %s\"$%s\"", shellquote.Quote(k+": "), envName(k))
				continue
			}
			if strings.ContainsAny(v, "\r\n\x00") {
				return fmt.Errorf("exchange %d: header %s holds a line break or NUL; refusing to write it into a shell command", x.Ex, k)
			}
			fmt.Fprintf(&b, " \\\n  -H %s", shellquote.Quote(k+": "+v))
		}
	}
	if len(r.Body) > 0 {
		if !utf8.Valid(r.Body) {
			return fmt.Errorf("exchange %d: the request body is binary; curl export needs text", x.Ex)
		}
		if slices.Contains(r.Body, 0) {
			return fmt.Errorf("exchange %d: the request body holds a NUL byte, which no shell argument can carry", x.Ex)
		}
		fmt.Fprintf(&b, " \\\n  --data-raw %s", shellquote.Quote(string(r.Body)))
	}
	if r.BodyTruncated {
		b.WriteString("\n# note: the recorded body was truncated; this request is not the original")
	}
	b.WriteString("\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// skipCurlHeader are request headers curl sets itself.
var skipCurlHeader = map[string]bool{"content-length": true, "host": true, "accept-encoding": true, "connection": true}

// envName is the environment variable a redacted header's value is read
// from: the name upper-cased, every byte other than a letter or digit
// turned into _, and an _ in front of a leading digit.
func envName(header string) string {
	b := []byte(strings.ToUpper(header))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		b = append([]byte{'_'}, b...)
	}
	return string(b)
}

// validToken reports whether s is an HTTP token (RFC 9110 §5.6.2), the
// syntax of methods and header names.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
