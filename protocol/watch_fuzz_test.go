package protocol

import (
	"testing"

	"github.com/seam-dev/seam/coding"
)

// watchState is what a Watch says of a body.
type watchState struct {
	events          int
	terminal, known bool
	framing         string
}

func stateOf(w *Watch) watchState {
	return watchState{w.Events(), w.Terminal(), w.Known(), w.Framing().String()}
}

// watchCoded follows body encoded with ce, as the recorder's watch does:
// the wire bytes, in pieces of n, through a coding.Decoder, whose pieces
// feed the Watch.
func watchCoded(t *testing.T, ct, url, ce string, wire []byte, n int) (*Watch, error) {
	t.Helper()
	d, err := coding.NewDecoder(ce)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatch(ct, url)
	var werr error
	for off := 0; off < len(wire); off += n {
		if err := d.Write(wire[off:min(off+n, len(wire))], w.Feed); err != nil && werr == nil {
			werr = err
		}
	}
	if err := d.Close(w.Feed); err != nil && werr == nil {
		werr = err
	}
	w.Close()
	return w, werr
}

// FuzzWatch feeds any body to the recorder's watch: it must not panic, and
// what it says (events, terminal, known, framing) must not depend on how
// the body was split into reads, nor on whether it came compressed (the
// watch then follows the decoder's pieces); Prefix of the whole body is
// what the watch says.
func FuzzWatch(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n"), "text/event-stream", "/v1/chat/completions", uint8(3), uint8(0))
	f.Add([]byte("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"), "", "/v1/messages", uint8(1), uint8(1))
	f.Add([]byte("{\"model\":\"m\",\"done\":false}\n{\"done\":true}\n"), "application/x-ndjson", "/api/chat", uint8(5), uint8(2))
	f.Add([]byte(`[{"candidates":[{"finishReason":"STOP"}]}]`), "application/json", "/v1beta/models/g:streamGenerateContent", uint8(7), uint8(3))
	f.Add([]byte("\x00\x00\x00\x10\x00\x00\x00\x00\x05\xc2\x48\xeb\x7d\x98\xc8\xff"), "application/vnd.amazon.eventstream", "/model/m/converse-stream", uint8(2), uint8(4))
	f.Add([]byte("              \r\n  [{\"candidates\":[{\"finishReason\":\"STOP\"}]}]"), "text/event-stream", "/v1beta/models/g:streamGenerateContent", uint8(1), uint8(0))
	codings := []string{"", "gzip", "br", "zstd", "deflate"}
	f.Fuzz(func(t *testing.T, body []byte, ct, url string, split, ci uint8) {
		whole := watchBody(ct, url, body, 0)
		want := stateOf(whole)
		if ev, term := whole.Prefix(int64(len(body))); ev != want.events || term != want.terminal {
			t.Fatalf("Prefix(all) = %d %v, the watch says %+v", ev, term, want)
		}
		for _, n := range []int{1, int(split%16) + 2} {
			if got := stateOf(watchBody(ct, url, body, n)); got != want {
				t.Fatalf("split by %d: %+v, whole %+v", n, got, want)
			}
		}
		ce := codings[int(ci)%len(codings)]
		if ce == "" {
			return
		}
		wire, err := coding.Encode(body, ce)
		if err != nil {
			t.Fatal(err)
		}
		w, err := watchCoded(t, ct, url, ce, wire, int(split%64)+1)
		if got := stateOf(w); err != nil || got != want {
			t.Fatalf("%s-coded: %+v (%v), plain %+v", ce, got, err, want)
		}
	})
}
