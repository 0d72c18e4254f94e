// Command seam-bench measures what recording costs a stream: it runs the same
// load, with the same client and the same upstream, directly and through
// "seam record" (as its own process, writing both sides to disk, plain and
// compressed), side by side in one run, and prints one table.
//
//	go run ./cmd/seam-bench                      # 1, 50 and 500 streams, 10 s each
//	go run ./cmd/seam-bench -streams 500 -duration 60s
//	go run ./cmd/seam-bench -otlp sink -zst=false -bare=false   # OTLP export on vs off
//	go run ./cmd/seam-bench -forward -streams 1,50              # forward mode against direct TLS too
//	go run ./cmd/seam-bench read                 # inspect, stats and grep on a 1 GB capture
//
// Every stream is a synthetic Chat Completions stream of -events content
// events of about 260 bytes, sent back to back (gap 0), from package bench's
// upstream on 127.0.0.1. For each concurrency it reports streams per second,
// time to first event p50/p99, the proxy's CPU (cores) and peak resident
// set, whether that grew from the first half of the run to the second, and
// the capture's size per byte on the wire, with each path's ratio to direct.
// A first phase sends one stream with an event every 5 ms and reports the
// delay seam adds per event (p50 and p99 of seam's event latency minus
// direct's).
//
// -forward adds a second group of paths to a TLS upstream (HTTP/2 on
// every TLS leg): direct TLS, seam record --forward (the client's
// HTTPS_PROXY, trusting seam's CA; plain and compressed) and a bare forward
// proxy (seam's CONNECT handling and TLS interception in front of a
// recording-free httputil.ReverseProxy), each compared with direct TLS.
//
// A proxy to compare with is added with -peer NAME=COMMAND, COMMAND using
// {upstream} and {port}; mitmproxy's mitmdump is added by itself when it is
// on PATH. Captures are checked after each run: every exchange whole on both
// sides, every hash verified.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seam-dev/seam/bench"
	"github.com/seam-dev/seam/internal/dist"
	"github.com/seam-dev/seam/internal/units"
)

type options struct {
	streams  []int
	duration time.Duration
	events   int
	interval time.Duration
	gap      time.Duration
	seam     string
	dir      string
	plain    bool
	zst      bool
	keep     bool
	peers    []peer
	// otlp, when set, adds a seam record --otlp path: the OTLP endpoint's
	// URL, or "sink" for one the bench runs itself.
	otlp string
	// record holds more flags for every seam record run (-record
	// "--buffer 64MiB").
	record string
	// forward adds the forward-mode runs: direct TLS, seam record
	// --forward (plain and .zst, as plain and zst say) and, with bare, a
	// bare forward proxy.
	forward bool
	// self is this program, run as the bare proxies ("" without -bare).
	self string
}

func main() {
	if ran, err := runBare(os.Args[1:]); ran {
		if err != nil {
			fmt.Fprintln(os.Stderr, "seam-bench:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == readModeArg {
		os.Exit(readMain(os.Args[2:]))
	}
	o, cpuprofile, err := parseOptions(os.Args[1:])
	if err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "seam-bench:", err)
			os.Exit(1)
		}
		os.Exit(2)
	}
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "seam-bench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "seam-bench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// errUsage is parseOptions' error for flags it could not take; flag (or
// it) has said why on stderr.
var errUsage = errors.New("usage")

// parseOptions reads seam-bench's flags from args (the command line after
// the program's name); cpuprofile is -cpuprofile's file.
func parseOptions(args []string) (o options, cpuprofile string, err error) {
	bare := false
	fs := flag.NewFlagSet("seam-bench", flag.ContinueOnError)
	streams := fs.String("streams", "1,50,500", "concurrent streams per run, comma-separated")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long each run lasts")
	fs.IntVar(&o.events, "events", 200, "content events per stream")
	fs.DurationVar(&o.interval, "interval", 0, "event interval of the throughput runs (0: back to back; 5ms is an LLM's pace, each event a read and a write of its own)")
	fs.DurationVar(&o.gap, "gap", 5*time.Millisecond, "event interval of the one-stream delay run (0 skips it)")
	fs.StringVar(&o.seam, "seam", "", "seam binary to run (default: build ./cmd/seam)")
	fs.StringVar(&o.dir, "dir", "", "directory for the captures (default: a temporary one, removed)")
	fs.BoolVar(&o.plain, "plain", true, "run seam record writing a plain .ndjson capture")
	fs.BoolVar(&o.zst, "zst", true, "run seam record writing a compressed .ndjson.zst capture")
	fs.BoolVar(&bare, "bare", true, "run a bare reverse proxy too (net/http/httputil in a process of its own, flushing every write, recording nothing): the floor any Go proxy pays on this machine")
	fs.BoolVar(&o.keep, "keep", false, "keep the captures (in -dir, or in a temporary directory it names), e.g. to time seam inspect on them")
	fs.StringVar(&o.record, "record", "", "more `flags` for every seam record run, e.g. \"--buffer 64MiB\"")
	fs.BoolVar(&o.forward, "forward", false, "also run forward mode (HTTPS_PROXY, TLS on both legs, HTTP/2) against a TLS upstream: direct TLS, seam record --forward plain and .zst, and (with -bare) a bare forward proxy: seam's CONNECT handling and TLS interception recording nothing")
	fs.StringVar(&o.otlp, "otlp", "", "also run seam record --otlp `URL` (\"sink\": a loopback OTLP/HTTP endpoint the bench runs, discarding what it gets), and give each seam run's CPU per exchange over its whole life")
	cpuprofileFlag := fs.String("cpuprofile", "", "write the harness's own CPU profile (client and upstream) to `file`")
	fs.Func("peer", "another proxy to compare, `NAME=COMMAND` with {upstream} and {port} in COMMAND (repeatable)", func(s string) error {
		name, cmd, ok := strings.Cut(s, "=")
		if !ok || name == "" || !strings.Contains(cmd, "{port}") {
			return errors.New("want NAME=COMMAND with {port} (and usually {upstream}) in COMMAND")
		}
		o.peers = append(o.peers, peer{name: name, command: cmd})
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return o, "", errUsage
	}
	for _, f := range strings.Split(*streams, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "seam-bench: -streams %q: want counts such as 1,50,500\n", *streams)
			return o, "", errUsage
		}
		o.streams = append(o.streams, n)
	}
	if bare {
		self, err := os.Executable()
		if err != nil {
			return o, "", fmt.Errorf("-bare: %w", err)
		}
		o.self = self
		o.peers = append([]peer{{name: "bare proxy", argv: []string{self, bareProxyArg, "{upstream}", "127.0.0.1:{port}"}}}, o.peers...)
	}
	if _, err := exec.LookPath("mitmdump"); err == nil {
		o.peers = append(o.peers, peer{name: "mitmproxy", command: "mitmdump -q --mode reverse:{upstream} --listen-host 127.0.0.1 --listen-port {port} --set stream_large_bodies=1"})
	}
	return o, *cpuprofileFlag, nil
}

// path is one way from the client to the upstream.
type path struct {
	name  string
	start func(upstream string, i int) (*proxy, error) // nil for direct
	// tls, when set, takes the path to the TLS upstream of the forward
	// runs, else to the plain one.
	tls *tlsRoute
}

func run(ctx context.Context, o options, out io.Writer) error {
	dir, bin, cleanup, err := workDir(o)
	defer cleanup()
	if err != nil {
		return err
	}
	clock := bench.NewClock()
	up, err := bench.NewUpstream(clock)
	if err != nil {
		return err
	}
	defer up.Close()

	if o.otlp == "sink" {
		done, err := sinkOTLP(&o, out)
		if err != nil {
			return err
		}
		defer done()
	}
	groups := [][]path{benchPaths(o, dir, bin)}
	if o.forward {
		r, err := newTLSRoute(clock, dir)
		if err != nil {
			return err
		}
		defer r.up.Close()
		groups = append(groups, forwardPaths(o, r, dir, bin, o.self))
	}
	pace := "back to back"
	if o.interval > 0 {
		pace = "one every " + o.interval.String()
	}
	fmt.Fprintf(out, "seam-bench: %d content events of ~260 B per stream, %s, %s per run; client, upstream and proxy on this machine (%d CPUs, load average %s at the start)\n\n",
		o.events, pace, o.duration, runtime.NumCPU(), loadAverage())

	run := 0
	if o.gap > 0 {
		for _, paths := range groups {
			if err := delayRun(ctx, o, up, clock, paths, &run, out); err != nil {
				return err
			}
		}
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "streams\tpath\treq/s\t×direct\tTTFB p50\tTTFB p99\t×direct\tproxy CPU\tCPU/stream: harness+proxy\tproxy RSS\tRSS 1st→2nd half\tcapture/wire\t")
	failed := false
	var lives []string
	for _, n := range o.streams {
		for _, paths := range groups {
			if err := throughputRuns(ctx, o, up, clock, paths, n, &run, tw, &lives); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				failed = true
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(lives) > 0 {
		fmt.Fprintf(out, "\n%s\n", strings.Join(lives, "\n"))
	}
	if failed {
		return errors.New("some runs failed")
	}
	return nil
}

// throughputRuns runs n streams at a time through each of paths, the first
// of which is the direct path the others are compared with, and writes a
// row per path to tw and, for seam, its CPU over its life to lives. It
// says each failure on stderr and returns an error if any run failed.
func throughputRuns(ctx context.Context, o options, up *bench.Upstream, clock bench.Clock, paths []path, n int, run *int, tw io.Writer, lives *[]string) error {
	var direct runResult
	failed := false
	for _, p := range paths {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		*run++
		fmt.Fprintf(os.Stderr, "%d streams through %s…\n", n, p.name)
		load := bench.Load{Concurrency: n, Duration: o.duration, Stream: bench.Stream{Events: o.events, Interval: o.interval}}
		res, ps, check, err := through(ctx, o, up, clock, p, *run, load)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			failed = true
			fmt.Fprintf(os.Stderr, "%d streams through %s: %v\n", n, p.name, err)
			fmt.Fprintf(tw, "%d\t%s\tfailed: see above\t\n", n, p.name)
			continue
		}
		if p.start == nil {
			direct = res
		}
		fmt.Fprintln(tw, strings.Join(throughputRow(n, p, res, direct, ps, check), "\t")+"\t")
		if res.lifeCPU > 0 && res.Streams > 0 {
			*lives = append(*lives, fmt.Sprintf("%d streams, %s: %s CPU over its life for %d exchanges: %s per exchange",
				n, p.name, units.Duration(int64(res.lifeCPU)), res.Streams, units.Duration(int64(res.lifeCPU)/int64(res.Streams))))
		}
		if res.Errors > 0 {
			fmt.Fprintf(os.Stderr, "%d streams through %s: %d failed: %v\n", n, p.name, res.Errors, res.Err)
		}
	}
	if failed {
		return errors.New("some runs failed")
	}
	return nil
}

// sinkOTLP starts the OTLP endpoint the bench runs itself and points o at
// it; done stops it and says on out what it received.
func sinkOTLP(o *options, out io.Writer) (done func(), err error) {
	sink, err := startOTLPSink()
	if err != nil {
		return nil, err
	}
	o.otlp = sink.url
	return func() {
		fmt.Fprintf(out, "\nOTLP sink: %d export requests, %s\n", sink.requests.Load(), units.Bytes(sink.size.Load()))
		sink.Close()
	}, nil
}

// workDir returns the directory the runs' captures go to (-dir, or a
// temporary one that cleanup removes unless -keep) and the seam binary
// they run (-seam, or one built there).
func workDir(o options) (dir, bin string, cleanup func(), err error) {
	dir, cleanup = o.dir, func() {}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "seam-bench-"); err != nil {
			return "", "", cleanup, err
		}
		if o.keep {
			fmt.Fprintf(os.Stderr, "the captures are kept in %s\n", dir)
		} else {
			tmp := dir
			cleanup = func() { os.RemoveAll(tmp) }
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", cleanup, err
	}
	bin = o.seam
	if bin == "" {
		fmt.Fprintln(os.Stderr, "building seam…")
		if bin, err = bench.BuildSeam(dir); err != nil {
			return "", "", cleanup, err
		}
	}
	return dir, bin, cleanup, nil
}

// through starts p's proxy (if any) for one run, runs load through it with
// a fresh client, samples the proxy meanwhile, stops it and checks its
// capture.
func through(ctx context.Context, o options, up *bench.Upstream, clock bench.Clock, p path, run int, load bench.Load) (runResult, bench.ProcSummary, *bench.CaptureCheck, error) {
	var url string
	if p.tls != nil {
		url = p.tls.up.URL()
	} else {
		url = up.URL()
	}
	var px *proxy
	var via *neturl.URL
	if p.start != nil {
		var err error
		if px, err = p.start(url, run); err != nil {
			return runResult{}, bench.ProcSummary{}, nil, err
		}
		if px.forward {
			if via, err = neturl.Parse(px.url); err != nil {
				return runResult{}, bench.ProcSummary{}, nil, errors.Join(err, px.stop())
			}
		} else {
			url = px.url
		}
	}
	tr := bench.NewTransport()
	tr.MaxIdleConnsPerHost = 1024
	if p.tls != nil {
		p.tls.transport(tr, via)
	}
	hc := &http.Client{Transport: tr}
	var sampler *bench.Sampler
	if px != nil {
		sampler = bench.NewSampler(px.pid, 250*time.Millisecond)
	}
	cpu0 := bench.ProcessCPU()
	res := runResult{LoadResult: load.Run(ctx, hc, clock, url)}
	res.harnessCPU = bench.ProcessCPU() - cpu0
	tr.CloseIdleConnections()
	var ps bench.ProcSummary
	var check *bench.CaptureCheck
	if px != nil {
		samples, serr := sampler.Stop()
		ps = bench.Summarize(samples)
		if err := errors.Join(px.stop(), serr); err != nil {
			return res, ps, nil, err
		}
		if px.cpu != nil {
			res.lifeCPU = px.cpu()
		}
		if px.capture != "" {
			c, err := bench.CheckCapture(px.capture)
			if err != nil {
				return res, ps, nil, err
			}
			if c.Exchanges != res.Streams {
				return res, ps, nil, fmt.Errorf("capture holds %d exchanges, the clients read %d streams", c.Exchanges, res.Streams)
			}
			check = &c
			if !o.keep {
				os.Remove(px.capture)
			}
		}
	}
	if res.Streams == 0 && res.Err != nil {
		return res, ps, check, res.Err
	}
	return res, ps, check, ctx.Err()
}

// benchPaths lists the paths a run compares: direct, then seam record
// plain and compressed (as o asks, with the seam binary bin, writing its
// captures in dir), then the peers.
func benchPaths(o options, dir, bin string) []path {
	paths := []path{{name: "direct"}}
	seamPath := func(name, ext string, extra ...string) path {
		return path{name: name, start: func(upstream string, i int) (*proxy, error) {
			capture := filepath.Join(dir, fmt.Sprintf("run%d%s", i, ext))
			p, err := bench.StartSeamRecord(bin, upstream, capture, append(strings.Fields(o.record), extra...)...)
			if err != nil {
				return nil, err
			}
			cpu := func() time.Duration {
				st := p.Cmd.ProcessState
				return st.UserTime() + st.SystemTime()
			}
			return &proxy{url: p.URL, pid: p.Pid(), stop: p.Stop, capture: capture, cpu: cpu}, nil
		}}
	}
	if o.plain {
		paths = append(paths, seamPath("seam record", ".ndjson"))
	}
	if o.zst {
		paths = append(paths, seamPath("seam record .zst", ".ndjson.zst"))
	}
	if o.otlp != "" {
		paths = append(paths, seamPath("seam record +otlp", ".ndjson", "--otlp", o.otlp))
	}
	for _, p := range o.peers {
		paths = append(paths, path{name: p.name, start: func(upstream string, _ int) (*proxy, error) { return startPeer(p, upstream) }})
	}
	return paths
}

// delayRun sends one stream at a time with an event every o.gap through
// each path and prints the delay each proxy adds per event.
func delayRun(ctx context.Context, o options, up *bench.Upstream, clock bench.Clock, paths []path, run *int, out io.Writer) error {
	load := bench.Load{Concurrency: 1, Duration: o.duration, Stream: bench.Stream{Events: 100, Interval: o.gap}, Events: true}
	var direct []int64
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "1 stream, an event every %s\tevents\tlatency p50\tp99\tadded p50\tadded p99\t\n", o.gap)
	for _, p := range paths {
		*run++
		res, _, _, err := through(ctx, o, up, clock, p, *run, load)
		if err != nil {
			return fmt.Errorf("paced stream through %s: %w", p.name, err)
		}
		p50, p99 := dist.Percentile(res.Latency, 50), dist.Percentile(res.Latency, 99)
		row := []string{p.name, strconv.Itoa(len(res.Latency)), units.Duration(p50), units.Duration(p99), "—", "—"}
		if p.start == nil {
			direct = res.Latency
		} else {
			row[4], row[5] = added(p50-dist.Percentile(direct, 50)), added(p99-dist.Percentile(direct, 99))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	fmt.Fprintln(tw)
	return tw.Flush()
}

// loadAverage returns the one-minute load average, which says whether
// other work shares the CPUs with the run.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "unknown"
	}
	return f[0]
}

// bareProxyArg runs seam-bench as the bare reverse proxy (see -bare).
