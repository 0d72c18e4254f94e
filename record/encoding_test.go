package record_test

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// compressingUpstream serves events compressed with the first coding the
// request accepts among gzip, br and zstd (identity otherwise), flushing a
// compressed block after each event as a streaming server does. It keeps
// the Accept-Encoding each request came with. cut > 0 drops that many
// bytes of the compressed body's end.
type compressingUpstream struct {
	events [][]byte
	cut    int

	mu       sync.Mutex
	accepted []string
}

func (u *compressingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ae := r.Header.Get("Accept-Encoding")
	u.mu.Lock()
	u.accepted = append(u.accepted, ae)
	u.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	var buf bytes.Buffer
	var cw interface {
		io.WriteCloser
		Flush() error
	}
	switch {
	case strings.Contains(ae, "gzip"):
		cw = gzip.NewWriter(&buf)
	case strings.Contains(ae, "br"):
		cw = brotli.NewWriter(&buf)
	case strings.Contains(ae, "zstd"):
		cw, _ = zstd.NewWriter(&buf)
	}
	if cw == nil {
		for _, e := range u.events {
			w.Write(e)
			w.(http.Flusher).Flush()
		}
		return
	}
	w.Header().Set("Content-Encoding", strings.Fields(strings.ReplaceAll(ae, ",", " "))[0])
	var parts [][]byte
	for _, e := range u.events {
		cw.Write(e)
		cw.Flush()
		parts = append(parts, bytes.Clone(buf.Bytes()))
		buf.Reset()
	}
	cw.Close()
	last := append(parts[len(parts)-1], buf.Bytes()...)
	parts[len(parts)-1] = last[:len(last)-u.cut]
	for _, p := range parts {
		w.Write(p)
		w.(http.Flusher).Flush()
	}
}

var chatEvents = [][]byte{
	[]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hello\"}}]}\n\n"),
	[]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},\"finish_reason\":\"stop\"}]}\n\n"),
	[]byte("data: [DONE]\n\n"),
}

// get sends a request accepting ae (none when empty) through the recorder
// and returns the body as the client received it, undecoded.
func get(t *testing.T, r *rig, ae string) (string, []byte) {
	t.Helper()
	h := http.Header{}
	if ae != "" {
		h.Set("Accept-Encoding", ae)
	}
	return postRaw(t, r, h)
}

// postRaw sends a streaming Chat request with headers h through the
// recorder, its transport asking for no compression of its own, and
// returns the Content-Encoding and the body as the client received them.
func postRaw(t *testing.T, r *rig, h http.Header) (string, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", r.front.URL+"/v1/chat/completions", strings.NewReader(`{"stream":true}`))
	maps.Copy(req.Header, h)
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the client's body: %v", err)
	}
	return resp.Header.Get("Content-Encoding"), b
}

// TestCompressedPassthrough: in passthrough the client's Accept-Encoding
// reaches the upstream untouched and is recorded as sent; the compressed
// bytes reach the client and the capture as they came; the terminal watch
// reads a decoded copy, so the stream is complete.
func TestCompressedPassthrough(t *testing.T) {
	t.Parallel()
	for _, ae := range []string{"gzip", "br", "zstd", "gzip, deflate, br, zstd"} {
		t.Run(ae, func(t *testing.T) {
			t.Parallel()
			up := &compressingUpstream{events: chatEvents}
			r := newRig(t, up, nil)
			ce, body := get(t, r, ae)
			c := r.finish()
			if len(up.accepted) != 1 || up.accepted[0] != ae {
				t.Fatalf("upstream got Accept-Encoding %q, want the client's %q", up.accepted, ae)
			}
			x := c.Exchanges[0]
			if got := x.Request.Headers["accept-encoding"]; len(got) != 1 || got[0] != ae {
				t.Errorf("recorded request Accept-Encoding %q, want %q", got, ae)
			}
			for _, s := range []tape.Side{tape.Upstream, tape.Client} {
				sd := x.Side(s)
				if got := sd.Response.Headers["content-encoding"]; len(got) != 1 || got[0] != ce {
					t.Errorf("%s: recorded Content-Encoding %q, want %q", s, got, ce)
				}
				if !bytes.Equal(sd.Body(), body) {
					t.Errorf("%s: recorded body is not the wire body", s)
				}
				if sd.End.Outcome != tape.Complete {
					t.Errorf("%s: outcome %s (%s), want complete", s, sd.End.Outcome, sd.End.Error)
				}
			}
			dec, err := tape.DecodeChunks(x.Upstream.Chunks, ce, nil)
			var joined []byte
			for _, d := range dec {
				joined = append(joined, d.Data...)
			}
			if err != nil || !bytes.Equal(joined, bytes.Join(chatEvents, nil)) {
				t.Errorf("decoded upstream body %q (%v)", joined, err)
			}
			if s := r.sums[0]; s.UpstreamEvents != 3 || s.ClientEvents != 3 {
				t.Errorf("summary counts %d/%d events, want 3/3", s.UpstreamEvents, s.ClientEvents)
			}
		})
	}
}

// TestCompressedCut: a gzip body cut before its trailer is recorded as
// truncated, saying why, even though the [DONE] event was decoded.
func TestCompressedCut(t *testing.T) {
	t.Parallel()
	up := &compressingUpstream{events: chatEvents, cut: 6}
	r := newRig(t, up, nil)
	get(t, r, "gzip")
	c := r.finish()
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		end := c.Exchanges[0].Side(s).End
		if end.Outcome != tape.Truncated || !strings.Contains(end.Error, "cut") {
			t.Errorf("%s: outcome %s %q, want truncated because the compressed body is cut", s, end.Outcome, end.Error)
		}
	}
}

// TestReshapingAsksIdentity: an engine that reshapes the stream asks the
// upstream for identity and notes that it did; an upstream that compresses
// anyway is decoded for the engine, and the client gets the reshaped
// stream without Content-Encoding while the upstream side keeps the wire
// bytes.
func TestReshapingAsksIdentity(t *testing.T) {
	t.Parallel()
	up := &compressingUpstream{events: chatEvents}
	r := newRig(t, up, func(o *record.Options) { o.Engine = tape.Engine{Profile: "obsidian-xml"} })
	ce, body := get(t, r, "gzip, br")
	c := r.finish()
	if len(up.accepted) != 1 || up.accepted[0] != "identity" {
		t.Fatalf("upstream got Accept-Encoding %q, want identity", up.accepted)
	}
	x := c.Exchanges[0]
	if len(x.Notes) != 1 || !strings.Contains(x.Notes[0].Text, `instead of the client's "gzip, br"`) {
		t.Errorf("notes %+v, want one saying identity was asked", x.Notes)
	}
	if ce != "" || !strings.Contains(string(body), "Hello") {
		t.Errorf("client got Content-Encoding %q body %q", ce, body)
	}

	// An upstream that ignores the request and compresses anyway.
	forced := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		req.Header.Set("Accept-Encoding", "gzip")
		up.ServeHTTP(w, req)
	})
	r = newRig(t, forced, func(o *record.Options) { o.Engine = tape.Engine{Profile: "obsidian-xml"} })
	ce, body = get(t, r, "")
	c = r.finish()
	x = c.Exchanges[0]
	if ce != "" || !strings.Contains(string(body), "data: ") || !strings.Contains(string(body), "Hello") {
		t.Fatalf("client got Content-Encoding %q body %q, want the reshaped stream decoded", ce, body)
	}
	if got := x.Upstream.Response.Headers["content-encoding"]; len(got) != 1 || got[0] != "gzip" {
		t.Errorf("upstream side Content-Encoding %q, want gzip kept", got)
	}
	if _, err := gzip.NewReader(bytes.NewReader(x.Upstream.Body())); err != nil {
		t.Errorf("upstream side does not keep the gzip wire bytes: %v", err)
	}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		if end := x.Side(s).End; end.Outcome != tape.Complete {
			t.Errorf("%s: outcome %s %q", s, end.Outcome, end.Error)
		}
	}
}

// TestCompressedEchoedSecret: a compressed response that echoes the
// request's API key cannot be masked in place, so neither side records the
// chunks that carry it (decoded or not, the capture never holds the key),
// and a note says why; the same compressed stream without the echo is
// recorded whole.
func TestCompressedEchoedSecret(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-0123456789abcdefXYZ"
	echo := [][]byte{
		[]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n"),
		[]byte("data: {\"error\":{\"message\":\"key " + key + " is over quota\"}}\n\n"),
		[]byte("data: [DONE]\n\n"),
	}
	for _, tc := range []struct {
		name   string
		events [][]byte
		leak   bool
	}{{"echo", echo, true}, {"clean", chatEvents, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			up := &compressingUpstream{events: tc.events}
			r := newRig(t, up, nil)
			req, _ := http.NewRequest("POST", r.front.URL+"/v1/chat/completions", strings.NewReader(`{"stream":true}`))
			req.Header.Set("Accept-Encoding", "gzip")
			req.Header.Set("Authorization", "Bearer "+key)
			tr := &http.Transport{DisableCompression: true}
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			wire, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			tr.CloseIdleConnections()
			c := r.finish()
			if bytes.Contains(r.buf.Bytes(), []byte(key)) {
				t.Fatal("the key is in the capture file")
			}
			x := c.Exchanges[0]
			for _, s := range []tape.Side{tape.Upstream, tape.Client} {
				sd := x.Side(s)
				dec, _ := coding.Decode(sd.Body(), "gzip")
				if bytes.Contains(dec, []byte(key)) {
					t.Fatalf("%s: the recorded compressed chunks decode to the key", s)
				}
				if !bytes.HasPrefix(wire, sd.Body()) {
					t.Errorf("%s: the recorded chunks are not a prefix of the wire body", s)
				}
				if !tc.leak && !bytes.Equal(sd.Body(), wire) {
					t.Errorf("%s: a clean compressed body was not recorded whole (%d of %d bytes)", s, len(sd.Body()), len(wire))
				}
				// The end line counts the bytes withheld as unrecorded.
				kept := int64(len(sd.Body()))
				if e := sd.End; e.Bytes != int64(len(wire)) || e.Unrecorded != int64(len(wire))-kept {
					t.Errorf("%s: end bytes %d, unrecorded %d; want %d and %d", s, e.Bytes, e.Unrecorded, len(wire), int64(len(wire))-kept)
				}
			}
			var ids []string
			for _, a := range x.Anomalies {
				ids = append(ids, a.ID+" "+string(a.Side))
			}
			if want := []string{tape.AnomalyUnrecorded + " upstream", tape.AnomalyUnrecorded + " client"}; tc.leak && !slices.Equal(ids, want) || !tc.leak && len(ids) > 0 {
				t.Errorf("anomalies %q", ids)
			}
			notes := 0
			for _, n := range x.Notes {
				if strings.Contains(n.Text, "echoes a secret value of the request") {
					notes++
				}
			}
			if tc.leak && notes != 2 || !tc.leak && notes != 0 {
				t.Errorf("%d notes about the echo, notes %+v", notes, x.Notes)
			}
		})
	}
}
