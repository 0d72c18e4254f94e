package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// BenchmarkHeldStreams holds thousands of streams open at once, each paced
// like a model emitting tokens (60 content events, one every 100 ms), and
// checks every byte of every one. One op is one batch. path=seam-record runs
// the real seam binary as a separate process (the file descriptors of 5,000
// streams on both of its sides, plus the client's and the upstream's, do not
// fit one process under a 20,000 limit); path=direct is the same batch
// without it. It reports the peak number of streams open at the same
// moment, event latency p50/p99 under that load, and the proxy's peak RSS.
//
//	go test ./bench -run XXX -bench HeldStreams -benchtime 1x
func BenchmarkHeldStreams(b *testing.B) {
	if testing.Short() {
		b.Skip("holds thousands of connections")
	}
	for _, n := range []int{1000, 5000} {
		for _, path := range []string{"direct", "seam-record"} {
			b.Run(fmt.Sprintf("streams=%d/path=%s", n, path), func(b *testing.B) {
				heldStreams(b, n, path)
			})
		}
	}
}

func heldStreams(b *testing.B, n int, path string) {
	clock := NewClock()
	up, err := NewUpstream(clock)
	if err != nil {
		b.Fatal(err)
	}
	defer up.Close()
	url := up.URL()
	var seam *seamProcess
	if path == "seam-record" {
		seam = startSeamRecord(b, url)
		url = seam.url
	}
	tr := NewTransport()
	tr.MaxIdleConnsPerHost = n
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	s := Stream{Events: 60, Interval: 100 * time.Millisecond}

	var lat []int64
	var spans [][2]int64 // first event, end of stream
	b.ResetTimer()
	for range b.N {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var errs []error
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				c := &Client{HTTP: hc, Clock: clock, Verify: true}
				<-start
				res, err := c.Stream(context.Background(), url, s)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, fmt.Errorf("stream %d: %w", i, err))
					return
				}
				lat = append(lat, c.Latencies...)
				spans = append(spans, [2]int64{res.First, res.Done})
			})
		}
		close(start)
		wg.Wait()
		if len(errs) > 0 {
			b.Fatalf("%d of %d streams failed; first: %v", len(errs), n, errs[0])
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(peakOverlap(spans)), "peak-open")
	reportLatency(b, "chunk-", lat)
	if seam != nil {
		if rss := seam.peakRSS(); rss > 0 {
			b.ReportMetric(float64(rss)/(1<<20), "proxy-peak-MiB")
		}
		seam.stop(b, b.N*n)
	}
}

// peakOverlap returns the largest number of [start, end] spans that hold a
// common moment.
func peakOverlap(spans [][2]int64) int {
	type edge struct {
		t     int64
		delta int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s[0], 1}, edge{s[1], -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.t != b.t {
			return int(a.t - b.t)
		}
		return a.delta - b.delta // ends before starts at the same moment
	})
	open, peak := 0, 0
	for _, e := range edges {
		open += e.delta
		peak = max(peak, open)
	}
	return peak
}

// seamProcess is "seam record" running as its own process.
type seamProcess struct {
	cmd     *exec.Cmd
	url     string
	capture string
}

// startSeamRecord builds the seam binary and runs "seam record" in front of
// upstream, writing a capture in a temporary directory.
func startSeamRecord(b *testing.B, upstream string) *seamProcess {
	b.Helper()
	dir := b.TempDir()
	bin := filepath.Join(dir, "seam")
	build := exec.Command("go", "build", "-o", bin, "github.com/seam-dev/seam/cmd/seam")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build seam: %v\n%s", err, out)
	}
	p := &seamProcess{capture: filepath.Join(dir, "held.ndjson")}
	p.cmd = exec.Command(bin, "record", "--upstream", upstream, "--listen", "127.0.0.1:0", "-o", p.capture, "-q")
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			p.url, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if p.url == "" {
		p.cmd.Process.Kill()
		b.Fatalf("seam record never said where it listens (%v)", sc.Err())
	}
	go func() { // keep draining so the process never blocks on stderr
		for sc.Scan() {
		}
	}()
	return p
}

// peakRSS returns the process's peak resident set in bytes, or 0 where
// /proc does not say.
func (p *seamProcess) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// stop interrupts seam record and checks that its capture holds want
// complete exchanges with no byte lost between the two sides.
func (p *seamProcess) stop(b *testing.B, want int) {
	b.Helper()
	p.cmd.Process.Signal(syscall.SIGINT)
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 130) {
		b.Fatalf("seam record: %v", err)
	}
	c, err := tape.ReadFile(p.capture)
	if err != nil {
		b.Fatal(err)
	}
	if len(c.Exchanges) != want {
		b.Fatalf("capture holds %d exchanges, want %d", len(c.Exchanges), want)
	}
	for _, x := range c.Exchanges {
		if x.Upstream.End == nil || x.Client.End == nil || x.Client.End.Outcome != tape.Complete ||
			x.Upstream.End.Bytes != x.Client.End.Bytes {
			b.Fatalf("exchange %d did not complete whole: upstream %+v, client %+v", x.Ex, x.Upstream.End, x.Client.End)
		}
	}
}
