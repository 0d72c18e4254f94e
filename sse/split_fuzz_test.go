package sse

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"testing/iotest"
)

// FuzzSplitEvents cuts any body at its event boundaries (imports and
// replay's faults do): the parts join to the body, and each but the last
// ends where an event the Parser dispatches ends.
func FuzzSplitEvents(f *testing.F) {
	for _, s := range splitInputs {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		parts := SplitEvents(body)
		if !bytes.Equal(bytes.Join(parts, nil), body) {
			t.Fatal("the parts do not join to the body")
		}
		ends := map[int64]bool{}
		for _, e := range parseChunks(body) {
			ends[e.End] = true
		}
		off := int64(0)
		for i, p := range parts {
			if len(p) == 0 {
				t.Fatalf("part %d is empty", i)
			}
			off += int64(len(p))
			if i < len(parts)-1 && !ends[off] {
				t.Fatalf("part %d ends at %d, where no event ends", i, off)
			}
		}
	})
}

// FuzzReader reads any body through the pull Reader, one byte per read
// and with errors after the bytes, and checks it gives the Parser's
// events, then the end.
func FuzzReader(f *testing.F) {
	for _, s := range splitInputs {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		want := parseChunks(body)
		for _, r := range []io.Reader{iotest.OneByteReader(bytes.NewReader(body)), iotest.DataErrReader(bytes.NewReader(body))} {
			rd := NewReader(r)
			var got []Event
			for i := 0; ; i++ {
				if i > len(body)+2 {
					t.Fatal("the reader does not end")
				}
				e, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, e)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("the Reader gives %+v, the Parser %+v", got, want)
			}
		}
	})
}
