package tape

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// recordPassthrough writes one exchange the way the recorder does in
// passthrough: each upstream chunk, then the same bytes written to the
// client, referenced.
func recordPassthrough(w *Writer, ex int, chunks []string) { recordExchange(w, ex, chunks, false) }

// recordExchange records exchange ex as recordPassthrough does, each chunk
// pair in one line when mirror is set (as the recorder writes them), else
// an upstream line and a reference line. Chunk i is read at 10+i and
// written at 11+i.
func recordExchange(w *Writer, ex int, chunks []string, mirror bool) {
	x := w.Exchange(ex)
	x.Request(Request{T: 1, Method: "POST", URL: "/v1/chat/completions", Body: []byte(`{"stream":true}`)})
	x.Response(Response{Side: Upstream, T: 2, Status: 200})
	x.Response(Response{Side: Client, T: 3, Status: 200})
	var up int64
	for i, c := range chunks {
		if mirror {
			x.Mirror(int64(10+i), int64(11+i), []byte(c))
		} else {
			x.Chunk(Upstream, int64(10+i), []byte(c))
			x.ClientChunk(int64(11+i), []byte(c), up)
		}
		up += int64(len(c))
	}
	x.End(Upstream, 100, Complete, "")
	x.End(Client, 101, Complete, "")
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestPassthroughClientIsReferenced(t *testing.T) {
	t.Parallel()
	chunks := []string{"data: {\"a\":\"caf\xc3", "\xa9\"}\n\n", "data: [DONE]\n\n"}
	body := strings.Join(chunks, "")
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	w.Header(testHeader())
	recordPassthrough(w, 1, chunks)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	if n := strings.Count(file, `"side":"client","t":`); n != len(chunks)+2 {
		t.Fatalf("%d client lines, want %d:\n%s", n, len(chunks)+2, file)
	}
	for i, c := range chunks {
		off := strings.Index(body, c)
		want := fmt.Sprintf(`"side":"client","t":%d,"off":%d,"ref":%d,"len":%d}`, 11+i, off, off, len(c))
		if !strings.Contains(file, want) {
			t.Errorf("no reference line %s in:\n%s", want, file)
		}
	}
	if strings.Count(file, `data: [DONE]`) != 1 {
		t.Errorf("the client's bytes were written again:\n%s", file)
	}
	if n := strings.Count(file, `"sha256":"`+sha(body)+`"`); n != 2 {
		t.Errorf("%d end lines carry the body's SHA-256, want 2:\n%s", n, file)
	}
	c, err := Read(strings.NewReader(file), "ref.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) > 0 {
		t.Fatalf("warnings: %v", c.Warnings)
	}
	x := c.Exchanges[0]
	for _, s := range []Side{Upstream, Client} {
		sd := x.Side(s)
		if got := string(sd.Body()); got != body {
			t.Errorf("%s body %q, want %q", s, got, body)
		}
		var off int64
		for i, ch := range sd.Chunks {
			if ch.Off != off || string(ch.Data) != chunks[i] || ch.T != int64(10+i)+boolInt(s == Client) {
				t.Errorf("%s chunk %d: off %d t %d data %q", s, i, ch.Off, ch.T, ch.Data)
			}
			off += int64(len(ch.Data))
		}
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// TestReferenceOnlyWithinLastUpstreamChunk checks that a client chunk that
// is not the last upstream chunk written, byte for byte, is written whole.
func TestReferenceOnlyWithinLastTwoUpstreamChunks(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	w.Header(testHeader())
	x := w.Exchange(1)
	x.Chunk(Upstream, 1, []byte("abcd"))
	x.Chunk(Upstream, 2, []byte("efgh"))
	x.Chunk(Upstream, 3, []byte("ijkl"))
	x.ClientChunk(4, []byte("abcd"), 0) // not one of the last two upstream chunks
	x.ClientChunk(5, []byte("efgh"), 4) // the one before the last
	x.ClientChunk(6, []byte("jk"), 9)   // part of one: written whole
	x.ClientChunk(7, []byte("zz"), -1)  // changed bytes
	x.ClientChunk(8, []byte("ijkX"), 8) // said to be the same, but not
	x.End(Upstream, 6, Complete, "")
	x.End(Client, 9, Complete, "")
	w.Close()
	file := buf.String()
	for _, want := range []string{`"off":0,"data":"abcd"`, `"off":4,"ref":4,"len":4`, `"off":8,"data":"jk"`, `"off":10,"data":"zz"`, `"off":12,"data":"ijkX"`} {
		if !strings.Contains(file, want) {
			t.Errorf("missing %s in:\n%s", want, file)
		}
	}
	c, err := Read(strings.NewReader(file), "x.ndjson")
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("read: %v %v", err, c.Warnings)
	}
	if got := string(c.Exchanges[0].Client.Body()); got != "abcdefghjkzzijkX" {
		t.Errorf("client body %q", got)
	}
}

// TestReferenceBehindByAChunk: a client chunk the masker held back reaches
// the writer after the next upstream chunk; it is still a reference, and
// the client side's hash is still the upstream's, checked on read.
func TestReferenceBehindByAChunk(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	w.Header(testHeader())
	x := w.Exchange(1)
	x.Chunk(Upstream, 1, []byte("data: {\"a\":\"s"))
	x.Chunk(Upstream, 2, []byte("k\"}\n\n"))
	x.ClientChunk(3, []byte("data: {\"a\":\"s"), 0)
	x.ClientChunk(4, []byte("k\"}\n\n"), 13)
	x.End(Upstream, 5, Complete, "")
	x.End(Client, 6, Complete, "")
	w.Close()
	if n := strings.Count(buf.String(), `"ref":`); n != 2 {
		t.Errorf("%d references, want both client chunks:\n%s", n, buf.String())
	}
	c, err := Read(strings.NewReader(buf.String()), "x.ndjson")
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("read: %v %v", err, c.Warnings)
	}
	ex := c.Exchanges[0]
	if string(ex.Client.Body()) != string(ex.Upstream.Body()) || ex.Client.End.SHA256 == "" || ex.Client.End.SHA256 != ex.Upstream.End.SHA256 {
		t.Errorf("client %q, ends %+v %+v", ex.Client.Body(), ex.Upstream.End, ex.Client.End)
	}
	if x.h.apart {
		t.Error("the writer hashed the client side apart: it is the upstream's bytes, a chunk behind")
	}
}

func TestDecodeReferenceErrors(t *testing.T) {
	t.Parallel()
	head := `{"type":"capture","v":2,"seam":"t","id":"i","started":"2026-08-22T09:30:00Z","upstream":"u","engine":{"profile":"passthrough"}}` + "\n"
	up := `{"type":"chunk","ex":1,"side":"upstream","t":1,"off":0,"data":"abcdef"}` + "\n"
	tests := []struct {
		name, lines, want string
	}{
		{"no upstream chunk", `{"type":"chunk","ex":1,"side":"client","t":2,"off":0,"ref":0,"len":3}`, "exchange 1 has no upstream chunk before it"},
		{"past the chunk", up + `{"type":"chunk","ex":1,"side":"client","t":2,"off":0,"ref":4,"len":3}`, "outside the last two upstream chunks of exchange 1 (the last is bytes 0 to 6)"},
		{"other exchange", up + `{"type":"chunk","ex":2,"side":"client","t":2,"off":0,"ref":0,"len":3}`, "exchange 2 has no upstream chunk"},
		{"upstream ref", up + `{"type":"chunk","ex":1,"side":"upstream","t":2,"off":6,"ref":0,"len":3}`, "only a client chunk may be a \"ref\""},
		{"ref and data", up + `{"type":"chunk","ex":1,"side":"client","t":2,"off":0,"ref":0,"len":3,"data":"abc"}`, `both "ref" and "data" set`},
		{"ref without len", up + `{"type":"chunk","ex":1,"side":"client","t":2,"off":0,"ref":0}`, `"ref" and "len" go together`},
		{"negative len", up + `{"type":"chunk","ex":1,"side":"client","t":2,"off":0,"ref":0,"len":-1}`, "len -1: must not be negative"},
	}
	for _, tc := range tests {
		c, err := Read(strings.NewReader(head+tc.lines+"\n"), "x.ndjson")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Error(), tc.want) {
			t.Errorf("%s: warnings %v, want one containing %q", tc.name, c.Warnings, tc.want)
		}
	}
}

// TestHashMismatchIsReported alters a recorded byte and checks that the
// reader says which side no longer matches its end line, and keeps reading.
func TestHashMismatchIsReported(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	w.Header(testHeader())
	recordPassthrough(w, 1, []string{"data: one\n\n", "data: [DONE]\n\n"})
	w.Close()
	file := strings.Replace(buf.String(), `"data":"data: one\n\n"`, `"data":"data: 0ne\n\n"`, 1)
	c, err := Read(strings.NewReader(file), "x.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	// The client side refers to the altered upstream bytes: both differ.
	if len(c.Warnings) != 2 {
		t.Fatalf("warnings %v, want one per side", c.Warnings)
	}
	for i, s := range []Side{Upstream, Client} {
		want := fmt.Sprintf("exchange 1: the %s side's 25 bytes (its chunks joined in order) have SHA-256", s)
		if msg := c.Warnings[i].Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "lost or altered") {
			t.Errorf("warning %q, want one containing %q", msg, want)
		}
	}
	if x := c.Exchanges[0]; x.Upstream.End == nil || x.Client.End == nil {
		t.Error("end lines dropped with the mismatch")
	}
}

// slowWriter blocks every Write until released, as a disk slower than the
// wire does.
type slowWriter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (s *slowWriter) Write(p []byte) (int, error) {
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// TestFullQueueDropsDataNotTheStream fills the queue while the disk is
// stuck: recording an exchange must never wait, the exchange stops being
// recorded, says so in a note and in its end lines, and OnDrop fires once.
func TestFullQueueDropsDataNotTheStream(t *testing.T) {
	t.Parallel()
	sw := &slowWriter{release: make(chan struct{})}
	var drops []int
	var mu sync.Mutex
	w := NewWriter(sw, WriterOptions{MaxQueued: 4 << 10, OnDrop: func(ex int) {
		mu.Lock()
		drops = append(drops, ex)
		mu.Unlock()
	}})
	w.Header(testHeader())
	chunk := bytes.Repeat([]byte("x"), 1000)
	x := w.Exchange(1)
	x.Request(Request{T: 1, Method: "POST", URL: "/"})
	for i := range 20 { // 20 kB through a 4 KiB queue, never blocking
		x.Chunk(Upstream, int64(2+i), chunk)
		x.ClientChunk(int64(2+i), chunk, int64(i*1000))
	}
	x.End(Upstream, 30, Complete, "")
	x.End(Client, 31, Complete, "")
	close(sw.release)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(drops) != 1 || drops[0] != 1 {
		t.Errorf("OnDrop calls %v, want one for exchange 1", drops)
	}
	st := w.Stats()
	if st.Recorded != 1 || st.Incomplete != 1 || st.InFlight != 0 {
		t.Errorf("stats %+v, want 1 recorded, 1 incomplete", st)
	}
	c, err := Read(bytes.NewReader(sw.buf.Bytes()), "slow.ndjson")
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("read: %v %v", err, c.Warnings)
	}
	ex := c.Exchanges[0]
	if len(ex.Notes) != 1 || !strings.Contains(ex.Notes[0].Text, "not recorded from here on") {
		t.Errorf("notes %+v, want one saying recording stopped", ex.Notes)
	}
	for _, s := range []Side{Upstream, Client} {
		sd := ex.Side(s)
		got := int64(len(sd.Body()))
		if sd.End == nil || sd.End.Bytes != 20000 || sd.End.Unrecorded != 20000-got || sd.End.SHA256 != "" || got >= 20000 {
			t.Errorf("%s: %d bytes recorded, end %+v; want bytes 20000, unrecorded the rest, no hash", s, got, sd.End)
		}
	}
}

// TestBehindWriterShedsNewExchanges: while the disk is stuck and the queue
// more than three quarters full, an exchange whose data begins is not recorded at all,
// so the one already under way can still be recorded whole.
func TestBehindWriterShedsNewExchanges(t *testing.T) {
	t.Parallel()
	sw := &slowWriter{release: make(chan struct{})}
	var drops []int
	w := NewWriter(sw, WriterOptions{MaxQueued: 16 << 10, OnDrop: func(ex int) { drops = append(drops, ex) }})
	w.Header(testHeader())
	chunk := bytes.Repeat([]byte("x"), 1000)
	a, b := w.Exchange(1), w.Exchange(2)
	a.Request(Request{T: 1, Method: "POST", URL: "/"})
	b.Request(Request{T: 1, Method: "POST", URL: "/"})
	send := func(x *ExchangeWriter, i int) {
		x.Chunk(Upstream, int64(2+i), chunk)
		x.ClientChunk(int64(2+i), chunk, int64(i*1000))
	}
	for i := range 11 { // a's 11 chunks of 1 kB (and their references): more than 3/4 of 16 KiB
		send(a, i)
	}
	for i := range 3 {
		send(b, i) // b begins now: shed
	}
	for i := 11; i < 13; i++ {
		send(a, i) // a goes on within the bound
	}
	for _, x := range []*ExchangeWriter{a, b} {
		x.End(Upstream, 30, Complete, "")
		x.End(Client, 31, Complete, "")
	}
	close(sw.release)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(drops) != 1 || drops[0] != 2 {
		t.Errorf("OnDrop calls %v, want one for exchange 2", drops)
	}
	if st := w.Stats(); st.Recorded != 2 || st.Incomplete != 1 || st.Skipped != 1 {
		t.Errorf("stats %+v, want 2 recorded, 1 incomplete and skipped", st)
	}
	c, err := Read(bytes.NewReader(sw.buf.Bytes()), "behind.ndjson")
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("read: %v %v", err, c.Warnings)
	}
	for _, s := range []Side{Upstream, Client} {
		if sd := c.Exchanges[0].Side(s); len(sd.Body()) != 13000 || sd.End.SHA256 == "" || sd.End.Unrecorded != 0 {
			t.Errorf("exchange 1 %s: %d bytes, end %+v; want all 13000, hashed", s, len(sd.Body()), sd.End)
		}
		if sd := c.Exchanges[1].Side(s); len(sd.Body()) != 0 || sd.End.Unrecorded != 3000 || sd.End.Bytes != 3000 {
			t.Errorf("exchange 2 %s: %d bytes, end %+v; want none, 3000 unrecorded", s, len(sd.Body()), sd.End)
		}
	}
	if n := c.Exchanges[1].Notes; len(n) != 1 || !strings.Contains(n[0].Text, "it began while the capture writer had") {
		t.Errorf("exchange 2 notes %+v, want one saying it was not recorded and why", n)
	}
}

// enospcWriter takes n writes, then fails as a full disk does.
type enospcWriter struct {
	gate   chan struct{} // the first write waits for it, when set
	n      int
	writes int
	buf    bytes.Buffer
}

func (w *enospcWriter) Write(p []byte) (int, error) {
	if w.gate != nil && w.writes == 0 {
		<-w.gate
	}
	w.writes++
	if w.writes > w.n {
		return 0, syscall.ENOSPC
	}
	return w.buf.Write(p)
}

// TestWriteErrorReportedAtOnce checks that the first write error reaches
// OnError as soon as it happens, with the exchanges it cuts, and that only
// exchanges whose end was written count as recorded.
func TestWriteErrorReportedAtOnce(t *testing.T) {
	t.Parallel()
	fw := &enospcWriter{n: 2}
	reported := make(chan string, 2)
	w := NewWriter(fw, WriterOptions{OnError: func(err error, inFlight int) {
		reported <- fmt.Sprintf("%v; %d in flight", err, inFlight)
	}})
	fw.gate = make(chan struct{})
	w.Header(testHeader()) // its write waits for the gate
	for {
		w.mu.Lock()
		taken := len(w.slabs) == 0
		w.mu.Unlock()
		if taken {
			break
		}
		time.Sleep(time.Millisecond)
	}
	recordPassthrough(w, 1, []string{"data: [DONE]\n\n"}) // queued whole, written in one go
	close(fw.gate)
	waitWritten(t, w, fw, 2)
	x := w.Exchange(2)
	x.Request(Request{T: 1, Method: "POST", URL: "/"})
	x.Response(Response{Side: Client, T: 2, Status: 200})
	select {
	case msg := <-reported:
		if !strings.Contains(msg, "no space left on device; 1 in flight") {
			t.Errorf("reported %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write error was not reported before Close")
	}
	recordPassthrough(w, 3, []string{"data: [DONE]\n\n"})
	err := w.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close: %v, want ENOSPC", err)
	}
	if st := w.Stats(); st.Recorded != 1 || st.InFlight != 2 {
		t.Errorf("stats %+v, want 1 recorded and 2 cut", st)
	}
	if len(reported) != 0 {
		t.Error("OnError called twice")
	}
}

// waitWritten waits until the writer is idle and fw has taken n writes.
func waitWritten(t *testing.T, w *Writer, fw *enospcWriter, n int) {
	t.Helper()
	waitIdle(w)
	w.mu.Lock()
	writes := fw.writes
	w.mu.Unlock()
	if writes < n {
		t.Fatalf("writer took %d writes, want %d", writes, n)
	}
}

// TestCompressedRoundTrip writes a compressed capture and reads it back with
// every reader entry point.
func TestCompressedRoundTrip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{Compress: true})
	w.Header(testHeader())
	for ex := 1; ex <= 50; ex++ {
		recordPassthrough(w, ex, []string{fmt.Sprintf("data: {\"n\":%d}\n\n", ex), "data: [DONE]\n\n"})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !IsCompressed(buf.Bytes()) {
		t.Fatalf("not a zstd stream: % x", buf.Bytes()[:8])
	}
	c, err := Read(bytes.NewReader(buf.Bytes()), "c.ndjson.zst")
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("read: %v %v", err, c.Warnings)
	}
	if len(c.Exchanges) != 50 || string(c.Exchanges[49].Client.Body()) != "data: {\"n\":50}\n\ndata: [DONE]\n\n" {
		t.Fatalf("%d exchanges", len(c.Exchanges))
	}
	r, err := Uncompress(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(r)
	if err != nil || !bytes.HasPrefix(plain, []byte(`{"type":"capture","v":3,`)) {
		t.Fatalf("Uncompress: %v %.40q", err, plain)
	}
}

// TestCompressedCutShort records exchanges into a compressed capture, cuts
// the file at every length, as kill -9 can, and checks that every exchange
// flushed before the cut reads whole (its end line's hash verified), with
// at most a warning and no error.
func TestCompressedCutShort(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := NewWriter(&out, WriterOptions{Compress: true})
	w.Header(testHeader())
	var flushed []int // file length once exchange i+1 was flushed
	for ex := 1; ex <= 5; ex++ {
		recordPassthrough(w, ex, []string{"data: {\"choices\":[]}\n\n", "data: [DONE]\n\n"})
		waitIdle(w)
		flushed = append(flushed, out.Len())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := out.Bytes()
	for cut := flushed[0]; cut < len(file); cut++ {
		complete := 0
		for _, n := range flushed {
			if n <= cut {
				complete++
			}
		}
		c, err := Read(bytes.NewReader(file[:cut]), "cut.ndjson.zst")
		if err != nil {
			t.Fatalf("cut at %d of %d: %v", cut, len(file), err)
		}
		whole := 0
		for _, x := range c.Exchanges {
			if x.Client.End != nil && x.Client.End.SHA256 != "" && string(x.Client.Body()) == "data: {\"choices\":[]}\n\ndata: [DONE]\n\n" {
				whole++
			}
		}
		for _, w := range c.Warnings {
			if !errors.Is(w, ErrCutShort) && !strings.Contains(w.Error(), "torn last line") {
				t.Fatalf("cut at %d: unexpected warning %v", cut, w)
			}
		}
		if whole < complete {
			t.Fatalf("cut at %d of %d: %d whole exchanges, want at least the %d flushed before the cut (warnings %v)", cut, len(file), whole, complete, c.Warnings)
		}
	}
}

// waitIdle waits until the writer goroutine has written (and flushed)
// everything queued.
func waitIdle(w *Writer) {
	for range 5000 {
		w.mu.Lock()
		idle := len(w.slabs) == 0 && w.queued == 0
		w.mu.Unlock()
		if idle {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestClientHashWhenSidesPart checks the client side's SHA-256 against the
// bytes written when the client stops mirroring the upstream in each way a
// recording can: it got everything, it went away before a chunk, it got
// part of one, a chunk was changed, it got more than the upstream sent.
func TestClientHashWhenSidesPart(t *testing.T) {
	t.Parallel()
	type op struct {
		up     string // an upstream chunk, or
		client string // a client chunk
		ref    int64  // its upstream offset, or -1
	}
	tests := []struct {
		name string
		ops  []op
	}{
		{"passthrough", []op{{up: "ab"}, {client: "ab", ref: 0}, {up: "cde"}, {client: "cde", ref: 2}}},
		{"gone before a chunk", []op{{up: "ab"}, {client: "ab", ref: 0}, {up: "cde"}}},
		{"part of a chunk", []op{{up: "ab"}, {client: "ab", ref: 0}, {up: "cde"}, {client: "c", ref: 2}}},
		{"changed chunk", []op{{up: "ab"}, {client: "ab", ref: 0}, {up: "cde"}, {client: "xy", ref: -1}, {up: "f"}, {client: "f", ref: 5}}},
		{"changed first", []op{{up: "ab"}, {client: "AB", ref: -1}, {up: "cd"}, {client: "cd", ref: 2}}},
		{"split chunk", []op{{up: "abcd"}, {client: "ab", ref: 0}, {client: "cd", ref: 2}}},
		{"more than upstream", []op{{up: "ab"}, {client: "ab", ref: 0}, {client: "!", ref: -1}}},
		{"nothing", nil},
		{"client only", []op{{client: "hello", ref: -1}}},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		w := NewWriter(&buf, WriterOptions{})
		w.Header(testHeader())
		x := w.Exchange(1)
		var up, cl string
		for i, o := range tc.ops {
			if o.up != "" {
				x.Chunk(Upstream, int64(i), []byte(o.up))
				up += o.up
			} else {
				x.ClientChunk(int64(i), []byte(o.client), o.ref)
				cl += o.client
			}
		}
		x.End(Upstream, 100, Complete, "")
		x.End(Client, 101, Complete, "")
		w.Close()
		c, err := Read(bytes.NewReader(buf.Bytes()), "x.ndjson")
		if err != nil || len(c.Warnings) > 0 {
			t.Fatalf("%s: %v %v", tc.name, err, c.Warnings)
		}
		ex := c.Exchanges[0]
		if ex.Upstream.End.SHA256 != sha(up) || ex.Client.End.SHA256 != sha(cl) {
			t.Errorf("%s: hashes %.8s %.8s, want %.8s (upstream %q) %.8s (client %q)", tc.name,
				ex.Upstream.End.SHA256, ex.Client.End.SHA256, sha(up), up, sha(cl), cl)
		}
	}
}

// TestSeparateSides hashes the two sides of a WebSocket-like exchange on
// their own, written from two goroutines.
func TestSeparateSides(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{})
	w.Header(testHeader())
	x := w.Exchange(1)
	x.Separate()
	var wg sync.WaitGroup
	for _, s := range []Side{Upstream, Client} {
		wg.Go(func() {
			for i := range 50 {
				x.Chunk(s, int64(i), []byte(fmt.Sprintf("%s frame %d;", s, i)))
			}
		})
	}
	wg.Wait()
	x.End(Upstream, 100, Complete, "")
	x.End(Client, 101, Complete, "")
	w.Close()
	c, err := Read(bytes.NewReader(buf.Bytes()), "ws.ndjson")
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("read: %v %v", err, c.Warnings)
	}
	for _, s := range []Side{Upstream, Client} {
		sd := c.Exchanges[0].Side(s)
		if sd.End.SHA256 != sha(string(sd.Body())) || len(sd.Chunks) != 50 {
			t.Errorf("%s: %d chunks, hash %.8s of body %.8s", s, len(sd.Chunks), sd.End.SHA256, sha(string(sd.Body())))
		}
	}
}

// TestDecoderKeepsBoundedChunks: a capture holding many open exchanges with
// large upstream chunks does not make the reader keep them all for
// references; a reference to a chunk it let go is an error saying why, and
// what it keeps is given back as exchanges end.
func TestDecoderKeepsBoundedChunks(t *testing.T) {
	t.Parallel()
	head := `{"type":"capture","v":3,"seam":"t","engine":{"profile":"passthrough"}}` + "\n"
	big := strings.Repeat("x", 1<<20)
	var b strings.Builder
	b.WriteString(head)
	const open = 80 // 80 MiB of upstream chunks, all open
	for ex := 1; ex <= open; ex++ {
		fmt.Fprintf(&b, `{"type":"chunk","ex":%d,"side":"upstream","t":1,"off":0,"data":"%s"}`+"\n", ex, big)
	}
	fmt.Fprintf(&b, `{"type":"chunk","ex":%d,"side":"client","t":2,"off":0,"ref":0,"len":3}`+"\n", open)
	for ex := 1; ex <= open; ex++ {
		fmt.Fprintf(&b, `{"type":"end","ex":%d,"side":"upstream","t":3,"outcome":"complete","bytes":%d}`+"\n", ex, len(big))
		fmt.Fprintf(&b, `{"type":"end","ex":%d,"side":"client","t":3,"outcome":"complete","bytes":0}`+"\n", ex)
	}
	d := NewDecoder(strings.NewReader(b.String()), "big.ndjson")
	var refErr error
	for {
		_, err := d.Next()
		if err == io.EOF {
			break
		}
		var le *LineError
		if errors.As(err, &le) && le.Line == open+2 {
			refErr = err
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d.kept > maxKeptChunks {
			t.Fatalf("the reader keeps %d bytes of chunks, over its bound %d", d.kept, maxKeptChunks)
		}
	}
	if refErr == nil || !strings.Contains(refErr.Error(), "which the reader did not keep") {
		t.Errorf("reference to a chunk let go: %v, want an error saying the reader did not keep it", refErr)
	}
	if d.kept != 0 || len(d.open) != 0 {
		t.Errorf("after every exchange ended the reader keeps %d bytes for %d exchanges", d.kept, len(d.open))
	}
}
