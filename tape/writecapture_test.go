package tape

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestWriteCapture: a capture written whole reads back with the same
// exchanges, in this seam's format version and naming the seam that wrote
// it, with an API key its request carried redacted on disk.
func TestWriteCapture(t *testing.T) {
	t.Parallel()
	b := newCapLines("passthrough").whole(1, 10).whole(2, 20).note(0, "imported").b
	c, err := Read(bytes.NewReader(b), "x.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	c.Header.V, c.Header.Seam = 1, ""
	c.Exchanges[0].Request.Headers = Headers{"authorization": {"Bearer sk-CANARY0123456789"}}
	var out bytes.Buffer
	if err := WriteCapture(context.Background(), &out, c, "9.9.9"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "CANARY") {
		t.Errorf("the key reached the capture:\n%s", out.String())
	}
	back, err := Read(bytes.NewReader(out.Bytes()), "y.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if back.Header.V != Version || back.Header.Seam != "9.9.9" || len(back.Exchanges) != 2 || len(back.Notes) != 1 || len(back.Exchanges[1].Client.Chunks) != 1 {
		t.Errorf("read back: header %+v, %d exchanges, notes %v", back.Header, len(back.Exchanges), back.Notes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WriteCapture(ctx, &out, c, "9.9.9"); err == nil {
		t.Error("an ended context wrote on")
	}
}
