package tape

import (
	"bytes"
	"reflect"
	"testing"
)

// TestMergeContinuation: an exchange an ExchangeReader handed over, merged
// with the continuation its late lines made, holds what Read gathers for
// that exchange: its request, and the late chunk after the others and the
// late note.
func TestMergeContinuation(t *testing.T) {
	t.Parallel()
	b := newCapLines("passthrough").whole(1, 10).whole(2, 20).chunk(1, Client, 30, 99, "late").note(1, "late").b
	xs, _, _ := readAll(t, b)
	if len(xs) != 3 || !xs[2].Continued {
		t.Fatalf("exchanges %+v", xs)
	}
	merged := xs[0].Merge(xs[2])
	c, err := Read(bytes.NewReader(b), "x.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	want := c.Exchanges[0]
	if !reflect.DeepEqual(merged.Client.Chunks, want.Client.Chunks) || !reflect.DeepEqual(merged.Notes, want.Notes) || len(merged.Client.Chunks) != 2 {
		t.Errorf("merged client chunks %+v notes %+v;\nRead gathers %+v notes %+v", merged.Client.Chunks, merged.Notes, want.Client.Chunks, want.Notes)
	}
	if !reflect.DeepEqual(merged.Request, want.Request) {
		t.Errorf("request %+v, want %+v", merged.Request, want.Request)
	}
}
