package sse

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReaderMatchesParser(t *testing.T) {
	t.Parallel()
	for _, f := range readCorpus(t, "testdata/*.sse") {
		want := parseChunks(f.data)
		for name, r := range map[string]io.Reader{
			"whole":    bytes.NewReader(f.data),
			"one byte": iotest.OneByteReader(bytes.NewReader(f.data)),
			"data+EOF": iotest.DataErrReader(bytes.NewReader(f.data)),
		} {
			var got []Event
			for e, err := range NewReader(r).All() {
				if err != nil {
					t.Fatalf("%s %s: %v", f.name, name, err)
				}
				got = append(got, e)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: Reader events differ from Parser's", f.name, name)
			}
		}
	}
}

func TestReaderEightMiBLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 8<<20)
	r := NewReader(io.MultiReader(strings.NewReader("data: "+long+"\n\n"), strings.NewReader("data: next")))
	e, err := r.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	if len(e.Data) != len(long) || e.Data != long || !e.Terminated || e.End != int64(len(long)+8) {
		t.Fatalf("got Data of %d bytes, End %d, Terminated %v", len(e.Data), e.End, e.Terminated)
	}
	e, err = r.Next()
	if err != nil || e.Data != "next" || e.Terminated {
		t.Fatalf("second: %+v, %v; want unterminated \"next\"", e, err)
	}
	if _, err := r.Next(); err != io.EOF { //nolint:errorlint // Next must return io.EOF itself
		t.Fatalf("third: err = %v, want io.EOF", err)
	}
	if _, err := r.Next(); err != io.EOF { //nolint:errorlint
		t.Fatalf("after EOF: err = %v, want io.EOF", err)
	}
}

func TestReaderError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	src := io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom))
	r := NewReader(src)
	var got []string
	var gotErr error
	for e, err := range r.All() {
		if err != nil {
			gotErr = err
			break
		}
		got = append(got, e.Data)
	}
	if !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("events = %q, want [a b] (the pending event is reported before the error)", got)
	}
	if !errors.Is(gotErr, boom) || !strings.Contains(gotErr.Error(), "offset 17") {
		t.Errorf("err = %v, want wrapped boom with the offset", gotErr)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderNoProgress(t *testing.T) {
	t.Parallel()
	_, err := NewReader(zeroReader{}).Next()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("err = %v, want io.ErrNoProgress", err)
	}
}

func TestReaderComments(t *testing.T) {
	t.Parallel()
	r := NewReader(strings.NewReader(": hello\ndata: a\n\n"))
	var texts []string
	r.SetOnComment(func(text string, off int64) { texts = append(texts, text) })
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(texts, []string{"hello"}) || r.Offset() != 17 {
		t.Errorf("comments %q, offset %d", texts, r.Offset())
	}
}
