//go:build !linux

package record_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// deadUpstream returns the URL of a loopback port that was just listening
// and is now closed: connection refused, unless the port is handed out again.
func deadUpstream(t *testing.T) *url.URL {
	t.Helper()
	dead := httptest.NewServer(http.NotFoundHandler())
	u, _ := url.Parse(dead.URL)
	dead.Close()
	return u
}
