package tui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// synthCapture builds a capture of n chat exchanges with chunks chunks per
// side. With interleave, the lines of consecutive exchanges alternate, as
// concurrent streams do in a real recording.
func synthCapture(n, chunks int, interleave bool) []byte {
	out := tape.AppendHeader(nil, tape.Header{V: tape.Version, Seam: "synthetic", ID: "synth", Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), Upstream: "https://api.openai.com", Engine: tape.Engine{Profile: "passthrough"}})
	h := tape.Headers{"content-type": {"text/event-stream"}}
	lines := make([][][]byte, n)
	for i := range n {
		ex := i + 1
		t0 := int64(i) * 1e6
		var ls [][]byte
		ls = append(ls, tape.AppendRequest(nil, tape.Request{Ex: ex, T: t0, Method: "POST", URL: "/v1/chat/completions", Headers: tape.Headers{}, Body: []byte(fmt.Sprintf(`{"model":"gpt-synth-%d","stream":true,"messages":[{"role":"user","content":"hi"}]}`, i%3))}))
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			ls = append(ls, tape.AppendResponse(nil, tape.Response{Ex: ex, Side: s, T: t0 + 1e6, Status: 200, Headers: h}))
		}
		var off int64
		for k := range chunks {
			data := []byte(fmt.Sprintf("data: {\"id\":\"c%d\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-synth\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %d of exchange %d é\"},\"finish_reason\":null}]}\n\n", ex, k, ex))
			if k == chunks-1 {
				data = []byte("data: [DONE]\n\n")
			}
			for _, s := range []tape.Side{tape.Upstream, tape.Client} {
				ls = append(ls, tape.AppendChunk(nil, tape.Chunk{Ex: ex, Side: s, T: t0 + 2e6 + int64(k)*1e5, Off: off, Data: data}))
			}
			off += int64(len(data))
		}
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			ls = append(ls, tape.AppendEnd(nil, tape.End{Ex: ex, Side: s, T: t0 + 3e6 + int64(chunks)*1e5, Outcome: tape.Complete, Bytes: off}))
		}
		lines[i] = ls
	}
	if !interleave {
		for _, ls := range lines {
			for _, l := range ls {
				out = append(out, l...)
			}
		}
		return out
	}
	for more := true; more; {
		more = false
		for i := range lines {
			if len(lines[i]) > 0 {
				out = append(out, lines[i][0]...)
				lines[i] = lines[i][1:]
				more = true
			}
		}
	}
	return out
}

// TestIndexMatchesDecoder checks that the byte-scan index finds every line
// of every exchange: decoding an exchange from its indexed lines gives what
// decoding the whole file gives, for interleaved exchanges, lines in a
// foreign field order and a torn last line, indexed in small steps.
func TestIndexMatchesDecoder(t *testing.T) {
	t.Parallel()
	data := synthCapture(7, 12, true)
	// A note with the fields in another order (the gjson fallback), and a
	// torn last line.
	data = append(data, []byte(`{"ex":3,"text":"checked by hand","type":"note","t":5}`+"\n")...)
	data = append(data, []byte(`{"type":"chunk","ex":2,"side":"client","t":9,"off":`)...)
	whole, err := tape.Read(bytes.NewReader(data), "synth")
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []int64{64, 1000, scanStep} {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			t.Parallel()
			ix := newIndexer("synth", 0)
			r := bytes.NewReader(data)
			var sums map[int]exSummary = map[int]exSummary{}
			for {
				changed, more, err := ix.scan(r, int64(len(data)), step)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range changed {
					sums[s.ex] = s
				}
				if !more {
					break
				}
			}
			if len(sums) != len(whole.Exchanges) {
				t.Fatalf("indexed %d exchanges, want %d", len(sums), len(whole.Exchanges))
			}
			for _, want := range whole.Exchanges {
				s := sums[want.Ex]
				c, err := loadExchange(r, "synth", ix.hdr, s.lines)
				if err != nil {
					t.Fatal(err)
				}
				got := c.Exchanges[0]
				if !reflect.DeepEqual(got, want) {
					t.Errorf("exchange %d decoded from the index differs from the whole-file decode", want.Ex)
				}
				if s.method != "POST" || s.status != 200 || s.outcome != tape.Complete || s.model == "" || s.ttfb() != 2e6 {
					t.Errorf("summary of exchange %d = %+v", want.Ex, s)
				}
			}
		})
	}
}

// TestFollowGrowingFile appends lines to a capture while it is open with
// Follow and checks that new exchanges appear and the open one reloads.
func TestFollowGrowingFile(t *testing.T) {
	t.Parallel()
	data := synthCapture(2, 6, false)
	// Cut inside exchange 2, in the middle of a line.
	cut := bytes.Index(data, []byte(`"ex":2,"side":"client","t":2`)) + 10
	path := filepath.Join(t.TempDir(), "live.ndjson")
	writeCapture(t, path, data[:cut])
	m := openModel(t, 100, 30, Options{Paths: []string{path}, Follow: true})
	if len(m.sums) != 2 {
		t.Fatalf("%d exchanges before growth, want 2", len(m.sums))
	}
	if s := m.sums[1]; s.outcome != "" || s.endT >= 0 {
		t.Fatalf("exchange 2 already ended: %+v", s)
	}
	press(t, m, "down", "enter")
	if m.det == nil || m.det.rec == nil {
		t.Fatal("exchange 2 did not open")
	}
	before := len(m.det.rec.x.Client.Chunks)

	// The recorder writes the rest.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data[cut:]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, cmd := m.Update(tickMsg{})
	drive(t, m, cmd)
	if s := m.sums[1]; s.outcome != tape.Complete {
		t.Fatalf("exchange 2 did not complete: %+v", s)
	}
	if after := len(m.det.rec.x.Client.Chunks); after <= before {
		t.Errorf("the open exchange did not reload: %d chunks before, %d after", before, after)
	}
	if !bytes.Contains([]byte(screen(m)), []byte("live.ndjson#2")) {
		t.Errorf("detail screen lost:\n%s", screen(m))
	}
}

// TestStreamSource reads a capture from a reader (a pipe from the recorder)
// and shows its exchanges, whether the reader hands it over at once or in
// small reads (each into the same buffer).
func TestStreamSource(t *testing.T) {
	t.Parallel()
	data := synthCapture(3, 4, true)
	for _, tc := range []struct {
		name string
		r    io.Reader
	}{
		{"whole", bytes.NewReader(data)},
		{"small reads", &smallReader{r: bytes.NewReader(data), n: 97}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			streamSource(t, tc.r, data)
		})
	}
}

// smallReader returns at most n bytes per Read.
type smallReader struct {
	r io.Reader
	n int
}

func (s *smallReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), s.n)]) }

func streamSource(t *testing.T, r io.Reader, data []byte) {
	m := openModel(t, 100, 30, Options{Stream: r, StreamName: "pipe"})
	if !bytes.Equal(m.caps[0].mem, data) {
		t.Fatalf("the stream was kept as %d bytes, not the %d read", len(m.caps[0].mem), len(data))
	}
	if len(m.sums) != 3 || len(m.list.rows) != 3 {
		t.Fatalf("%d exchanges, want 3", len(m.sums))
	}
	for _, s := range m.sums {
		if s.outcome != tape.Complete {
			t.Errorf("exchange %d outcome %q", s.ex, s.outcome)
		}
	}
	press(t, m, "enter")
	if m.det == nil || m.det.rec == nil || len(m.det.rec.x.Client.Chunks) != 4 {
		t.Fatalf("exchange did not load from the stream")
	}
}

// TestIndexShowsHost: an exchange of a forward-proxy recording is listed
// with its host, so one capture of many hosts tells them apart.
func TestIndexShowsHost(t *testing.T) {
	t.Parallel()
	data := tape.AppendHeader(nil, tape.Header{V: tape.Version, Seam: "t", ID: "fwd", Engine: tape.Engine{Profile: "passthrough"}})
	data = tape.AppendRequest(data, tape.Request{Ex: 1, Method: "POST", Scheme: "https", Host: "api.anthropic.com", URL: "/v1/messages", Headers: tape.Headers{}})
	data = tape.AppendRequest(data, tape.Request{Ex: 2, Method: "POST", Scheme: "https", Host: "api.openai.com", URL: "/v1/chat/completions", Headers: tape.Headers{}})
	ix := newIndexer("fwd", 0)
	changed, _, err := ix.scan(bytes.NewReader(data), int64(len(data)), scanStep)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, s := range changed {
		got[s.ex] = s.url
	}
	if got[1] != "api.anthropic.com/v1/messages" || got[2] != "api.openai.com/v1/chat/completions" {
		t.Errorf("listed urls %v", got)
	}
}

// TestIndexMirroredTTFB: in a passthrough recording the client's chunks
// are the upstream's lines marked "client" (one line for both sides):
// the list's ttfb is when the client got the first of them (it stayed at
// "-" in record --tui and tui --follow while inspect gave it).
func TestIndexMirroredTTFB(t *testing.T) {
	out := tape.AppendHeader(nil, tape.Header{V: tape.Version, Seam: "t", ID: "m", Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), Upstream: "https://api.openai.com", Engine: tape.Engine{Profile: "passthrough"}})
	out = tape.AppendRequest(out, tape.Request{Ex: 1, T: 1e6, Method: "POST", URL: "/v1/chat/completions", Headers: tape.Headers{}})
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		out = tape.AppendResponse(out, tape.Response{Ex: 1, Side: s, T: 2e6, Status: 200, Headers: tape.Headers{}})
	}
	data := []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n")
	out = tape.AppendChunk(out, tape.Chunk{Ex: 1, Side: tape.Upstream, T: 4e6, Data: data, Mirrored: true, MirrorT: 5e6})
	ix := newIndexer("m.ndjson", 0)
	if _, _, err := ix.scan(bytes.NewReader(out), int64(len(out)), int64(len(out))+1); err != nil {
		t.Fatal(err)
	}
	if len(ix.order) != 1 {
		t.Fatalf("%d exchanges indexed", len(ix.order))
	}
	if got := ix.order[0].ttfb(); got != 4e6 {
		t.Errorf("ttfb %d, want 4ms (the client got the first chunk at 5ms, the request was at 1ms)", got)
	}
}
