package replay

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestTally: a hit, a miss (404), a fault's status and a CONNECT (not
// counted) add up to the summary line; a status the handler never wrote
// is a 200.
func TestTally(t *testing.T) {
	var tally Tally
	h := tally.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/miss":
			http.NotFound(w, r)
		case "/fault":
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.Write([]byte("ok"))
		}
	}))
	for _, req := range []*http.Request{
		httptest.NewRequest("POST", "/hit", nil),
		httptest.NewRequest("POST", "/miss", nil),
		httptest.NewRequest("POST", "/fault", nil),
		httptest.NewRequest("CONNECT", "/miss", nil),
	} {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	if got, want := tally.String(), "served 3 requests: 1 answered from captures, 1 miss, 1 other errors (faults or recorded)"; got != want {
		t.Errorf("tally %q, want %q", got, want)
	}
}
