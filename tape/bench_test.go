package tape

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// sseChunk is a typical Chat Completions event, quotes and all.
var sseChunk = []byte(`data: {"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1755855000,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":" streaming"},"finish_reason":null}]}` + "\n\n")

// eventsChunk is a Read of 20 events cut inside the 21st, as a busy
// recorder reads them (seam-bench's reads average 5.4 KB); textChunk is
// as long and holds no event "sse" can hold (each data line ends \r\n).
var (
	eventsChunk = append(bytes.Repeat(sseChunk, 20), sseChunk[:100]...)
	textChunk   = bytes.ReplaceAll(eventsChunk, []byte("\n"), []byte("\r\n"))
)

// appendChunkV2 appends c as a chunk line as format v2 wrote it: its bytes
// in "data" (or "data_b64"), never in "sse" pieces.
func appendChunkV2(dst []byte, c Chunk) []byte {
	line := AppendChunk(nil, Chunk{Ex: c.Ex, Side: c.Side, T: c.T, Off: c.Off})
	dst = append(dst, line[:len(line)-len(`,"data":""}`+"\n")]...)
	dst = appendBytesField(dst, "data", c.Data)
	return append(dst, "}\n"...)
}

// asV2 rewrites the chunk lines of block holding "sse" pieces as format v2
// wrote them.
func asV2(block []byte) []byte {
	var out []byte
	for line := range bytes.SplitAfterSeq(block, []byte("\n")) {
		c, ok := parseChunkFast(bytes.TrimSuffix(line, []byte("\n")))
		if !ok || !bytes.Contains(line, []byte(`"sse":[`)) {
			out = append(out, line...)
			continue
		}
		out = appendChunkV2(out, *c)
	}
	return out
}

// repeatReader yields head once and then body over and over, up to n bytes in
// total, without holding more than one copy: a capture of any size that
// exists only as it is read.
type repeatReader struct {
	head, body []byte
	n, off     int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	total := 0
	for len(p) > 0 && r.off < r.n {
		var src []byte
		if r.off < int64(len(r.head)) {
			src = r.head[r.off:]
		} else {
			src = r.body[(r.off-int64(len(r.head)))%int64(len(r.body)):]
		}
		if rem := r.n - r.off; int64(len(src)) > rem {
			src = src[:rem]
		}
		k := copy(p, src)
		p = p[k:]
		r.off += int64(k)
		total += k
	}
	return total, nil
}

// syntheticCapture returns a header and a block of one exchange's lines that
// can be repeated, as format v1 wrote them: no references, no hashes, the
// chunks' bytes in "data".
func syntheticCapture() (head, block []byte) {
	head = AppendHeader(nil, testHeader())
	block = AppendRequest(block, Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions",
		Headers: Headers{"content-type": {"application/json"}, "authorization": {Redacted}},
		Body:    []byte(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}`)})
	for _, side := range []Side{Upstream, Client} {
		block = AppendResponse(block, Response{Ex: 1, Side: side, Status: 200, Headers: Headers{"content-type": {"text/event-stream"}}})
	}
	for i := range 200 {
		for _, side := range []Side{Upstream, Client} {
			block = appendChunkV2(block, Chunk{Ex: 1, Side: side, T: int64(i) * 1e6, Off: int64(i * len(sseChunk)), Data: sseChunk})
		}
	}
	for _, side := range []Side{Upstream, Client} {
		block = AppendEnd(block, End{Ex: 1, Side: side, Outcome: Complete, Bytes: int64(200 * len(sseChunk))})
	}
	return head, block
}

// passthroughCapture returns a header and a block of one exchange's lines as
// the recorder writes them in passthrough (format v3): every client chunk a
// reference to the upstream chunk, each end with its hash.
func passthroughCapture() (head, block []byte) {
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	x := w.Exchange(1)
	x.Request(Request{Method: "POST", URL: "/v1/chat/completions",
		Headers: Headers{"content-type": {"application/json"}, "authorization": {Redacted}},
		Body:    []byte(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}`)})
	for _, side := range []Side{Upstream, Client} {
		x.Response(Response{Side: side, Status: 200, Headers: Headers{"content-type": {"text/event-stream"}}})
	}
	for i := range 200 {
		x.Chunk(Upstream, int64(i)*1e6, sseChunk)
		x.ClientChunk(int64(i)*1e6+1, sseChunk, int64(i*len(sseChunk)))
	}
	x.End(Upstream, 1e9, Complete, "")
	x.End(Client, 1e9, Complete, "")
	w.Close()
	return AppendHeader(nil, testHeader()), buf.Bytes()
}

// BenchmarkDecode decodes a 64 MiB capture that is generated while it is read,
// and reports the largest live heap seen, which stays near the size of one
// line however large the capture is. format=v3 is a passthrough recording
// (references resolved, hashes verified, events in "sse" pieces), format=v2
// the same lines with the events in "data" strings, format=v1 the same
// bytes written twice in "data" without hashes. ns/chunk is the time per
// chunk line, which compares formats whose lines differ in length.
func BenchmarkDecode(b *testing.B) {
	b.Run("format=v1", func(b *testing.B) { benchDecode(b, syntheticCapture) })
	b.Run("format=v2", func(b *testing.B) {
		benchDecode(b, func() ([]byte, []byte) { h, blk := passthroughCapture(); return h, asV2(blk) })
	})
	b.Run("format=v3", func(b *testing.B) { benchDecode(b, passthroughCapture) })
}

func benchDecode(b *testing.B, capture func() (head, block []byte)) {
	head, block := capture()
	const size = 64 << 20
	b.SetBytes(size)
	b.ReportAllocs()
	var maxHeap uint64
	var ms runtime.MemStats
	chunks := 0
	for b.Loop() {
		d := NewDecoder(&repeatReader{head: head, body: block, n: size}, "synthetic.ndjson")
		for n := 0; ; n++ {
			rec, err := d.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if rec.Kind == KindChunk {
				chunks++
			}
			var lerr *LineError
			if err != nil && !errors.As(err, &lerr) {
				b.Fatal(err)
			}
			if n%(1<<16) == 0 {
				runtime.ReadMemStats(&ms)
				maxHeap = max(maxHeap, ms.HeapAlloc)
			}
		}
		if w := d.Warnings(); len(w) > 1 {
			b.Fatalf("warnings: %v", w) // one torn line at the cut is expected
		}
	}
	b.ReportMetric(float64(maxHeap)/(1<<20), "max-heap-MiB")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(chunks), "ns/chunk")
}

// BenchmarkChunkLine is the comparison behind parseChunkFast
// (chunkparse.go): the chunk lines of the captures BenchmarkDecode reads,
// each decoded by the fast path and by the encoding/json decoder the
// Decoder falls back to (decodeKind), which reads every line the fast path
// reads the same way (FuzzDecode).
func BenchmarkChunkLine(b *testing.B) {
	formats := []struct {
		name    string
		capture func() (head, block []byte)
	}{
		{"v1", syntheticCapture},
		{"v2", func() ([]byte, []byte) { h, blk := passthroughCapture(); return h, asV2(blk) }},
		{"v3", passthroughCapture},
	}
	for _, f := range formats {
		_, block := f.capture()
		var lines [][]byte
		size := 0
		for line := range bytes.SplitSeq(block, []byte("\n")) {
			if bytes.HasPrefix(line, []byte(`{"type":"chunk"`)) {
				lines = append(lines, line)
				size += len(line)
			}
		}
		b.Run("format="+f.name+"/decoder=fast", func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, line := range lines {
					if _, ok := parseChunkFast(line); !ok {
						b.Fatalf("the fast path does not read %s", line)
					}
				}
			}
		})
		b.Run("format="+f.name+"/decoder=encoding-json", func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, line := range lines {
					if _, err := decodeKind(KindChunk, line); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func BenchmarkAppendChunk(b *testing.B) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"sse", sseChunk},
		{"binary", append([]byte{0xff}, sseChunk...)},
		{"events", eventsChunk},
		{"text", textChunk},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := Chunk{Ex: 12, Side: Upstream, T: 123456789, Off: 4096, Data: tc.data}
			buf := make([]byte, 0, 4096)
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendChunk(buf[:0], c)
			}
		})
	}
}

// BenchmarkExchangeWriterPassthrough is what the recorder's writer costs a
// passthrough stream per event: the upstream chunk (encoded, queued,
// hashed) and the client chunk that repeats it (checked, written as a
// reference). One op is one event. It fails if the writer dropped data (a
// queue that overflowed would measure the cost of not recording).
// The "mirror" case is the one line the recorder writes for both sides,
// "ref" the upstream line and a reference line it writes when it cannot.
func BenchmarkExchangeWriterPassthrough(b *testing.B) {
	for _, mirror := range []bool{true, false} {
		name := "ref"
		if mirror {
			name = "mirror"
		}
		b.Run(name, func(b *testing.B) {
			w := NewWriter(io.Discard, WriterOptions{})
			x := w.Exchange(1)
			b.SetBytes(int64(len(sseChunk)))
			b.ReportAllocs()
			var off, t int64
			for b.Loop() {
				if mirror {
					x.Mirror(t, t+1, sseChunk)
				} else {
					x.Chunk(Upstream, t, sseChunk)
					x.ClientChunk(t+1, sseChunk, off)
				}
				off += int64(len(sseChunk))
				t += 2
			}
			x.End(Upstream, t, Complete, "")
			x.End(Client, t+1, Complete, "")
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			if st := w.Stats(); st.Recorded != 1 || st.Incomplete != 0 {
				b.Fatalf("writer stats %+v: the exchange was not recorded whole", st)
			}
		})
	}
}

func TestAppendChunkDoesNotAllocate(t *testing.T) {
	c := Chunk{Ex: 1, Side: Client, Data: sseChunk}
	bad := Chunk{Ex: 1, Side: Client, Data: []byte{0xff, 0xfe}}
	buf := make([]byte, 0, 4096)
	for _, c := range []Chunk{c, bad} {
		if n := testing.AllocsPerRun(100, func() { buf = AppendChunk(buf[:0], c) }); n != 0 {
			t.Errorf("AppendChunk(%q) allocates %v times", c.Data[:2], n)
		}
	}
}

// BenchmarkMaskerChunk is the recorder's cost per chunk for masking the
// request's secrets where a response echoes them: a typical event and the
// two secrets an Authorization header gives.
// The second is a read of 30 events, as a busy proxy's reads are.
func BenchmarkMaskerChunk(b *testing.B) {
	for _, tc := range []struct {
		name string
		data []byte
	}{{"event", sseChunk}, {"30-events", bytes.Repeat(sseChunk, 30)}} {
		b.Run(tc.name, func(b *testing.B) {
			m := NewMasker([]string{"Bearer sk-proj-0123456789abcdef", "sk-proj-0123456789abcdef"}, nil, func(Chunk) {})
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				m.Chunk(Chunk{Data: tc.data})
			}
		})
	}
}

// chatBody is a request body of a long conversation: n messages.
func chatBody(n int, extra string) []byte {
	var b []byte
	b = append(b, `{"model":"gpt-4o","stream":true,"max_tokens":1024,`+extra+`"messages":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":"user","content":"Explain the difference between a mutex and a semaphore, with an example in Go, and say when each is the better tool."}`...)
	}
	return append(b, "]}"...)
}

// BenchmarkRedactBody is the recorder's cost per request body: a body with
// no secret field (the common case, which the fast scan settles) and one
// with a secret field (walked by the tokenizer), each of about 150 KB.
func BenchmarkRedactBody(b *testing.B) {
	for _, tc := range []struct{ name, extra string }{{"no-secret", ""}, {"api_key", `"api_key":"sk-0123456789",`}} {
		body := chatBody(1000, tc.extra)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				(*Redaction)(nil).Body(body, "application/json")
			}
		})
	}
}
