package inspect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/tape"
)

// TestCompressionBombCapped: a capture whose br body is a few hundred
// bytes for 64 MiB decoded (both sides the same bytes, as a pass-through
// proxy records them) is inspected within the caps: each side reads
// coding.MaxBody decoded bytes, the same decoded copy, and an
// encoding.capped finding names the cap.
func TestCompressionBombCapped(t *testing.T) {
	var b bytes.Buffer
	w := brotli.NewWriterLevel(&b, 5)
	w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: "))
	line := bytes.Repeat([]byte("a"), 1<<20)
	for range 64 {
		w.Write(line)
	}
	w.Close()
	if b.Len() > 2<<10 {
		t.Fatalf("the bomb is %d bytes", b.Len())
	}
	h := tape.Headers{"content-type": {"text/event-stream"}, "content-encoding": {"br"}}
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions", Body: []byte(`{"stream":true}`)}}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(s)
		sd.Response = &tape.Response{Ex: 1, Side: s, Status: 200, Headers: h}
		for off := 0; off < b.Len(); off += 100 {
			sd.Chunks = append(sd.Chunks, tape.Chunk{Ex: 1, Side: s, T: int64(off), Off: int64(off), Data: b.Bytes()[off:min(off+100, b.Len())]})
		}
		sd.End = &tape.End{Ex: 1, Side: s, Outcome: tape.Complete, Bytes: int64(b.Len())}
	}
	rep := Inspect(&tape.Capture{Name: "bomb.ndjson", Header: tape.Header{V: tape.Version}, Exchanges: []*tape.Exchange{x}}, Options{})
	er := rep.Exchanges[0]
	if len(er.Sides) != 2 {
		t.Fatalf("%d sides", len(er.Sides))
	}
	for _, s := range er.Sides {
		if s.Decoded != coding.MaxBody {
			t.Errorf("%s: %d decoded bytes, want the cap %d", s.Side, s.Decoded, coding.MaxBody)
		}
	}
	first := func(cs []tape.Chunk) *byte {
		for _, c := range cs {
			if len(c.Data) > 0 {
				return &c.Data[0]
			}
		}
		return nil
	}
	if up, cl := first(er.Sides[0].ChunkList()), first(er.Sides[1].ChunkList()); up == nil || up != cl {
		t.Error("the client side, the same bytes, was decoded again")
	}
	capped := 0
	for _, f := range er.Findings {
		if f.ID == "encoding.capped" {
			capped++
			if !strings.Contains(f.Message, "seam's cap of 12 MiB decoded per body") {
				t.Errorf("finding %q", f.Message)
			}
		}
	}
	if capped != 2 {
		t.Fatalf("%d encoding.capped findings, want one per side: %+v", capped, er.Findings)
	}
}
