package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// TestKill9Compressed records three whole exchanges into a .ndjson.zst
// capture, kills "seam record" with SIGKILL in the middle of a fourth, and
// checks that the three read whole (hashes verified) through "seam
// inspect" and a directory listing, with the cut only a warning.
func TestKill9Compressed(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "killed.ndjson.zst")
	var served atomic.Int32
	hold := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 50 {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %d\"}}]}\n\n", i)
			w.(http.Flusher).Flush()
		}
		if served.Add(1) > 3 {
			<-hold // the fourth stream is still going when seam is killed
			return
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer up.Close()
	defer close(hold) // before up.Close, which waits for the held stream
	cmd, addr := startRecord(t, up.URL, out)
	requestStreams(t, addr, 3)
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readEvents(t, resp.Body, 50)
	waitExchanges(t, out, 3)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	raw, err := os.ReadFile(out)
	if err != nil || !tape.IsCompressed(raw) {
		t.Fatalf("capture is not zstd: %v", err)
	}
	c, err := tape.ReadFile(out)
	if err != nil {
		t.Fatalf("compressed capture after kill -9 does not decode: %v", err)
	}
	for _, w := range c.Warnings {
		t.Logf("warning: %v", w)
		if strings.Contains(w.Error(), "SHA-256") {
			t.Errorf("hash mismatch after kill -9: %v", w)
		}
	}
	n := 0
	for _, x := range c.Exchanges {
		if x.Client.End != nil && x.Client.End.SHA256 != "" && x.Upstream.End != nil && bytes.Equal(x.Client.Body(), x.Upstream.Body()) {
			n++
		}
	}
	if n < 3 {
		t.Fatalf("%d whole exchanges survived kill -9, want the 3 that had ended", n)
	}
	for _, in := range []string{out, dir} {
		got, err := seamOutput("inspect", "--json", in)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(got, []byte(`"ex": 3`)) {
			t.Errorf("seam inspect %s does not show exchange 3:\n%.400s", in, got)
		}
	}
}

// waitExchanges polls a capture being recorded until n exchanges in it
// have ended, failing after 10 s.
func waitExchanges(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := tape.ReadFile(path); err == nil {
			ended := 0
			for _, x := range c.Exchanges {
				if x.Client.End != nil {
					ended++
				}
			}
			if ended >= n {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %d ended exchanges", path, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
