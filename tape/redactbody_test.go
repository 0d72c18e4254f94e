package tape

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRedactBody(t *testing.T) {
	t.Parallel()
	user, err := ParseRedaction([]string{"json:metadata.user_id", "json:messages.*.name", "json:**.email", "json:tools.0.function", "re:sk-[A-Za-z0-9]{6,}", "header:X-Mine"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		r       *Redaction
		ct      string
		in      string
		want    string
		secrets []string
	}{
		{"no secrets", nil, "application/json", `{"model":"gpt-4o","max_tokens":5,"messages":[{"role":"user","content":"the key is under the mat"}]}`, "", nil},
		{"top level", nil, "", `{"model":"m","api_key":"AKIA-0123456789"}`, `{"model":"m","api_key":"[redacted]"}`, []string{"AKIA-0123456789"}},
		{"every spelling", nil, "", `{"apiKey":"a1","API-KEY":"a2","Api_Key":"a3","key":"a4","token":"a5","access_token":"a6","refresh_token":"a7","id_token":"a8","client_secret":"a9","private_key":"b1","password":"b2","secret":"b3","Authorization":"b4","githubToken":"b5","db_password":"b6","x-api-key":"b7"}`,
			`{"apiKey":"[redacted]","API-KEY":"[redacted]","Api_Key":"[redacted]","key":"[redacted]","token":"[redacted]","access_token":"[redacted]","refresh_token":"[redacted]","id_token":"[redacted]","client_secret":"[redacted]","private_key":"[redacted]","password":"[redacted]","secret":"[redacted]","Authorization":"[redacted]","githubToken":"[redacted]","db_password":"[redacted]","x-api-key":"[redacted]"}`,
			[]string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b1", "b2", "b3", "b4", "b5", "b6", "b7"}},
		{"at depth, spacing kept", nil, "", "{\"tools\": [ {\"type\": \"mcp\", \"headers\": {\"X-Api-Key\" :\n \"deep-secret-1\"}, \"authorization\": \"oauth-secret-2\"} ], \"n\": 1}",
			"{\"tools\": [ {\"type\": \"mcp\", \"headers\": {\"X-Api-Key\" :\n \"[redacted]\"}, \"authorization\": \"[redacted]\"} ], \"n\": 1}", []string{"deep-secret-1", "oauth-secret-2"}},
		{"numbers, not booleans or objects", nil, "", `{"pin_password":123456,"token":true,"secret":null,"credentials":{"user":"u","password":"p"}}`,
			`{"pin_password":"[redacted]","token":true,"secret":null,"credentials":{"user":"u","password":"[redacted]"}}`, []string{"123456", "p"}},
		{"escaped", nil, "", `{"api\u005fkey":"s\u00e9cret\/1"}`, `{"api\u005fkey":"[redacted]"}`, []string{"sécret/1", `s\u00e9cret\/1`}},
		{"cut in a secret", nil, "", `{"model":"m","api_key":"sk-abcdef`, `{"model":"m","api_key":"[redacted]"`, []string{"sk-abcdef"}},
		{"broken, then secrets", nil, "", `{"a":tru, "token": "tok-123456", "b": {"password": 42}`, `{"a":tru, "token": "[redacted]", "b": {"password": "[redacted]"}`, []string{"tok-123456", "42"}},
		{"array body", nil, "", `[{"key":"k1"},{"key":"k2"}]`, `[{"key":"[redacted]"},{"key":"[redacted]"}]`, []string{"k1", "k2"}},
		{"form", nil, "application/x-www-form-urlencoded", `grant_type=client_credentials&client_secret=s%2Fx&scope=a`, `grant_type=client_credentials&client_secret=[redacted]&scope=a`, []string{"s%2Fx", "s/x"}},
		{"text", nil, "text/plain", `api_key=abc`, "", nil},
		{"paths", user, "", `{"metadata":{"user_id":"u-1","other":1},"messages":[{"role":"user","name":"alice","content":{"email":"a@x"}}],"tools":[{"function":{"name":"f"}}],"note":"use sk-abcdefgh"}`,
			`{"metadata":{"user_id":"[redacted]","other":1},"messages":[{"role":"user","name":"[redacted]","content":{"email":"[redacted]"}}],"tools":[{"function":"[redacted]"}],"note":"use [redacted]"}`,
			[]string{"u-1", "alice", "a@x", "f", "sk-abcdefgh"}},
		{"path naming a field inside a redacted object", user, "", `{"tools":[{"function":{"name":"f","token":"t"}}]}`, `{"tools":[{"function":"[redacted]"}]}`, []string{"f", "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.want == "" {
				tt.want = tt.in
			}
			in := []byte(tt.in)
			got, secrets := tt.r.Body(in, tt.ct)
			if string(got) != tt.want {
				t.Errorf("body\n%s\nwant\n%s", got, tt.want)
			}
			if string(in) != tt.in {
				t.Errorf("the input was modified")
			}
			slices.Sort(secrets)
			slices.Sort(tt.secrets)
			if !slices.Equal(secrets, tt.secrets) {
				t.Errorf("secrets %q, want %q", secrets, tt.secrets)
			}
		})
	}
}

func TestParseRedaction(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"x", "header:", "json:a..b", "re:(", "re:a*", "cookie:x"} {
		if _, err := ParseRedaction([]string{bad}); err == nil {
			t.Errorf("--redact %q accepted", bad)
		}
	}
	if r, err := ParseRedaction(nil); r != nil || err != nil {
		t.Errorf("no patterns: %v, %v", r, err)
	}
}

// refRedact is the reference for FuzzRedactBody: on a decoded document,
// every string or number under a secret field name becomes [Redacted].
func refRedact(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch x.(type) {
			case string, json.Number:
				if secretField(k) {
					v[k] = Redacted
					continue
				}
			}
			v[k] = refRedact(x)
		}
	case []any:
		for i := range v {
			v[i] = refRedact(v[i])
		}
	}
	return v
}

func decodeJSON(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return v, true
}

// FuzzRedactBody: on valid JSON the result is valid JSON equal to the
// input with every secret-named string or number replaced (as decoded:
// keys with escapes and duplicate keys included), and none of the values
// taken out remains; on anything else it does not fail.
func FuzzRedactBody(f *testing.F) {
	for _, s := range []string{`{"api_key":"x"}`, `{"a":[{"token":1},{"b":{"Secret":"s"}}]}`, `{"k\u0065y":"v","key":"w","key":"z"}`, `[1,{"password":"p"}]`, `{"token":"cut`, `{"max_tokens":1}`, "", "{}", `{"":{"":""}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, secrets := (*Redaction)(nil).Body(in, "application/json")
		want, ok := decodeJSON(in)
		if !ok || !isJSONStart(in) {
			return
		}
		got, ok := decodeJSON(out)
		if !ok {
			t.Fatalf("redacting valid %s gave invalid %s", in, out)
		}
		if want = refRedact(want); !reflect.DeepEqual(got, want) {
			t.Fatalf("redacting %s gave %s", in, out)
		}
		for _, s := range secrets {
			if len(s) >= 4 && s != Redacted && !strings.Contains(string(in), `"`+s+`"`) && strings.Contains(string(out), s) {
				t.Fatalf("secret %q left in %s", s, out)
			}
		}
	})
}
