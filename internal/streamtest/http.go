package streamtest

import (
	"io"
	"net/http"
	"testing"
)

// GetHost sends a GET for path to addr with the given Host header, as a
// browser page on another name would, and returns the status and body.
func GetHost(t testing.TB, addr, host, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
