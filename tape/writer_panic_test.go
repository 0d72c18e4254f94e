package tape

import (
	"strings"
	"testing"
)

// panicky is a capture file whose Write panics (a bug below the writer).
type panicky struct{}

func (panicky) Write([]byte) (int, error) { panic("write choked") }

// TestWriterPanicStopsRecording: a panic on the writer's goroutine, which
// no server recovers, stops the recording as a write error does (OnError
// says so, Close returns it) instead of ending the process.
func TestWriterPanicStopsRecording(t *testing.T) {
	var said error
	w := NewWriter(panicky{}, WriterOptions{OnError: func(err error, _ int) { said = err }})
	w.Header(Header{V: Version, Seam: "test"})
	x := w.Exchange(1)
	x.Request(Request{Method: "POST", URL: "/"})
	err := w.Close()
	if err == nil || !strings.Contains(err.Error(), "write choked") || said == nil {
		t.Fatalf("Close: %v, OnError: %v", err, said)
	}
	x.End(Client, 1, Complete, "") // after the failure: dropped, no hang
}
