package tape

import (
	"bytes"
	"strings"
	"testing"
)

// TestPairedRoundTrip: the upstream request line of a sandwich says how it
// was paired, after the fields before it, and reads back; a line without
// it (every capture before the field) reads with none.
func TestPairedRoundTrip(t *testing.T) {
	r := Request{Ex: 2, Side: Upstream, T: 5, Method: "POST", URL: "/v1/chat/completions", Headers: Headers{}, Body: []byte(`{}`), Paired: PairedContent}
	line := AppendRequest(nil, r)
	if !bytes.HasSuffix(line, []byte(`"body":"{}","paired":"content"}`+"\n")) {
		t.Errorf("line %s", line)
	}
	for _, tc := range []struct{ line, want string }{
		{string(line), PairedContent},
		{strings.Replace(string(line), `,"paired":"content"`, "", 1), ""},
	} {
		rec, err := decodeKind(KindRequest, []byte(strings.TrimSuffix(tc.line, "\n")))
		if err != nil || rec.Request == nil || rec.Request.Paired != tc.want {
			t.Errorf("%s: %+v %v, want paired %q", tc.line, rec.Request, err, tc.want)
		}
	}
}
