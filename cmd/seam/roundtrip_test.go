package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// TestRecordThenReplayIdentical records the incident's real upstream stream
// live through the recording proxy running obsidian-xml (with and without
// holdback), then replays the capture offline: the replay must reproduce the
// recorded client stream chunk for chunk, whatever read boundaries the live
// recording happened to see.
func TestRecordThenReplayIdentical(t *testing.T) {
	src, err := fixtures.Load(fixtures.Incident)
	if err != nil {
		t.Fatal(err)
	}
	mock := httptest.NewServer(replay.NewServer([]*tape.Capture{src}, replay.ServerOptions{}))
	defer mock.Close()
	upURL, _ := url.Parse(mock.URL)
	for _, holdback := range []string{"off", "on"} {
		t.Run("holdback="+holdback, func(t *testing.T) {
			eng, err := shape.Resolve(shape.ProfileObsidianXML, map[string]string{shape.SwHoldback: holdback})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			w := tape.NewWriter(&buf, tape.WriterOptions{})
			w.Header(tape.Header{V: tape.Version, Seam: version, Engine: eng})
			rec, err := record.New(record.Options{Upstream: upURL, Engine: eng, Writer: w})
			if err != nil {
				t.Fatal(err)
			}
			front := httptest.NewServer(rec)
			req := src.Exchanges[0].Request
			resp, err := http.Post(front.URL+req.URL, "application/json", bytes.NewReader(req.Body))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			front.Close()
			rec.Wait()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			c, err := tape.Read(&buf, "live")
			if err != nil {
				t.Fatal(err)
			}
			x := c.Exchanges[0]
			if !bytes.Equal(x.Client.Body(), got) {
				t.Fatalf("recorded client side differs from what the client read")
			}
			res, err := replay.Exchange(context.Background(), x, c.Header.Engine, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Identical() {
				t.Fatalf("replay: %s", res.Describe())
			}
			found := false
			for _, f := range inspect.Inspect(c, inspect.Options{NoDiffs: true}).Exchanges[0].Findings {
				found = found || (f.ID == "xml.unclosed-closer" && f.Pointer.Side == tape.Client)
			}
			if want := holdback == "off"; found != want {
				t.Errorf("xml.unclosed-closer on the client side: %v, want %v", found, want)
			}
		})
	}
}
