package replay_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// parseFaults parses faults as written on the command line.
func parseFaults(t *testing.T, specs ...string) []replay.Fault {
	t.Helper()
	var fs []replay.Fault
	for _, s := range specs {
		f, err := replay.ParseFault(s)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// offline replays the anthropic fixture's exchange through its engine with
// faults.
func offline(t *testing.T, specs ...string) (*tape.Exchange, *replay.Result) {
	t.Helper()
	c, err := fixtures.Load("anthropic-tool-use.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	x := c.Exchanges[0]
	res, err := replay.Exchange(context.Background(), x, c.Header.Engine, replay.Options{Faults: parseFaults(t, specs...), Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return x, res
}

// TestStallOffline: stall=2s@event:5 splits the chunk where event 5
// begins and moves it and everything after it 2 s later; the bytes, the
// frames the engine makes of them and the earlier times are unchanged.
func TestStallOffline(t *testing.T) {
	x, res := offline(t, "stall=2s@event:5")
	up := res.Upstream
	if up == nil || !bytes.Equal(up.Body(), x.Upstream.Body()) || !bytes.Equal(res.Body(), x.Upstream.Body()) {
		t.Fatal("the stall changed the bytes")
	}
	at := int64(0)
	for i, part := range sse.SplitEvents(x.Upstream.Body()) {
		if i == 5 {
			break
		}
		at += int64(len(part))
	}
	stalled := -1
	for i, c := range up.Chunks {
		if c.Off == at {
			stalled = i
		}
	}
	if stalled < 1 {
		t.Fatalf("no chunk starts at event 5 (byte %d)", at)
	}
	// Every recorded chunk time, shifted by 2 s from the stall on.
	for i, c := range up.Chunks {
		k := 0
		for k+1 < len(x.Upstream.Chunks) && x.Upstream.Chunks[k+1].Off <= c.Off {
			k++
		}
		want := x.Upstream.Chunks[k].T
		if i >= stalled {
			want += int64(2 * time.Second)
		}
		if c.T != want {
			t.Errorf("chunk %d at %d: t=%d, want %d", i, c.Off, c.T, want)
		}
	}
	if up.End.T != x.Upstream.End.T+int64(2*time.Second) || up.End.Outcome != x.Upstream.End.Outcome {
		t.Errorf("end %+v", up.End)
	}
	rx := res.ToExchange(x)
	if rx.Upstream.Chunks[stalled].T-rx.Upstream.Chunks[stalled-1].T < int64(2*time.Second) {
		t.Error("the replayed capture does not carry the stall")
	}
}

// TestLatencyAndJitterOffline: latency shifts everything; jitter moves each
// gap by at most ±D, never below zero, the same for the same seed.
func TestLatencyAndJitterOffline(t *testing.T) {
	x, res := offline(t, "latency=300ms")
	d := int64(300 * time.Millisecond)
	if res.Upstream.Response.T != x.Upstream.Response.T+d {
		t.Errorf("response at %d, want %d", res.Upstream.Response.T, x.Upstream.Response.T+d)
	}
	for i, c := range res.Upstream.Chunks {
		if c.T != x.Upstream.Chunks[i].T+d {
			t.Errorf("chunk %d not 300ms later", i)
		}
	}
	_, a := offline(t, "jitter=20ms")
	_, b := offline(t, "jitter=20ms")
	j := int64(20 * time.Millisecond)
	moved := 0
	for i, c := range a.Upstream.Chunks {
		if c.T != b.Upstream.Chunks[i].T {
			t.Fatal("jitter with the same seed gave other times")
		}
		if i == 0 {
			continue
		}
		gap, rec := c.T-a.Upstream.Chunks[i-1].T, x.Upstream.Chunks[i].T-x.Upstream.Chunks[i-1].T
		if gap < 0 || gap > rec+j || gap < rec-j {
			t.Errorf("gap %d: %d, recorded %d", i, gap, rec)
		}
		if gap != rec {
			moved++
		}
	}
	if moved == 0 {
		t.Error("jitter moved nothing")
	}
}

// TestByteFaultsOffline: the faults serve applies change the upstream side
// an offline replay gives the engine the same way, seed for seed; a
// disconnect cuts the side and ends it with an upstream error; a status
// fault replaces the response.
func TestByteFaultsOffline(t *testing.T) {
	for _, spec := range []string{"drop-delta", "split-event", "truncate=300", "dup-delta=2"} {
		_, res := offline(t, spec)
		_, served, _ := serveWith(t, spec)
		if !bytes.Equal(res.Upstream.Body(), bytes.Join(served, nil)) {
			t.Errorf("%s: offline and served bytes differ", spec)
		}
		if !bytes.Equal(res.Body(), res.Upstream.Body()) {
			t.Errorf("%s: the passthrough engine did not get the faulted bytes", spec)
		}
		var off int64
		for _, c := range res.Upstream.Chunks {
			if c.Off != off {
				t.Errorf("%s: chunk offset %d, want %d", spec, c.Off, off)
			}
			off += int64(len(c.Data))
		}
		if res.Upstream.End.Bytes != off {
			t.Errorf("%s: end bytes %d, want %d", spec, res.Upstream.End.Bytes, off)
		}
	}
	x, res := offline(t, "disconnect=100ms")
	cut := x.Request.T + int64(100*time.Millisecond)
	if res.Upstream.End.Outcome != tape.UpstreamError || len(res.Upstream.Chunks) >= len(x.Upstream.Chunks) {
		t.Fatalf("disconnect: %d of %d chunks, end %+v", len(res.Upstream.Chunks), len(x.Upstream.Chunks), res.Upstream.End)
	}
	for _, c := range res.Upstream.Chunks {
		if c.T > cut {
			t.Errorf("a chunk at %d after the cut at %d", c.T, cut)
		}
	}
	_, res = offline(t, "status=503")
	if res.Upstream.Response.Status != 503 || !bytes.Contains(res.Upstream.Body(), []byte("injected fault status=503")) {
		t.Errorf("status: %d %q", res.Upstream.Response.Status, res.Upstream.Body())
	}
}

// TestLatencyServed: served at speed 0, latency=300ms still waits 300 ms
// before the response line, and stall=400ms@event:3 sends event 3 400 ms
// later than it would come (700 ms after the request). Times are taken
// where the handler writes, and only lower bounds are checked.
func TestLatencyServed(t *testing.T) {
	c, _ := fixtures.Load("anthropic-tool-use.ndjson")
	x := c.Exchanges[0]
	srv := replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{Speed: 0, Faults: parseFaults(t, "latency=300ms", "stall=400ms@event:3")})
	w := &timedWrites{ResponseRecorder: httptest.NewRecorder()}
	start := time.Now()
	srv.ServeHTTP(w, httptest.NewRequest("POST", x.Request.URL, bytes.NewReader(x.Request.Body)))
	if w.header.Sub(start) < 300*time.Millisecond {
		t.Errorf("response line after %s, want 300ms or more", w.header.Sub(start))
	}
	if !bytes.Equal(w.Body.Bytes(), x.Upstream.Body()) {
		t.Fatal("the bytes changed")
	}
	events := sse.SplitEvents(x.Upstream.Body())
	at := len(bytes.Join(events[:3], nil))
	off, stalled := 0, false
	for i, p := range w.writes {
		if off == at {
			stalled = true
			// Due 300ms (latency) + 400ms (stall) after the request.
			if after := w.times[i].Sub(start); after < 700*time.Millisecond {
				t.Errorf("event 3 written %s after the request, want 700ms or more", after)
			}
		}
		off += len(p)
	}
	if !stalled {
		t.Error("no write begins at event 3")
	}
}

// timedWrites keeps each write and when it was made, and when the
// response line was written.
type timedWrites struct {
	*httptest.ResponseRecorder
	header time.Time
	writes [][]byte
	times  []time.Time
}

func (w *timedWrites) WriteHeader(code int) {
	w.header = time.Now()
	w.ResponseRecorder.WriteHeader(code)
}

func (w *timedWrites) Write(p []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(p))
	w.times = append(w.times, time.Now())
	return w.ResponseRecorder.Write(p)
}
