package record_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// sseUpstream streams n Chat Completions events, gap apart, then [DONE];
// a request to /slow streams for slow instead.
func sseUpstream(n int, gap, slow time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		k, g := n, gap
		if r.URL.Path == "/slow" {
			k, g = int(slow/gap), gap
		}
		for i := range k {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %d of a stream long enough to fill a file\"}}]}\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(g)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
}

// rotated runs a recording split by rot (Create filled in, into a
// temporary directory) in front of upstream, lets drive send requests to
// it, stops it, and returns the files in the order they were written, each
// checked readable and whole when OnClosed reported it.
func rotated(t *testing.T, upstream http.Handler, rot record.Rotation, compress bool, drive func(base string)) []*tape.Capture {
	t.Helper()
	up := httptest.NewServer(upstream)
	defer up.Close()
	upURL, _ := url.Parse(up.URL)
	dir := t.TempDir()
	ext := ".ndjson"
	if compress {
		ext += tape.CompressedExt
	}
	rot.Create = func(n int) (io.WriteCloser, string, error) {
		path := filepath.Join(dir, fmt.Sprintf("part-%06d%s", n, ext))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		return f, path, err
	}
	rot.Empty = func(path string) { os.Remove(path) }
	var mu sync.Mutex
	closed := map[string]*tape.Capture{}
	var closeErrs []string
	fileOfEx := map[int]string{} // what each exchange's summary says
	r, err := record.StartRecording(record.RecordingOptions{
		Endpoints: []*record.Endpoint{{Listen: "127.0.0.1:0", Upstream: upURL, Leg: record.Whole}},
		Header:    tape.Header{Seam: "test", Upstream: up.URL},
		Note:      func([]*record.Endpoint) string { return "a capture-level note" },
		Rotate:    rot,
		Server:    listen.Options{},
		OnDone: func(sum record.Summary) {
			mu.Lock()
			defer mu.Unlock()
			fileOfEx[sum.Ex] = sum.File
		},
		OnClosed: func(path string, err error) {
			// Read at once: a file reported closed is whole already.
			c, rerr := readCapture(path)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || rerr != nil {
				closeErrs = append(closeErrs, fmt.Sprint(path, err, rerr))
			}
			if closed[path] != nil {
				closeErrs = append(closeErrs, path+" reported closed twice")
			}
			closed[path] = c
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	drive("http://" + r.Endpoints()[0].Addr().String())
	if err := r.Stop(5*time.Second, io.Discard); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(closeErrs) > 0 {
		t.Fatal(strings.Join(closeErrs, "\n"))
	}
	names, _ := filepath.Glob(filepath.Join(dir, "part-*"))
	slices.Sort(names)
	var caps []*tape.Capture
	for i, name := range names {
		c := closed[name]
		if c == nil {
			t.Fatalf("%s was never reported closed", name)
		}
		if c.Header.Part != i+1 {
			t.Errorf("%s: header part %d, want %d", name, c.Header.Part, i+1)
		}
		if len(c.Notes) != 1 || c.Notes[0].Text != "a capture-level note" {
			t.Errorf("%s: capture notes %v, want the recording's note", name, c.Notes)
		}
		caps = append(caps, c)
	}
	if len(closed) != len(names) {
		t.Fatalf("%d files reported closed, %d on disk", len(closed), len(names))
	}
	// The summary names the file each exchange went to (what an exported
	// span names as the exchange's capture).
	for _, c := range caps {
		for _, x := range c.Exchanges {
			if fileOfEx[x.Ex] != c.Name {
				t.Errorf("exchange %d is in %s, its summary says %q", x.Ex, c.Name, fileOfEx[x.Ex])
			}
		}
	}
	for _, c := range caps[1:] {
		if c.Header.ID != caps[0].Header.ID || !c.Header.Started.Equal(caps[0].Header.Started) {
			t.Errorf("%s: header id %s started %s, want the recording's %s %s", c.Name, c.Header.ID, c.Header.Started, caps[0].Header.ID, caps[0].Header.Started)
		}
	}
	return caps
}

func readCapture(path string) (*tape.Capture, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := tape.Uncompress(f)
	if err != nil {
		return nil, err
	}
	return tape.Read(r, path)
}

// checkWhole fails the test unless every exchange of every file is whole
// (request, both sides ended complete, hashes checked without warning),
// no exchange is in two files, and the files hold want exchanges.
func checkWhole(t *testing.T, caps []*tape.Capture, want int) map[int]int {
	t.Helper()
	fileOf := map[int]int{}
	for i, c := range caps {
		if len(c.Warnings) > 0 {
			t.Errorf("%s: warnings %v", c.Name, c.Warnings)
		}
		for _, x := range c.Exchanges {
			if j, ok := fileOf[x.Ex]; ok {
				t.Errorf("exchange %d is in %s and %s", x.Ex, caps[j].Name, c.Name)
			}
			fileOf[x.Ex] = i
			if x.Request == nil || x.Upstream.End == nil || x.Client.End == nil || len(x.Anomalies) > 0 {
				t.Errorf("%s: exchange %d not whole: request %v, ends %v %v, anomalies %v", c.Name, x.Ex, x.Request != nil, x.Upstream.End, x.Client.End, x.Anomalies)
				continue
			}
			if x.Client.End.Outcome != tape.Complete || x.Client.End.SHA256 == "" {
				t.Errorf("%s: exchange %d ended %s (%s; upstream %s %s), sha256 %q", c.Name, x.Ex, x.Client.End.Outcome, x.Client.End.Error, x.Upstream.End.Outcome, x.Upstream.End.Error, x.Client.End.SHA256)
			}
		}
	}
	if len(fileOf) != want {
		t.Errorf("%d exchanges in the files, want %d", len(fileOf), want)
	}
	return fileOf
}

func postStream(t *testing.T, url string) {
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Error(err)
		return
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Error(err)
	}
	resp.Body.Close()
}

// TestRotateBySize: a file past the size takes no new exchange; every
// file, plain or compressed, reads whole on its own once closed.
func TestRotateBySize(t *testing.T) {
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprint("compress=", compress), func(t *testing.T) {
			const n = 40
			size := int64(16 << 10)
			if compress {
				size = 2 << 10 // the events compress well
			}
			caps := rotated(t, sseUpstream(30, time.Millisecond, 0), record.Rotation{Size: size}, compress, func(base string) {
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() { postStream(t, base+"/v1/chat/completions") })
					if i%4 == 3 {
						wg.Wait() // waves of four, so files fill and close while others are written
					}
				}
				wg.Wait()
			})
			checkWhole(t, caps, n)
			if len(caps) < 3 {
				t.Fatalf("%d files for %d exchanges of ~5 KiB with a %d-byte limit", len(caps), n, size)
			}
			for _, c := range caps {
				if len(c.Exchanges) == 0 {
					t.Errorf("%s holds no exchange", c.Name)
				}
			}
		})
	}
}

// TestRotateByDurationKeepsExchangeWhole: an exchange still streaming when
// its file's time is up finishes in that file, while the exchanges that
// begin after go to the next ones; an idle recorder makes no empty file.
func TestRotateByDurationKeepsExchangeWhole(t *testing.T) {
	caps := rotated(t, sseUpstream(3, 10*time.Millisecond, 900*time.Millisecond), record.Rotation{Every: 150 * time.Millisecond}, false, func(base string) {
		var wg sync.WaitGroup
		wg.Go(func() { postStream(t, base+"/slow") }) // exchange 1, ~900ms
		time.Sleep(50 * time.Millisecond)
		for range 8 {
			time.Sleep(100 * time.Millisecond)
			wg.Go(func() { postStream(t, base+"/v1/chat/completions") })
		}
		wg.Wait()
		time.Sleep(500 * time.Millisecond) // idle: no new file
	})
	fileOf := checkWhole(t, caps, 9)
	if fileOf[1] != 0 {
		t.Fatalf("the slow exchange is in file %d, want the first", fileOf[1]+1)
	}
	if len(caps) < 3 {
		t.Fatalf("%d files over ~1s with a 150ms limit", len(caps))
	}
	// The first file closed only once the slow exchange ended: it holds
	// that exchange whole, and the later files took the exchanges that
	// began after it rotated.
	var later int
	for _, c := range caps[1:] {
		later += len(c.Exchanges)
	}
	if later < 6 {
		t.Errorf("%d exchanges in the later files, want most of the 8 that began after the first rotation", later)
	}
	for _, c := range caps {
		if len(c.Exchanges) == 0 {
			t.Errorf("%s holds no exchange", c.Name)
		}
	}
}

// TestRotateSandwich: in a sandwich, the proxy under test's upstream
// request comes to the back leg after the client's request reached the
// front; rotating in between, both legs still go to the front's file, so
// every exchange is whole (both requests, both sides) in one file.
func TestRotateSandwich(t *testing.T) {
	api := httptest.NewServer(sseUpstream(5, 5*time.Millisecond, 0))
	defer api.Close()
	apiURL, _ := url.Parse(api.URL)
	var back atomic.Value // the back leg's address, once listening
	// The proxy under test has a transport of its own: other tests' servers
	// closing http.DefaultTransport's connections are not this test's.
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond) // the front's file may rotate meanwhile
		// A Go proxy must keep the request body readable once its response
		// has begun (as seam's recorder does): otherwise, when the back
		// leg's response headers come while its transport is between
		// reading the body's last bytes and the read that finds its end,
		// the server closes the body as it flushes them, that read fails
		// ("invalid Read on closed Body") and the transport closes its
		// connection to the back leg mid-stream. That is what cut about
		// one stream in six here (rotation only shifted the timing).
		http.NewResponseController(w).EnableFullDuplex()
		target, _ := url.Parse("http://" + back.Load().(string))
		rp := httputil.NewSingleHostReverseProxy(target)
		rp.Transport = tr
		rp.FlushInterval = -1
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	dir := t.TempDir()
	r, err := record.StartRecording(record.RecordingOptions{
		Endpoints: []*record.Endpoint{
			{Listen: "127.0.0.1:0", Upstream: proxyURL, Leg: record.Front},
			{Listen: "127.0.0.1:0", Upstream: apiURL, Leg: record.Back},
		},
		Header: tape.Header{Seam: "test", Upstream: api.URL, Engine: tape.Engine{Profile: "external"}},
		Rotate: record.Rotation{Every: 20 * time.Millisecond, Create: func(n int) (io.WriteCloser, string, error) {
			path := filepath.Join(dir, fmt.Sprintf("part-%06d.ndjson", n))
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			return f, path, err
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	back.Store(r.Endpoints()[1].Addr().String())
	base := "http://" + r.Endpoints()[0].Addr().String()
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				t.Errorf("a stream through the sandwich was cut: %v", err)
			}
		})
		time.Sleep(15 * time.Millisecond)
	}
	wg.Wait()
	if err := r.Stop(5*time.Second, io.Discard); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "part-*"))
	slices.Sort(names)
	var caps []*tape.Capture
	for _, name := range names {
		c, err := readCapture(name)
		if err != nil {
			t.Fatal(err)
		}
		caps = append(caps, c)
	}
	if len(caps) < 3 {
		t.Fatalf("%d files", len(caps))
	}
	fileOf := map[int]string{}
	for _, c := range caps {
		for _, x := range c.Exchanges {
			if f, ok := fileOf[x.Ex]; ok {
				t.Errorf("exchange %d is in %s and %s", x.Ex, f, c.Name)
			}
			fileOf[x.Ex] = c.Name
			if x.Request == nil || x.Upstream.End == nil || x.Client.End == nil {
				t.Errorf("%s: exchange %d not whole: request %v, ends %v %v", c.Name, x.Ex, x.Request != nil, x.Upstream.End, x.Client.End)
				continue
			}
			if x.Client.End.Outcome != tape.Complete || x.Upstream.End.Outcome != tape.Complete {
				t.Errorf("%s: exchange %d ended %s (%s; upstream %s %s), want complete", c.Name, x.Ex, x.Client.End.Outcome, x.Client.End.Error, x.Upstream.End.Outcome, x.Upstream.End.Error)
			}
		}
	}
	if len(fileOf) != 12 {
		t.Errorf("%d exchanges in the files, want 12", len(fileOf))
	}
	for _, c := range caps {
		for _, x := range c.Exchanges {
			if x.UpstreamRequest == nil || x.UpstreamRequest.Paired != tape.PairedHeader {
				t.Errorf("%s: exchange %d has no upstream request line paired by header", c.Name, x.Ex)
			}
		}
	}
}
