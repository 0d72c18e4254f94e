package framing

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// bedrockBodies returns the recorded Bedrock event-stream bodies and their
// total size.
func bedrockBodies(b *testing.B) ([][]byte, int) {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(providers, "bedrock", "*.eventstream"))
	if len(files) == 0 {
		b.Fatal("no recorded Bedrock bodies")
	}
	var bodies [][]byte
	size := 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
		size += len(body)
	}
	return bodies, size
}

// BenchmarkEventStream parses the recorded Bedrock bodies in 1 KiB reads.
func BenchmarkEventStream(b *testing.B) {
	bodies, size := bedrockBodies(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	emit := func(Frame, []byte) {}
	for b.Loop() {
		for _, body := range bodies {
			p := New(EventStream, nil)
			for off := 0; off < len(body); off += 1024 {
				p.Feed(body[off:min(off+1024, len(body))], emit)
			}
			p.Close(emit)
		}
	}
}

// BenchmarkEventStreamDecoders is the comparison behind eventStreamParser
// (eventstream.go): the same recorded Bedrock bodies, whole, read message
// by message with the parser and with the AWS SDK's eventstream.Decoder,
// each giving the message type, the event type and the payload of every
// message (what inspect reads). The SDK reads from an io.Reader and
// decodes every header into a Value; the parser reads in place.
func BenchmarkEventStreamDecoders(b *testing.B) {
	bodies, size := bedrockBodies(b)
	b.Run("decoder=framing", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		n := 0
		emit := func(f Frame, data []byte) { n += len(f.Name) + len(f.MessageType) + len(data) }
		for b.Loop() {
			for _, body := range bodies {
				p := New(EventStream, nil)
				p.Feed(body, emit)
				p.Close(emit)
			}
		}
		sink = n
	})
	b.Run("decoder=aws-sdk", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		n := 0
		dec := eventstream.NewDecoder()
		var r bytes.Reader
		var buf []byte
		for b.Loop() {
			for _, body := range bodies {
				r.Reset(body)
				for {
					m, err := dec.Decode(&r, buf[:0])
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					buf = m.Payload
					typ, name := m.Headers.Get(":message-type"), m.Headers.Get(":event-type")
					if typ == nil || name == nil {
						b.Fatal("a message without :message-type or :event-type")
					}
					n += len(typ.String()) + len(name.String()) + len(m.Payload)
				}
			}
		}
		sink = n
	})
}

// sink keeps the benchmarks' results alive.
var sink int

// BenchmarkJSONArray parses the recorded Gemini JSON array body (pretty
// printed, as the API sends it) in 64-byte reads.
func BenchmarkJSONArray(b *testing.B) {
	body, err := os.ReadFile(filepath.Join(providers, "gemini", "gemini-langchaingo-json-array-stream.body.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	emit := func(Frame, []byte) {}
	for b.Loop() {
		p := New(JSONArray, nil)
		for off := 0; off < len(body); off += 64 {
			p.Feed(body[off:min(off+64, len(body))], emit)
		}
		p.Close(emit)
	}
}
