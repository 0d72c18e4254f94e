package convert_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/tape"
)

// curlArgs is what WriteCurl's command must hand to curl for r sent to
// base, redacted as RedactStored redacts it, with env giving the values of
// the redacted headers.
func curlArgs(r *tape.Request, base string, env map[string]string) []string {
	r, _ = tape.RedactStored(r)
	args := []string{"-sS", "-N", "-X", r.Method, "--url", strings.TrimSuffix(base, "/") + r.URL}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range r.Headers {
			if !yield(k) {
				return
			}
		}
	}) {
		switch k {
		case "content-length", "host", "accept-encoding", "connection":
			continue
		}
		for _, v := range r.Headers[k] {
			if v == tape.Redacted {
				v = env[k]
			}
			args = append(args, "-H", k+": "+v)
		}
	}
	if len(r.Body) > 0 {
		args = append(args, "--data-raw", string(r.Body))
	}
	return args
}

// hostileRequest is a request whose every part is legal HTTP and hostile
// to a shell: token characters a shell treats specially in the method and
// header names, command substitutions and quotes in values and body, and a
// body curl would read as a file name if it were passed with --data.
func hostileRequest() *tape.Request {
	return &tape.Request{Ex: 1, Method: "P'O`touch$IFS'm1'`|S&T!*$HOME", URL: "/v1/chat?q='$(touch u)'&k=`touch v`",
		Headers: tape.Headers{
			"x-`touch$IFS'h1'`":     {tape.Redacted},
			"x-`touch$IFS'h2'`'":    {"redacted: read from the environment"},
			"user-agent":            {"$(touch h3) `touch h4` ' \" \\ ;touch h5"},
			"authorization":         {"Bearer sk-not-in-the-command"},
			"content-type":          {"application/json"},
			"content-length":        {"99"},
			"x-stainless-unicode":   {"\u202e über ✓"},
			"9lives":                {tape.Redacted},
			"x-a.b~c|d&e#f%g^h*i+j": {"!x"},
		},
		Body: []byte("@/etc/passwd\n{\"content\":\"it's $(touch b1) `touch b2` \\\"quoted\\\" ${HOME} \\n é\"}\n'; touch b3; '"),
	}
}

// TestWriteCurlRunsOnlyCurl runs the exported command in sh, in an empty
// directory, with curl replaced by a function that prints its arguments:
// nothing else may run (no file appears) and curl must get every part of
// the hostile request intact, the redacted headers from the environment.
func TestWriteCurlRunsOnlyCurl(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	r := hostileRequest()
	var b bytes.Buffer
	if err := convert.WriteCurl(&b, &tape.Exchange{Ex: 1, Request: r}, "https://api.example.com/"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "sk-not-in-the-command") {
		t.Errorf("a secret header value is in the command:\n%s", b.String())
	}
	// Every redacted header comes from its environment variable.
	env := map[string]string{}
	cmd := exec.Command(sh, "-c", "curl() { printf '%s\\0' \"$@\"; }\n"+b.String())
	cmd.Env = os.Environ()
	red, _ := tape.RedactStored(r)
	for k, v := range red.Headers {
		if v[0] == tape.Redacted {
			env[k] = "from $" + convert.EnvName(k) + " `touch e` $(touch f)"
			cmd.Env = append(cmd.Env, convert.EnvName(k)+"="+env[k])
		}
	}
	if len(env) != 5 {
		t.Fatalf("%d redacted headers, want 5: %v", len(env), red.Headers)
	}
	dir := t.TempDir()
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh: %v\n%s", err, b.String())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	want := curlArgs(r, "https://api.example.com/", env)
	if !slices.Equal(got, want) {
		t.Errorf("curl got\n%q\nwant\n%q\ncommand:\n%s", got, want, b.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("the command created %v\n%s", entries, b.String())
	}
}

// TestWriteCurlRefuses: what a shell command cannot carry safely is an
// error, and nothing is written.
func TestWriteCurlRefuses(t *testing.T) {
	ok := func() *tape.Request {
		return &tape.Request{Ex: 1, Method: "POST", URL: "/v1/x", Headers: tape.Headers{"content-type": {"application/json"}}, Body: []byte("{}")}
	}
	tests := []struct {
		name string
		edit func(r *tape.Request)
		base string
		want string
	}{
		{"method with spaces", func(r *tape.Request) { r.Method = "POST;touch X;" }, "", "method"},
		{"method with a newline", func(r *tape.Request) { r.Method = "POST\ntouch X" }, "", "method"},
		{"empty method", func(r *tape.Request) { r.Method = "" }, "", "method"},
		{"header name with $()", func(r *tape.Request) { r.Headers["x-$(touch X)"] = []string{tape.Redacted} }, "", "header name"},
		{"header name with a quote", func(r *tape.Request) { r.Headers[`x-"y`] = []string{"v"} }, "", "header name"},
		{"header name with @", func(r *tape.Request) { r.Headers["@/etc/passwd"] = []string{"v"} }, "", "header name"},
		{"header value with CRLF", func(r *tape.Request) { r.Headers["user-agent"] = []string{"v\r\nx-injected: 1"} }, "", "line break"},
		{"body with NUL", func(r *tape.Request) { r.Body = []byte("a\x00b") }, "", "NUL"},
		{"binary body", func(r *tape.Request) { r.Body = []byte{0xff} }, "", "binary"},
		{"file upstream", func(*tape.Request) {}, "file:///etc/passwd", "not an http"},
		{"option as upstream", func(*tape.Request) {}, "--output=/tmp/x", "not an http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok()
			tt.edit(r)
			base := tt.base
			if base == "" {
				base = "https://api.example.com"
			}
			var b bytes.Buffer
			err := convert.WriteCurl(&b, &tape.Exchange{Ex: 1, Request: r}, base)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one about %s", err, tt.want)
			}
			if b.Len() > 0 {
				t.Errorf("wrote %q despite the error", b.String())
			}
		})
	}
}

// FuzzWriteCurl exports requests made of arbitrary method, header name,
// header value, URL and body: the export is refused, or it is a command
// whose shell words (parsed by the strict reader below, which accepts only
// the quoting WriteCurl uses and no other shell syntax) are exactly what
// curl must get.
func FuzzWriteCurl(f *testing.F) {
	h := hostileRequest()
	f.Add(h.Method, "x-`touch$IFS'h1'`", "$(touch h3)", h.URL, string(h.Body), false)
	f.Add("POST", "authorization", "", "/v1/chat/completions", `{"a":"it's"}`, true)
	f.Add("POST;touch X;", "x-$(id)", "v\r\n", "/'", "\x00", false)
	f.Add("GET", "9", "'\\''", "", "@-", true)
	f.Fuzz(func(t *testing.T, method, name, value, u, body string, redacted bool) {
		if redacted {
			value = tape.Redacted
		}
		r := &tape.Request{Ex: 1, Method: method, URL: u, Headers: tape.Headers{name: {value}}, Body: []byte(body)}
		var b bytes.Buffer
		if err := convert.WriteCurl(&b, &tape.Exchange{Ex: 1, Request: r}, "https://api.example.com"); err != nil {
			if b.Len() > 0 {
				t.Fatalf("wrote %q and failed with %v", b.String(), err)
			}
			return
		}
		words, err := shellWords(b.String())
		if err != nil {
			t.Fatalf("%v in\n%s", err, b.String())
		}
		env := map[string]string{strings.ToLower(name): "$" + convert.EnvName(strings.ToLower(name))}
		if want := append([]string{"curl"}, curlArgs(r, "https://api.example.com", env)...); !slices.Equal(words, want) {
			t.Fatalf("words\n%q\nwant\n%q", words, want)
		}
	})
}

// shellWords splits a command into words, accepting only bare words of
// letters, digits, - and _, single-quoted strings, \' and "$NAME" (which it
// keeps as $NAME), separated by spaces or backslash-newlines, and a
// trailing # comment line. Anything else a shell would interpret is an
// error.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			end()
			i++
		case strings.HasPrefix(s[i:], "\\\n"):
			end()
			i += 2
		case c == '\n':
			end()
			i++
			if i < len(s) && s[i] == '#' {
				j := strings.IndexByte(s[i:], '\n')
				if j < 0 || i+j+1 != len(s) {
					return nil, fmt.Errorf("a comment that is not the last line at %d", i)
				}
				return words, nil
			}
			if i != len(s) {
				return nil, fmt.Errorf("a second command at byte %d", i)
			}
			return words, nil
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated quote at %d", i)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 2
		case strings.HasPrefix(s[i:], `\'`):
			cur.WriteByte('\'')
			inWord = true
			i += 2
		case strings.HasPrefix(s[i:], `"$`):
			j := 2
			for i+j < len(s) && (s[i+j] >= 'A' && s[i+j] <= 'Z' || s[i+j] >= '0' && s[i+j] <= '9' || s[i+j] == '_') {
				j++
			}
			if j == 2 || i+j >= len(s) || s[i+j] != '"' || s[i+2] >= '0' && s[i+2] <= '9' {
				return nil, fmt.Errorf("a double-quoted string other than \"$NAME\" at %d", i)
			}
			cur.WriteString(s[i+1 : i+j])
			inWord = true
			i += j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_':
			cur.WriteByte(c)
			inWord = true
			i++
		default:
			return nil, fmt.Errorf("shell syntax %q at %d", c, i)
		}
	}
	return nil, fmt.Errorf("no final newline")
}
