package tape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// keptAll records with a Keep and returns the capture and the exchanges
// it handed over, released.
func keptAll(t *testing.T, k Keep, header Header, record func(w *Writer)) ([]byte, []*Exchange) {
	t.Helper()
	var mu sync.Mutex
	var got []*Exchange
	k.Done = func(x *Exchange, release func()) {
		mu.Lock()
		got = append(got, x)
		mu.Unlock()
		release()
	}
	if k.Held == nil {
		k.Held = new(atomic.Int64)
	}
	var out bytes.Buffer
	w := NewWriter(&out, WriterOptions{Keep: &k})
	w.Header(header)
	record(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := k.Held.Load(); n != 0 {
		t.Errorf("%d bytes still held once every exchange was released", n)
	}
	return out.Bytes(), got
}

// readAll reads the capture back as an ExchangeReader does, the lines of
// anomalies left out (a kept exchange has no line numbers).
func readKept(t *testing.T, capture []byte) []*Exchange {
	t.Helper()
	r := NewExchangeReader(bytes.NewReader(capture), "keep.ndjson")
	r.Eager()
	var out []*Exchange
	for {
		x, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	if w := r.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	return out
}

func withoutLines(xs []*Exchange) []*Exchange {
	for _, x := range xs {
		for i := range x.Anomalies {
			x.Anomalies[i].Line = 0
		}
	}
	return xs
}

// TestKeepIsWhatAReaderReads: every exchange a Writer hands over with Keep
// is the exchange a reader reads from the capture, field for field (its
// headers, strings with invalid UTF-8, empty and binary bodies):
// mirrored and referring client chunks, notes, a request body that is not
// UTF-8, a note with invalid UTF-8 (written as U+FFFD), an exchange that
// lost data to a full queue, and one cut short by the Writer's end.
func TestKeepIsWhatAReaderReads(t *testing.T) {
	t.Parallel()
	chunks := []string{"data: {\"a\":1}\n\n", "data: {\"b\":\"x\\\"y\"}\n\n", "data: [DONE]\n\n"}
	capture, got := keptAll(t, Keep{}, testHeader(), func(w *Writer) {
		recordExchange(w, 1, chunks, true)
		recordExchange(w, 2, chunks, false)
		x := w.Exchange(3)
		x.Request(Request{T: 1, Method: "POST", URL: "/v1/x\xff", Headers: Headers{"a": {"b\xff"}, "e": {}, "n": nil}, Body: []byte{0xff, 0, 'a'}, BodyTruncated: true})
		x.Response(Response{Side: Upstream, T: 2, Status: 500})
		x.Chunk(Upstream, 3, []byte("oops \xfe"))
		x.Note(4, "a note \xff")
		x.End(Upstream, 5, UpstreamError, "reset \xff")
		x.Response(Response{Side: Client, T: 6, Status: 500})
		x.ClientChunk(7, []byte("oops \xfe"), 0)
		x.ClientChunk(8, []byte("more"), -1)
		x.End(Client, 9, UpstreamError, "reset")
		cut := w.Exchange(4)
		cut.Request(Request{T: 10, Method: "POST", Scheme: "https", Host: "h\xfe", URL: "/v1/y", Body: []byte{}, Paired: "fingerprint"})
		cut.Chunk(Upstream, 11, []byte("data: {}\n\n"))
	})
	want := withoutLines(readKept(t, capture))
	if len(want) != 4 {
		t.Fatalf("the reader read %d exchanges, want 4", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		for i := range max(len(got), len(want)) {
			if i >= len(got) || i >= len(want) || !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("exchange %d differs:\nkept %+v\nread %+v", i, at(got, i), at(want, i))
			}
		}
	}
}

func at(xs []*Exchange, i int) any {
	if i < len(xs) {
		return xs[i]
	}
	return nil
}

// TestKeepSandwich: a sandwich's exchange (its two legs written by two
// ExchangeWriters) is handed over once both legs ended, whichever ends
// last.
func TestKeepSandwich(t *testing.T) {
	t.Parallel()
	h := testHeader()
	h.Engine = Engine{Profile: "external"}
	capture, got := keptAll(t, Keep{Sandwich: true}, h, func(w *Writer) {
		front, back := w.Exchange(1), w.Exchange(1)
		front.Request(Request{T: 1, Method: "POST", URL: "/v1/x"})
		back.Request(Request{Side: Upstream, T: 2, Method: "POST", URL: "/v1/x"})
		back.Response(Response{Side: Upstream, T: 3, Status: 200})
		back.Chunk(Upstream, 4, []byte("data: {}\n\n"))
		front.Response(Response{Side: Client, T: 5, Status: 200})
		front.Chunk(Client, 6, []byte("data: {}\n\n"))
		front.End(Client, 7, Complete, "")
		back.End(Upstream, 8, Complete, "")
	})
	want := withoutLines(readKept(t, capture))
	if len(got) != 1 || !reflect.DeepEqual(got, want) {
		t.Errorf("kept %+v\nread %+v", got, want)
	}
}

// TestKeepBounded: an exchange whose chunks would take the bytes held past
// Max is not kept, and said once; the others are, and nothing stays held.
func TestKeepBounded(t *testing.T) {
	t.Parallel()
	var dropped []int
	big := string(bytes.Repeat([]byte("x"), 600))
	_, got := keptAll(t, Keep{Max: 2500, Drop: func(ex int) { dropped = append(dropped, ex) }}, testHeader(), func(w *Writer) {
		recordExchange(w, 2, []string{big, big, big}, false)
		recordExchange(w, 1, []string{big}, false)
		recordExchange(w, 3, []string{big}, true)
	})
	if len(got) != 2 || got[0].Ex != 1 || got[1].Ex != 3 || len(got[1].Client.Chunks) != 1 {
		t.Errorf("kept %d exchanges, want 1 and 3", len(got))
	}
	if !reflect.DeepEqual(dropped, []int{2}) {
		t.Errorf("dropped %v, want [2]", dropped)
	}
}

// BenchmarkKeepHeld measures what Keep's bound lets exchanges hold: a
// consumer that never releases them is handed exchanges of 200
// passthrough chunks of about 260 bytes (seam-bench's streams) until the
// bound drops one; it reports the heap they hold, and that per MiB of
// Max, so the bound's real cost is known.
func BenchmarkKeepHeld(b *testing.B) {
	chunks := make([]string, 200)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%0230d\"}}]}\n\n", i)
	}
	const max = 16 << 20
	for b.Loop() {
		var mu sync.Mutex
		var held []*Exchange
		var dropped atomic.Int64
		k := Keep{Max: max, Held: new(atomic.Int64), Drop: func(int) { dropped.Add(1) },
			Done: func(x *Exchange, _ func()) { mu.Lock(); held = append(held, x); mu.Unlock() }}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		w := NewWriter(io.Discard, WriterOptions{Keep: &k})
		for ex := 1; dropped.Load() == 0; ex++ {
			recordExchange(w, ex, chunks, true)
		}
		w.Close()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		heap := float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
		b.ReportMetric(heap/(1<<20), "MiB-held")
		b.ReportMetric(heap/max, "heap/Max")
		b.ReportMetric(float64(len(held)), "exchanges")
		runtime.KeepAlive(held)
	}
}

// TestKeepWhole: a sandwich's exchange whose upstream leg never came is
// handed over once Whole says no more lines will come, before the Writer
// closes, as a reader reads it at the end of the capture.
func TestKeepWhole(t *testing.T) {
	t.Parallel()
	h := testHeader()
	h.Engine = Engine{Profile: "external"}
	handed := make(chan *Exchange, 1)
	var out bytes.Buffer
	w := NewWriter(&out, WriterOptions{Keep: &Keep{Sandwich: true, Done: func(x *Exchange, release func()) { release(); handed <- x }}})
	w.Header(h)
	front := w.Exchange(1)
	front.Request(Request{T: 1, Method: "POST", URL: "/v1/x"})
	front.Response(Response{Side: Client, T: 5, Status: 200})
	front.Chunk(Client, 6, []byte("data: {}\n\n"))
	front.End(Client, 7, Complete, "")
	select {
	case x := <-handed:
		t.Fatalf("exchange %d handed over before Whole: a reader waits for its upstream leg", x.Ex)
	case <-time.After(50 * time.Millisecond):
	}
	front.Whole()
	var got *Exchange
	select {
	case got = <-handed:
	case <-time.After(5 * time.Second):
		t.Fatal("not handed over after Whole")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := withoutLines(readKept(t, out.Bytes()))
	if len(want) != 1 || !reflect.DeepEqual(got, want[0]) {
		t.Errorf("kept %+v\nread %+v", got, want)
	}
}

// BenchmarkKeepCost measures what keeping exchanges for export adds to
// recording them: exchanges of 200 passthrough chunks of about 260 bytes
// (seam-bench's streams) recorded to io.Discard without Keep and with a
// Keep whose consumer releases each at once.
func BenchmarkKeepCost(b *testing.B) {
	chunks := make([]string, 200)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%0230d\"}}]}\n\n", i)
	}
	for _, keep := range []bool{false, true} {
		b.Run(fmt.Sprintf("keep=%v", keep), func(b *testing.B) {
			var opts WriterOptions
			if keep {
				opts.Keep = &Keep{Done: func(_ *Exchange, release func()) { release() }}
			}
			w := NewWriter(io.Discard, opts)
			ex := 0
			for b.Loop() {
				ex++
				recordExchange(w, ex, chunks, true)
			}
			w.Close()
		})
	}
}
