package convert

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestSideBody: a body sent with a Content-Encoding comes out decoded, or
// as sent with wire; one that decodes part way comes with a warning, one
// that does not decode at all is an error naming the exchange and side.
func TestSideBody(t *testing.T) {
	x := &tape.Exchange{Ex: 3}
	x.Client = tape.SideData{Response: &tape.Response{Headers: tape.Headers{"content-encoding": {"gzip"}}}, Chunks: []tape.Chunk{{Data: []byte("zz")}, {Data: []byte("ip")}}}
	for _, tc := range []struct {
		name          string
		decode        func([]byte, string) ([]byte, error)
		wire          bool
		want, warn, e string
	}{
		{"decoded", func(b []byte, ce string) ([]byte, error) { return []byte(ce + ":" + string(b)), nil }, false, "gzip:zzip", "", ""},
		{"wire", nil, true, "zzip", "", ""},
		{"part", func([]byte, string) ([]byte, error) { return []byte("ab"), errors.New("bad") }, false, "ab", "exchange 3 client body: bad; wrote the 2 bytes decoded before it", ""},
		{"none", func([]byte, string) ([]byte, error) { return nil, errors.New("bad") }, false, "", "", "exchange 3 client body: bad (--wire"},
	} {
		body, warn, err := SideBody(x, tape.Client, tc.wire, tc.decode)
		if string(body) != tc.want || (warn == nil) != (tc.warn == "") || warn != nil && warn.Error() != tc.warn || (err == nil) != (tc.e == "") || err != nil && !strings.HasPrefix(err.Error(), tc.e) {
			t.Errorf("%s: %q, %v, %v", tc.name, body, warn, err)
		}
	}
	if body, _, _ := SideBody(x, tape.Upstream, false, nil); len(body) != 0 {
		t.Errorf("upstream side with no response: %q", body)
	}
}

// TestWriteDocument: the three document formats are written; any other
// is refused.
func TestWriteDocument(t *testing.T) {
	for _, f := range []string{"har", "govcr", "vcrpy"} {
		var b bytes.Buffer
		if !IsDocument(f) || WriteDocument(context.Background(), &b, f, nil, "seam test", nil) != nil || b.Len() == 0 {
			t.Errorf("%s: not written", f)
		}
	}
	if IsDocument("curl") || WriteDocument(context.Background(), &bytes.Buffer{}, "curl", nil, "", nil) == nil {
		t.Error("curl taken for a document")
	}
}
