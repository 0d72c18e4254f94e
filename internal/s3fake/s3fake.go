// Package s3fake runs an in-process S3-compatible store on 127.0.0.1 for
// tests (github.com/johannesboyne/gofakes3, in memory), with what tests of
// an uploader need around it: requests counted per method and key,
// failures injected, and the environment that points the AWS SDK at it.
package s3fake

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Fake is a running fake store.
type Fake struct {
	URL     string
	Backend *s3mem.Backend

	mu     sync.Mutex
	counts map[string]int // "PUT key" → requests that reached the store
	fail   map[string]int // method → how many more requests of it fail
	failed int
}

// Start starts a fake store holding the buckets named, until the test ends.
func Start(t testing.TB, buckets ...string) *Fake {
	t.Helper()
	f := &Fake{Backend: s3mem.New(), counts: map[string]int{}, fail: map[string]int{}}
	for _, b := range buckets {
		if err := f.Backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	h := gofakes3.New(f.Backend, gofakes3.WithIntegrityCheck(true)).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.URL.Path, "/")
		f.mu.Lock()
		if f.fail[r.Method] > 0 {
			f.fail[r.Method]--
			f.failed++
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>injected failure</Message></Error>`))
			return
		}
		f.counts[r.Method+" "+key]++
		f.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Env returns the environment that points the AWS SDK at the fake, with
// test credentials and no shared config files or instance metadata.
func (f *Fake) Env(dir string) []string {
	return []string{
		"AWS_ENDPOINT_URL_S3=" + f.URL,
		"AWS_ACCESS_KEY_ID=seamtest",
		"AWS_SECRET_ACCESS_KEY=seamtestsecret",
		"AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE=" + dir + "/aws-config-none",
		"AWS_SHARED_CREDENTIALS_FILE=" + dir + "/aws-credentials-none",
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// SetEnv sets Env in the test's environment (t.Setenv: not in parallel
// tests).
func (f *Fake) SetEnv(t testing.TB) {
	dir := t.TempDir()
	for _, kv := range f.Env(dir) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// Fail makes the next n requests of method fail with 503 SlowDown.
func (f *Fake) Fail(method string, n int) {
	f.mu.Lock()
	f.fail[method] += n
	f.mu.Unlock()
}

// Failed returns how many requests were made to fail.
func (f *Fake) Failed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// Count returns how many requests of method reached the store for
// bucket/key.
func (f *Fake) Count(method, bucketKey string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[method+" "+bucketKey]
}

// Counts returns how many requests of method reached the store, per
// bucket/key.
func (f *Fake) Counts(method string) map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[string]int{}
	for k, n := range f.counts {
		if key, ok := strings.CutPrefix(k, method+" "); ok {
			m[key] = n
		}
	}
	return m
}
