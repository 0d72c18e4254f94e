package sse_test

import (
	"bytes"
	"testing"

	"github.com/seam-dev/seam/sse"
)

func TestSplitEvents(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{"data: a\n\ndata: b\n\n", []string{"data: a\n\n", "data: b\n\n"}},
		{": ping\n\ndata: a\r\n\r\nevent: x\ndata: b", []string{": ping\n\ndata: a\r\n\r\n", "event: x\ndata: b"}},
		{"data: a\n\n: trailing comment\n", []string{"data: a\n\n", ": trailing comment\n"}},
		{"", nil},
	} {
		got := sse.SplitEvents([]byte(tc.body))
		if len(got) != len(tc.want) {
			t.Fatalf("%q: %d parts %q, want %q", tc.body, len(got), got, tc.want)
		}
		for i := range got {
			if string(got[i]) != tc.want[i] {
				t.Errorf("%q part %d: %q, want %q", tc.body, i, got[i], tc.want[i])
			}
		}
		if !bytes.Equal(bytes.Join(got, nil), []byte(tc.body)) {
			t.Errorf("%q: parts do not join to the body", tc.body)
		}
	}
}
