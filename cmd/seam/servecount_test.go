package main

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestServeSummaryAtInterrupt: ctrl-c ends seam serve with a line saying
// what it served, answered and missed (it stopped without a word).
func TestServeSummaryAtInterrupt(t *testing.T) {
	cmd, addr, rest := launchSeam(t, `on http://(\S+)`, "serve", "--speed", "0", "--listen", "127.0.0.1:0", "../../fixtures/openai-chat-tools.ndjson")
	for _, body := range []string{`{}`, `{"model":"x"}`} {
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	for {
		line, err := rest.ReadString('\n')
		said.WriteString(line)
		if err != nil {
			break
		}
	}
	cmd.Wait()
	if !strings.Contains(said.String(), "served 2 requests: 0 answered from captures, 2 misses\n") {
		t.Errorf("no summary at ctrl-c:\n%s", said.String())
	}
}
