package record_test

import (
	"bytes"
	"crypto/sha256"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// rig is an upstream, the recorder in front of it and the capture it writes.
type rig struct {
	t        *testing.T
	upstream *httptest.Server
	front    *httptest.Server
	writer   *tape.Writer
	buf      *bytes.Buffer
	rec      *record.Recorder

	mu        sync.Mutex
	sums      []record.Summary
	serverLog bytes.Buffer // what the front server logged, guarded by mu
}

// Write collects the front server's log (a handler panic shows up there).
func (r *rig) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.serverLog.Write(p)
}

// newRig starts upstream (nil means an unreachable upstream) and a recorder
// in front of it. modify, if set, adjusts the recorder's options.
func newRig(t *testing.T, upstream http.Handler, modify func(*record.Options)) *rig {
	t.Helper()
	r := &rig{t: t, buf: new(bytes.Buffer)}
	var upURL *url.URL
	if upstream != nil {
		r.upstream = httptest.NewServer(upstream)
		t.Cleanup(r.upstream.Close)
		upURL, _ = url.Parse(r.upstream.URL)
	} else {
		upURL = deadUpstream(t)
	}
	r.writer = tape.NewWriter(r.buf, tape.WriterOptions{})
	r.writer.Header(tape.Header{V: tape.Version, Seam: "test", ID: t.Name(), Upstream: upURL.String()})
	opts := record.Options{
		Upstream: upURL,
		Writer:   r.writer,
		OnDone: func(s record.Summary) {
			r.mu.Lock()
			r.sums = append(r.sums, s)
			r.mu.Unlock()
		},
	}
	if modify != nil {
		modify(&opts)
	}
	rec, err := record.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.rec = rec
	r.front = httptest.NewUnstartedServer(rec)
	r.front.Config.ErrorLog = log.New(r, "", 0)
	r.front.Start()
	t.Cleanup(r.front.Close)
	return r
}

// finish waits for every exchange to end and decodes the capture.
func (r *rig) finish() *tape.Capture {
	r.t.Helper()
	r.front.Close()
	r.rec.Wait()
	r.mu.Lock()
	if r.serverLog.Len() > 0 {
		r.t.Errorf("the front server logged:\n%s", r.serverLog.Bytes())
	}
	r.mu.Unlock()
	if err := r.writer.Close(); err != nil {
		r.t.Fatal(err)
	}
	c, err := tape.Read(bytes.NewReader(r.buf.Bytes()), r.t.Name())
	if err != nil {
		r.t.Fatalf("decode capture: %v\n%s", err, r.buf.Bytes())
	}
	if len(c.Warnings) > 0 {
		r.t.Fatalf("capture warnings: %v", c.Warnings)
	}
	return c
}

func sum(b []byte) [32]byte { return sha256.Sum256(b) }

func chunkLens(cs []tape.Chunk) []int {
	var n []int
	for _, c := range cs {
		n = append(n, len(c.Data))
	}
	return n
}

// checkOffsets asserts that each side's chunk offsets are contiguous and
// that the end line counts every byte.
func checkOffsets(t *testing.T, x *tape.Exchange) {
	t.Helper()
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(s)
		var off int64
		for i, c := range sd.Chunks {
			if c.Off != off {
				t.Errorf("exchange %d %s chunk %d: off %d, want %d", x.Ex, s, i, c.Off, off)
			}
			off += int64(len(c.Data))
		}
		if sd.End == nil {
			t.Errorf("exchange %d %s: no end line", x.Ex, s)
		} else if sd.End.Bytes != off {
			t.Errorf("exchange %d %s: end bytes %d, chunks hold %d", x.Ex, s, sd.End.Bytes, off)
		}
	}
}
