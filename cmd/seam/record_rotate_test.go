package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dev/seam/bucket"
	"github.com/seam-dev/seam/internal/s3fake"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
)

// streamingUpstream streams a Chat Completions answer of n events, gap
// apart.
func streamingUpstream(t *testing.T, n int, gap time.Duration) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range n {
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word %d \"}}]}\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(gap)
		}
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(up.Close)
	return up
}

// load sends streams to base from workers goroutines until stop is
// closed, and returns how many finished.
func load(base string, workers int, stop chan struct{}) (wait func() int64) {
	var done atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := http.Post(base+"/v1/chat/completions", "application/json",
					strings.NewReader(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
				if err != nil {
					return // the recorder was killed
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err == nil {
					done.Add(1)
				}
			}
		})
	}
	return func() int64 { wg.Wait(); return done.Load() }
}

// readLocal reads a capture file, compressed or not.
func readLocal(t *testing.T, path string) *tape.Capture {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := tape.Uncompress(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c, err := tape.Read(r, path)
	if err != nil {
		t.Fatalf("%s is not readable: %v", path, err)
	}
	return c
}

func marker(t *testing.T, path string) bucket.Marker {
	t.Helper()
	b, err := os.ReadFile(path + bucket.MarkerExt)
	if err != nil {
		t.Fatal(err)
	}
	var m bucket.Marker
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRecordRotateUploadKill9: seam record --rotate --upload under load,
// killed with SIGKILL while files rotate and upload, leaves every file
// readable (the one being written may end in a cut line), every file it
// marked uploaded in the bucket byte for byte, and a restart uploads what
// is left: in the end every file is in the bucket, each PUT once.
func TestRecordRotateUploadKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam record under load for seconds")
	}
	fake := s3fake.Start(t, "caps")
	fake.SetEnv(t)
	up := streamingUpstream(t, 20, 2*time.Millisecond)
	dir := t.TempDir() + "/caps/"

	cmd, addr, rest := launchSeam(t, `listening on http://(\S+)`,
		"record", "--upstream", up.URL, "--listen", "127.0.0.1:0", "-o", dir, "-q",
		"--rotate", "3KiB", "--upload", "s3://caps/team/host-a")
	var said bytes.Buffer
	var saidMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(rest)
		for sc.Scan() {
			saidMu.Lock()
			said.WriteString(sc.Text() + "\n")
			saidMu.Unlock()
		}
	}()
	stop := make(chan struct{})
	wait := load("http://"+addr, 8, stop)
	// Kill once a few files are up and more are being written.
	deadline := time.Now().Add(20 * time.Second)
	for len(fake.Counts("PUT")) < 6 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(30 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	close(stop)
	served := wait()
	puts := len(fake.Counts("PUT"))
	if puts < 3 {
		saidMu.Lock()
		t.Fatalf("%d files uploaded in 20s; seam said:\n%s", puts, said.String())
	}

	names, _ := filepath.Glob(filepath.Join(dir, "*.ndjson.zst"))
	slices.Sort(names)
	if len(names) < 4 {
		t.Fatalf("%d capture files after %d streams with --rotate 3KiB", len(names), served)
	}
	re := regexp.MustCompile(`^seam-\d{8}T\d{6}Z-(\d{6})\.ndjson\.zst$`)
	seen := map[int]string{}
	cut, pending := 0, 0
	for i, name := range names {
		m := re.FindStringSubmatch(filepath.Base(name))
		if m == nil || m[1] != fmt.Sprintf("%06d", i+1) {
			t.Fatalf("file %d is named %s, want the next part number", i+1, filepath.Base(name))
		}
		if st, _ := os.Stat(name); st.Size() == 0 && i == len(names)-1 {
			// Killed between making the last file and writing its header:
			// directory reads skip it, and the restart drops it.
			cut++
			continue
		}
		c := readLocal(t, name)
		if c.Header.Part != i+1 {
			t.Errorf("%s: part %d", name, c.Header.Part)
		}
		whole := len(c.Warnings) == 0
		for _, x := range c.Exchanges {
			if prev, ok := seen[x.Ex]; ok {
				t.Errorf("exchange %d in %s and %s", x.Ex, prev, name)
			}
			seen[x.Ex] = name
			if x.Client.End == nil || len(x.Anomalies) > 0 {
				whole = false
			}
		}
		mk := marker(t, name)
		if mk.State != bucket.StateUploaded {
			pending++
		}
		if mk.Object != "s3://caps/team/host-a/"+filepath.Base(name) {
			t.Errorf("%s: marker object %s", name, mk.Object)
		}
		// Every file closed (whether uploaded yet or not) is whole; only
		// those still being written at the kill may be cut.
		if (mk.State == bucket.StateUploaded || mk.Closed) && !whole {
			t.Errorf("%s was closed (marker %+v) but is not whole: warnings %v", name, mk, c.Warnings)
		}
		if !whole {
			cut++
		}
	}
	if st, _ := os.Stat(names[len(names)-1]); st.Size() == 0 {
		names = names[:len(names)-1]
	}
	// Restart in the same directory: it uploads what the killed run left,
	// and nothing twice.
	cmd2, _, rest2 := launchSeam(t, `listening on http://(\S+)`,
		"record", "--upstream", up.URL, "--listen", "127.0.0.1:0", "-o", dir, "-q",
		"--rotate", "3KiB", "--upload", "s3://caps/team/host-a")
	out2 := make(chan string)
	go func() { b, _ := io.ReadAll(rest2); out2 <- string(b) }()
	deadline = time.Now().Add(20 * time.Second)
	for len(fake.Counts("PUT")) < len(names) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cmd2.Process.Signal(os.Interrupt)
	cmd2.Wait()
	stderr2 := <-out2
	t.Logf("killed after %d streams: %d files, %d uploaded, %d cut short; the restart uploaded the rest", served, len(names), puts, cut)
	// The restart takes up every file whose marker does not say uploaded:
	// one killed between its PUT and its marker's update is among them,
	// found in the bucket and not sent again (checked below).
	if want := fmt.Sprintf("uploading %s a previous run left", units.Count(pending, "file")); !strings.Contains(stderr2, want) && pending > 0 {
		t.Errorf("the restart does not say %q:\n%s", want, stderr2)
	}
	if !regexp.MustCompile(`\d+ files? \(.*\) uploaded to s3://caps/team/host-a`).MatchString(stderr2) {
		t.Errorf("no upload summary:\n%s", stderr2)
	}
	if cmd2.ProcessState.ExitCode() != 0 {
		t.Errorf("the restart exited %d:\n%s", cmd2.ProcessState.ExitCode(), stderr2)
	}

	// Every file of the killed run is in the bucket, byte for byte, PUT
	// once; the restart's own file had no exchange and is not kept.
	store := bucket.NewStore(bucket.AddressingAuto)
	after, _ := filepath.Glob(filepath.Join(dir, "*.ndjson.zst"))
	if len(after) != len(names) {
		t.Errorf("%d files after the restart, %d before: it kept an empty one", len(after), len(names))
	}
	for _, name := range names {
		key := "caps/team/host-a/" + filepath.Base(name)
		if n := fake.Count("PUT", key); n != 1 {
			t.Errorf("%s PUT %d times", key, n)
		}
		if mk := marker(t, name); mk.State != bucket.StateUploaded {
			t.Errorf("%s: marker %+v", name, mk)
		}
		local, _ := os.ReadFile(name)
		r, err := store.Open(context.Background(), bucket.Location{Bucket: "caps", Key: strings.TrimPrefix(key, "caps/")})
		if err != nil {
			t.Fatal(err)
		}
		remote, _ := io.ReadAll(r)
		r.Close()
		if !bytes.Equal(local, remote) {
			t.Errorf("%s: object %d bytes, file %d", key, len(remote), len(local))
		}
	}
	if len(fake.Counts("PUT")) != len(names) {
		t.Errorf("%d objects PUT, want the %d files", len(fake.Counts("PUT")), len(names))
	}
}

// TestRecordUploadFailureSaid: an upload the store keeps refusing is said
// on stderr as it fails, retried, and said again in the summary; the run
// exits 1, and the file stays with its marker pending for the next run.
func TestRecordUploadFailureSaid(t *testing.T) {
	fake := s3fake.Start(t, "caps")
	fake.SetEnv(t)
	fake.Fail("PUT", 1<<20)
	up := streamingUpstream(t, 3, time.Millisecond)
	dir := t.TempDir()
	out := filepath.Join(dir, "one.ndjson.zst")
	cmd, addr, rest := launchSeam(t, `listening on http://(\S+)`,
		"record", "--upstream", up.URL, "--listen", "127.0.0.1:0", "-o", out, "-q",
		"--upload", "s3://caps/p", "--upload-wait", "2s")
	said := make(chan string)
	go func() { b, _ := io.ReadAll(rest); said <- string(b) }()
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	stderr := <-said
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1:\n%s", code, stderr)
	}
	for _, want := range []string{
		"seam: upload " + out + " to s3://caps/p/one.ndjson.zst failed: PUT s3://caps/p/one.ndjson.zst: HTTP 503",
		"0 files (0 B) uploaded to s3://caps/p",
		"not uploaded: " + out + " → s3://caps/p/one.ndjson.zst: PUT s3://caps/p/one.ndjson.zst: HTTP 503",
		"1 file not uploaded: kept here",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if fake.Failed() < 2 {
		t.Errorf("%d PUTs refused: the upload was not retried", fake.Failed())
	}
	if mk := marker(t, out); mk.State != bucket.StatePending {
		t.Errorf("marker %+v", mk)
	}
	readLocal(t, out)
}
