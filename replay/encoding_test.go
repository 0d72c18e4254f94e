package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
)

// TestServerCompressedBody: a body recorded gzip-compressed is served as
// recorded, with its Content-Encoding, to a client that accepts gzip; a
// client that does not gets it decoded, without Content-Encoding, and the
// response says it was decoded. A fault that reshapes events works on the
// decoded stream.
func TestServerCompressedBody(t *testing.T) {
	t.Parallel()
	plain := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	var z bytes.Buffer
	gw := gzip.NewWriter(&z)
	gw.Write([]byte(plain))
	gw.Close()
	wire := z.Bytes()
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions", Body: []byte(`{"model":"m"}`)}}
	x.Upstream.Response = &tape.Response{Ex: 1, Side: tape.Upstream, Status: 200,
		Headers: tape.Headers{"content-type": {"text/event-stream"}, "content-encoding": {"gzip"}}}
	half := len(wire) / 2
	x.Upstream.Chunks = []tape.Chunk{{Ex: 1, Side: tape.Upstream, Data: wire[:half]}, {Ex: 1, Side: tape.Upstream, Off: int64(half), Data: wire[half:]}}
	c := &tape.Capture{Exchanges: []*tape.Exchange{x}}

	for _, tc := range []struct {
		accept, ce, decoded string
		faults              []replay.Fault
		want                []byte
	}{
		{accept: "gzip, br", ce: "gzip", want: wire},
		{accept: "", decoded: "gzip", want: []byte(plain)},
		{accept: "br", decoded: "gzip", want: []byte(plain)},
		{accept: "gzip", decoded: "gzip", faults: []replay.Fault{{Kind: replay.FaultSplitEvent}}, want: []byte(plain)},
	} {
		srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{Faults: tc.faults}))
		req, _ := http.NewRequest("POST", srv.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
		if tc.accept != "" {
			req.Header.Set("Accept-Encoding", tc.accept)
		}
		tr := &http.Transport{DisableCompression: true}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		tr.CloseIdleConnections()
		srv.Close()
		if ce, dec := resp.Header.Get("Content-Encoding"), resp.Header.Get(replay.DecodedHeader); ce != tc.ce || dec != tc.decoded {
			t.Errorf("accept %q: Content-Encoding %q, %s %q; want %q %q", tc.accept, ce, replay.DecodedHeader, dec, tc.ce, tc.decoded)
		}
		if !bytes.Equal(got, tc.want) {
			t.Errorf("accept %q: body %q, want %q", tc.accept, got, tc.want)
		}
	}
}

// TestOfflineFaultsOnCompressedBody: offline, as served, faults apply to
// the decoded events of a body recorded gzip-compressed: the same faults
// and seed give the same bytes, and the faulted upstream side the replay
// keeps holds those decoded bytes, without a Content-Encoding.
func TestOfflineFaultsOnCompressedBody(t *testing.T) {
	t.Parallel()
	var plain []byte
	for i := range 6 {
		plain = fmt.Appendf(plain, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"}}]}\n\n", i)
	}
	plain = append(plain, "data: [DONE]\n\n"...)
	var z bytes.Buffer
	gw := gzip.NewWriter(&z)
	gw.Write(plain)
	gw.Close()
	wire := z.Bytes()
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions", Body: []byte(`{"model":"m"}`)}}
	x.Upstream.Response = &tape.Response{Ex: 1, Side: tape.Upstream, Status: 200,
		Headers: tape.Headers{"content-type": {"text/event-stream"}, "content-encoding": {"gzip"}}}
	x.Upstream.Chunks = []tape.Chunk{{Ex: 1, Side: tape.Upstream, Data: wire}}
	c := &tape.Capture{Exchanges: []*tape.Exchange{x}}
	for _, spec := range []string{"drop-delta", "dup-delta", "reorder", "split-event"} {
		faults := parseFaults(t, spec)
		res, err := replay.Exchange(context.Background(), x, tape.Engine{Profile: "passthrough"}, replay.Options{Faults: faults, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{Faults: faults, Seed: 5}))
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			t.Fatal(err)
		}
		served, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res.Body(), served) {
			t.Errorf("%s: offline %q, served %q", spec, res.Body(), served)
		}
		if spec != "split-event" && bytes.Equal(served, plain) {
			t.Errorf("%s: the fault changed nothing", spec)
		}
		if up := res.Upstream; up == nil || !bytes.Equal(up.Body(), served) || up.Response.Headers["content-encoding"] != nil {
			t.Errorf("%s: the faulted upstream side is not the decoded body it sent", spec)
		}
		if x.Upstream.Response.Headers["content-encoding"] == nil {
			t.Fatal("the replay changed the recorded headers")
		}
	}
}
