package record_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// patterned is a request body of n bytes that depends on seed, produced as
// it is read (never held), by copying from a short periodic pattern.
type patterned struct {
	n, off int64
	seed   byte
	pat    []byte
}

// period is the pattern's period: a prime, so a body's bytes do not line
// up with read sizes.
const period = 251

func (p *patterned) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	if p.pat == nil {
		p.pat = make([]byte, 64<<10+period)
		for i := range p.pat {
			p.pat[i] = p.seed + byte(i%period)
		}
	}
	k := min(int64(len(b)), p.n-p.off, 64<<10)
	copy(b[:k], p.pat[p.off%period:])
	p.off += k
	return int(k), nil
}

// postBodies sends n requests with patterned bodies of size bytes to base,
// body i at /v1/chat/completions?body=i, concurrently; wait on the result
// for their responses.
func postBodies(t *testing.T, base string, n int, size int64) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", base+"/v1/chat/completions?body="+strconv.Itoa(i), &patterned{n: size, seed: byte(i)})
			req.ContentLength = size
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	return &wg
}

// bodyOf returns the bytes a patterned body of n bytes holds.
func bodyOf(seed byte, n int64) []byte {
	b, _ := io.ReadAll(&patterned{n: n, seed: seed})
	return b
}

// TestRequestBodiesShareABudget: through the proxy, request bodies in
// flight together hold at most the recorder's budget for them (beyond each
// body's free first 64 KiB): 4 bodies of 16 MiB held at once under a 1 MiB
// budget. Every byte still goes upstream; each recorded body is a prefix of
// what was sent, marked truncated, and a note on the exchange says why.
func TestRequestBodiesShareABudget(t *testing.T) {
	t.Parallel()
	const n, size, budget, gate = 4, 16 << 20, 1 << 20, 4 << 20
	var mu sync.Mutex
	got := map[string][32]byte{}
	var reached sync.WaitGroup
	reached.Add(n)
	release := make(chan struct{})
	// The upstream reads 4 MiB of each body, then waits until every body
	// got that far: the recorder has read at least that much of each, and
	// (socket buffers being smaller than the 12 MiB left) none has ended.
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h := sha256.New()
		io.CopyN(h, req.Body, gate)
		reached.Done()
		<-release
		io.Copy(h, req.Body)
		mu.Lock()
		got[req.URL.Query().Get("body")] = [32]byte(h.Sum(nil))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}), func(o *record.Options) { o.MaxHeldRequestBodies = budget })
	sent := postBodies(t, r.front.URL, n, size)
	reached.Wait()
	close(release)
	sent.Wait()
	c := r.finish()
	if len(c.Exchanges) != n {
		t.Fatalf("%d exchanges", len(c.Exchanges))
	}
	var beyond int64
	cut := 0
	for _, x := range c.Exchanges {
		_, q, _ := strings.Cut(x.Request.URL, "?body=")
		i, _ := strconv.Atoi(q)
		want := bodyOf(byte(i), size)
		if got[strconv.Itoa(i)] != sha256.Sum256(want) {
			t.Errorf("body %d did not reach the upstream whole", i)
		}
		rb := x.Request.Body
		if !bytes.HasPrefix(want, rb) {
			t.Errorf("body %d: the recorded %d bytes are not a prefix of the body", i, len(rb))
		}
		beyond += max(int64(len(rb))-64<<10, 0)
		if len(rb) < size {
			cut++
			if !x.Request.BodyTruncated || len(x.Notes) != 1 || !strings.Contains(x.Notes[0].Text, fmt.Sprintf("request body recorded up to %d bytes: the requests in flight held the 1 MiB seam keeps", len(rb))) {
				t.Errorf("body %d cut at %d bytes: truncated %v, notes %+v", i, len(rb), x.Request.BodyTruncated, x.Notes)
			}
		}
	}
	if beyond > budget || cut != n {
		t.Errorf("%d bytes kept beyond the free 64 KiB per body (budget %d), %d bodies cut", beyond, budget, cut)
	}
}

// TestRequestBodiesBoundedRSS sends 20 concurrent 100 MB request bodies
// through seam record's recorder, in a child process so its peak RSS is
// its own, and checks the peak stays under 320 MB (before the budget it
// was about 900 MB: each body kept its 16 MiB, twice). The race detector
// multiplies memory, so under -race the child sends 2 MiB bodies, checks
// they are recorded whole, and the peak is only logged.
func TestRequestBodiesBoundedRSS(t *testing.T) {
	if os.Getenv("SEAM_BODY_LOAD") != "" {
		bodyLoad(t)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRequestBodiesBoundedRSS$", "-test.v")
	cmd.Env = append(os.Environ(), "SEAM_BODY_LOAD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("load: %v\n%s", err, out)
	}
	var hwm int64 = -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "peak-rss-kb "); ok {
			hwm, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if hwm < 0 {
		t.Fatalf("no peak RSS reported (no /proc here?):\n%s", out)
	}
	t.Logf("peak RSS %d MB", hwm>>10)
	if !raceEnabled && hwm > 320<<10 {
		t.Errorf("peak RSS %d MB for 20 concurrent 100 MB request bodies, want under 320 MB", hwm>>10)
	}
}

// bodyLoad runs in the child: 20 concurrent large bodies through a
// recorder writing its capture to a file, then it prints its peak RSS.
func bodyLoad(t *testing.T) {
	size := int64(100 << 20)
	if raceEnabled {
		size = 2 << 20 // kept whole: 20 of them fit the budget
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}))
	defer up.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "load.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := tape.NewWriter(f, tape.WriterOptions{})
	w.Header(tape.Header{V: tape.Version, Seam: "test", ID: "load", Upstream: up.URL, Engine: tape.Engine{Profile: "passthrough"}})
	u, _ := url.Parse(up.URL)
	rec, err := record.New(record.Options{Upstream: u, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(rec)
	postBodies(t, front.URL, 20, size).Wait()
	front.Close()
	rec.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	c, err := tape.Read(f, "load")
	if err != nil || len(c.Exchanges) != 20 {
		t.Fatalf("capture: %v", err)
	}
	for _, x := range c.Exchanges {
		_, q, _ := strings.Cut(x.Request.URL, "?body=")
		i, _ := strconv.Atoi(q)
		whole := int64(len(x.Request.Body)) == size
		if whole == x.Request.BodyTruncated || raceEnabled != whole || !bytes.Equal(bodyOf(byte(i), int64(len(x.Request.Body))), x.Request.Body) {
			t.Errorf("exchange %d: recorded %d of %d bytes, truncated %v", x.Ex, len(x.Request.Body), size, x.Request.BodyTruncated)
		}
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status: cannot measure RSS here")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			fmt.Printf("peak-rss-kb %s\n", strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
}
