package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/seam-dev/seam/sse"
)

// compressingServer streams body's events compressed with the coding the
// request's Accept-Encoding names (identity when none), flushing a
// compressed block and the response after each event, as a real streaming
// server does.
func compressingServer(t *testing.T, body []byte) *httptest.Server {
	t.Helper()
	events := sse.SplitEvents(body)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		ae := r.Header.Get("Accept-Encoding")
		var cw interface {
			io.Writer
			Flush() error
			Close() error
		}
		switch ae {
		case "gzip":
			cw = gzip.NewWriter(w)
		case "br":
			cw = brotli.NewWriter(w)
		case "zstd":
			cw, _ = zstd.NewWriter(w)
		}
		if cw == nil {
			for _, e := range events {
				w.Write(e)
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Header().Set("Content-Encoding", ae)
		for _, e := range events {
			cw.Write(e)
			cw.Flush()
			w.(http.Flusher).Flush()
		}
		cw.Close()
	}))
	t.Cleanup(s.Close)
	return s
}

// inspectView is what a user relies on in an inspect report, whatever the
// wire encoding: the protocol, outcome, assembled messages, what each
// client ends up with, and the findings (where they point aside, as the
// compressed reads are cut elsewhere).
type inspectView struct {
	Protocol string
	Outcome  string
	Messages []json.RawMessage
	Clients  json.RawMessage
	Findings []string
}

func encodedView(t *testing.T, capture string) inspectView {
	t.Helper()
	out, err := exec.Command("seam", "inspect", "--json", capture).Output()
	if err != nil {
		t.Fatalf("seam inspect %s: %v\n%s", capture, err, out)
	}
	var r struct {
		Exchanges []struct {
			Protocol string          `json:"protocol"`
			Outcome  string          `json:"outcome"`
			Clients  json.RawMessage `json:"clients"`
			Sides    []struct {
				Message json.RawMessage `json:"message"`
			} `json:"sides"`
			Findings []struct {
				ID, Severity, Message, Evidence string
			} `json:"findings"`
		} `json:"exchanges"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Exchanges) != 1 {
		t.Fatalf("inspect output: %v\n%s", err, out)
	}
	x := r.Exchanges[0]
	v := inspectView{Protocol: x.Protocol, Outcome: x.Outcome, Clients: x.Clients}
	for _, s := range x.Sides {
		v.Messages = append(v.Messages, s.Message)
	}
	for _, f := range x.Findings {
		v.Findings = append(v.Findings, f.Severity+" "+f.ID+": "+f.Message+" | "+f.Evidence)
	}
	return v
}

// TestRecordCompressedUpstreams records real compressing servers (gzip, br,
// zstd) through "seam record", the client asking for each coding: every
// capture keeps the compressed wire bytes, and inspects exactly like the
// identity recording of the same stream, with outcome complete.
func TestRecordCompressedUpstreams(t *testing.T) {
	t.Parallel()
	for _, s := range []struct{ file, url string }{
		{"realworld/anthropic-sdk-tool-use-response.sse", "/v1/messages"},
		{"providers/gemini/gemini-fb-googleai-thinking-function-call.sse", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"},
	} {
		t.Run(filepath.Base(s.file), func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(filepath.Join(fixturesDir, s.file))
			if err != nil {
				t.Fatal(err)
			}
			up := compressingServer(t, body)
			views := map[string]inspectView{}
			for _, ae := range []string{"identity", "gzip", "br", "zstd"} {
				out := filepath.Join(t.TempDir(), ae+".ndjson")
				rec, addr := startRecord(t, up.URL, out)
				req, _ := http.NewRequest("POST", "http://"+addr+s.url, strings.NewReader(`{"model":"m","stream":true}`))
				req.Header.Set("Accept-Encoding", ae)
				tr := &http.Transport{DisableCompression: true}
				resp, err := (&http.Client{Transport: tr}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				wire, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				tr.CloseIdleConnections()
				rec.Process.Signal(os.Interrupt)
				rec.Wait()
				if ae != "identity" && (resp.Header.Get("Content-Encoding") != ae || bytes.Contains(wire, []byte("data:"))) {
					t.Fatalf("%s: the client did not get the compressed body (Content-Encoding %q)", ae, resp.Header.Get("Content-Encoding"))
				}
				v := encodedView(t, out)
				if v.Outcome != "complete" {
					t.Errorf("%s: outcome %s, want complete", ae, v.Outcome)
				}
				views[ae] = v
			}
			for _, ae := range []string{"gzip", "br", "zstd"} {
				if !reflect.DeepEqual(views[ae], views["identity"]) {
					t.Errorf("%s inspects differently from identity:\n got %+v\nwant %+v", ae, views[ae], views["identity"])
				}
			}
			t.Logf("identity: %s, findings %q", views["identity"].Protocol, views["identity"].Findings)
			if len(views["identity"].Messages) != 2 || views["identity"].Protocol == "unknown" {
				t.Errorf("identity view %+v", views["identity"])
			}
		})
	}
}
