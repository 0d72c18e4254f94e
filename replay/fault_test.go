package replay_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

func TestParseFault(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "split-rune", want: "split-rune"},
		{in: "coalesce", want: "coalesce=2"},
		{in: "drop-delta=3", want: "drop-delta=3"},
		{in: "truncate=2048", want: "truncate=2048"},
		{in: "disconnect=1.5s", want: "disconnect=1.5s"},
		{in: "status=429:2", want: "status=429:2"},
		{in: "truncate", err: "want truncate=BYTES"},
		{in: "status=200", err: "CODE from 400 to 599"},
		{in: "split-rune=2", err: "without a value"},
		{in: "explode", err: `unknown fault "explode"`},
		{in: "latency=300ms", want: "latency=300ms"},
		{in: "stall=2s@event:40", want: "stall=2s@event:40"},
		{in: "stall=1.5s@chunk:3", want: "stall=1.5s@chunk:3"},
		{in: "stall=2s", want: "stall=2s"},
		{in: "jitter=±20ms", want: "jitter=20ms"},
		{in: "jitter=+-5ms", want: "jitter=5ms"},
		{in: "latency", err: "latency=DURATION"},
		{in: "stall=2s@line:3", err: "@event:N, @chunk:N or @byte:N"},
		{in: "jitter=-1s", err: "jitter=DURATION"},
	} {
		f, err := replay.ParseFault(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || f.String() != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.in, f, err, tc.want)
		}
	}
}

// serveWith plays the anthropic fixture with faults and returns the reads
// the client saw.
func serveWith(t *testing.T, faults ...string) (*http.Response, [][]byte, error) {
	t.Helper()
	c, err := fixtures.Load("anthropic-tool-use.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{Faults: parseFaults(t, faults...), Seed: 7}))
	t.Cleanup(srv.Close)
	x := c.Exchanges[0]
	resp, err := http.Post(srv.URL+x.Request.URL, "application/json", bytes.NewReader(x.Request.Body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reads [][]byte
	buf := make([]byte, 64<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			reads = append(reads, bytes.Clone(buf[:n]))
		}
		if err == io.EOF {
			return resp, reads, nil
		}
		if err != nil {
			return resp, reads, err
		}
	}
}

func events(body []byte) []string {
	var out []string
	var p sse.Parser
	emit := func(e sse.Event) { out = append(out, e.Data) }
	p.Feed(body, emit)
	p.Close(emit)
	return out
}

func TestFaults(t *testing.T) {
	c, _ := fixtures.Load("anthropic-tool-use.ndjson")
	orig := c.Exchanges[0].Upstream.Body()
	origEvents := events(orig)

	t.Run("split-rune and split-event", func(t *testing.T) {
		// Writes are observed at the handler, where the transport cannot
		// coalesce them.
		inc, err := fixtures.Load(fixtures.Incident)
		if err != nil {
			t.Fatal(err)
		}
		x := inc.Exchanges[0]
		for _, fault := range []string{"split-rune", "split-event"} {
			f, _ := replay.ParseFault(fault)
			srv := replay.NewServer([]*tape.Capture{inc}, replay.ServerOptions{Faults: []replay.Fault{f}, Seed: 3})
			w := &writesRecorder{ResponseRecorder: httptest.NewRecorder()}
			srv.ServeHTTP(w, httptest.NewRequest("POST", x.Request.URL, bytes.NewReader(x.Request.Body)))
			if !bytes.Equal(bytes.Join(w.writes, nil), x.Upstream.Body()) {
				t.Fatalf("%s changed the bytes", fault)
			}
			if len(w.writes) <= len(x.Upstream.Chunks) {
				t.Errorf("%s: %d writes for %d recorded chunks", fault, len(w.writes), len(x.Upstream.Chunks))
			}
			midRune := 0
			for _, p := range w.writes {
				if !utf8.Valid(p) {
					midRune++
				}
			}
			// The stream's "I’ll" and "—" hold multi-byte runes.
			if fault == "split-rune" && midRune == 0 {
				t.Error("split-rune: no write ends inside a rune")
			}
		}
	})
	t.Run("drop-delta", func(t *testing.T) {
		_, reads, _ := serveWith(t, "drop-delta=3")
		got := events(bytes.Join(reads, nil))
		want := append(append([]string(nil), origEvents[:3]...), origEvents[4:]...)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("events after drop-delta=3:\n%q\nwant\n%q", got, want)
		}
	})
	t.Run("dup-delta and reorder", func(t *testing.T) {
		_, reads, _ := serveWith(t, "dup-delta=2")
		if got := events(bytes.Join(reads, nil)); len(got) != len(origEvents)+1 || got[2] != got[3] {
			t.Errorf("dup-delta=2 gave %d events", len(got))
		}
		_, reads, _ = serveWith(t, "reorder=5")
		if got := events(bytes.Join(reads, nil)); got[5] != origEvents[6] || got[6] != origEvents[5] {
			t.Error("reorder=5 did not swap events 5 and 6")
		}
	})
	t.Run("drop-terminal", func(t *testing.T) {
		_, reads, _ := serveWith(t, "drop-terminal")
		if bytes.Contains(bytes.Join(reads, nil), []byte("message_stop")) {
			t.Error("message_stop still sent")
		}
	})
	t.Run("truncate", func(t *testing.T) {
		_, reads, err := serveWith(t, "truncate=100")
		if err != nil || !bytes.Equal(bytes.Join(reads, nil), orig[:100]) {
			t.Errorf("truncate=100: %d bytes, %v", len(bytes.Join(reads, nil)), err)
		}
	})
	t.Run("status", func(t *testing.T) {
		resp, reads, _ := serveWith(t, "status=429:3")
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || !bytes.Contains(bytes.Join(reads, nil), []byte("injected fault status=429:3")) {
			t.Errorf("status fault: %d %q", resp.StatusCode, bytes.Join(reads, nil))
		}
	})
	t.Run("disconnect", func(t *testing.T) {
		c, _ := fixtures.Load("anthropic-tool-use.ndjson")
		f, _ := replay.ParseFault("disconnect=50ms")
		srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{Speed: 1, Faults: []replay.Fault{f}}))
		defer srv.Close()
		x := c.Exchanges[0]
		start := time.Now()
		resp, err := http.Post(srv.URL+x.Request.URL, "application/json", bytes.NewReader(x.Request.Body))
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if err == nil {
			t.Fatal("the connection was not dropped")
		}
		if time.Since(start) > 5*time.Second {
			t.Error("disconnect came too late")
		}
	})
	t.Run("seeded", func(t *testing.T) {
		_, a, _ := serveWith(t, "drop-delta", "split-event")
		_, b, _ := serveWith(t, "drop-delta", "split-event")
		if !bytes.Equal(bytes.Join(a, nil), bytes.Join(b, nil)) {
			t.Error("the same seed gave different bytes")
		}
	})
}

// writesRecorder keeps each Write the handler makes.
type writesRecorder struct {
	*httptest.ResponseRecorder
	writes [][]byte
}

func (w *writesRecorder) Write(p []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(p))
	return w.ResponseRecorder.Write(p)
}

// TestFaultOffsets: the faults that rewrite events (drop-delta, dup-delta,
// reorder, drop-terminal) and stall@event leave the chunks' offsets where
// each now starts in the body, from the body's first byte, when an event
// spans several chunks.
func TestFaultOffsets(t *testing.T) {
	chunks := []tape.Chunk{
		{Ex: 1, Side: tape.Upstream, T: 1, Off: 0, Data: []byte("data: {\"a\":")},
		{Ex: 1, Side: tape.Upstream, T: 2, Off: 11, Data: []byte("1}\n\n")},
		{Ex: 1, Side: tape.Upstream, T: 3, Off: 15, Data: []byte("data: {\"b\":2}\n\ndata: [DO")},
		{Ex: 1, Side: tape.Upstream, T: 4, Off: 39, Data: []byte("NE]\n\n")},
	}
	x := &tape.Exchange{Ex: 1,
		Request:  &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions"},
		Upstream: tape.SideData{Response: &tape.Response{Ex: 1, Side: tape.Upstream, Status: 200}, Chunks: chunks},
	}
	for _, spec := range []string{"drop-delta=1", "dup-delta=0", "reorder=0", "drop-terminal", "stall=1ms@event:1"} {
		res, err := replay.Exchange(context.Background(), x, tape.Engine{Profile: "passthrough"}, replay.Options{Faults: parseFaults(t, spec)})
		if err != nil {
			t.Fatal(err)
		}
		off := int64(0)
		for i, c := range res.Upstream.Chunks {
			if c.Off != off {
				t.Errorf("%s: chunk %d at offset %d, want %d (%q)", spec, i, c.Off, off, c.Data)
			}
			off += int64(len(c.Data))
		}
	}
}

// TestFaultsFlag: repeated --fault flags add up in order and read back as
// they were given; a bad one is refused with ParseFault's error.
func TestFaultsFlag(t *testing.T) {
	var fs replay.Faults
	for _, v := range []string{"split-rune", "status=429:2", "stall=2s@event:40"} {
		if err := fs.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if got := fs.String(); got != "split-rune,status=429:2,stall=2s@event:40" {
		t.Errorf("String %q", got)
	}
	if err := fs.Set("nope"); err == nil || len(fs) != 3 {
		t.Errorf("Set(nope): %v, %d faults", err, len(fs))
	}
}
