package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// Options says how the demo runs.
type Options struct {
	// Speed scales the recorded timing the mock upstream plays (0 sends
	// at once).
	Speed float64
	// Dir is the directory for the demo's captures, whose files are never
	// overwritten; "" means seam/demo in the user's cache directory, whose
	// captures each run replaces.
	Dir string
	// Seam is the version of seam written in the captures' headers.
	Seam string
	// Hint returns the command line that runs seam with args, for the
	// commands the demo suggests next.
	Hint func(args ...string) string
}

// Run runs the demo, telling w what it does and finds.
func Run(ctx context.Context, w io.Writer, o Options) error {
	var caps []*tape.Capture
	for _, name := range append(slices.Clone(fixtures.Demo), fixtures.Incident) {
		c, err := fixtures.Load(name)
		if err != nil {
			return err
		}
		caps = append(caps, c)
	}
	incident := caps[len(caps)-1]
	caps = caps[:len(caps)-1]

	// The mock upstream: recorded exchanges at recorded timing.
	upLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("mock upstream: %w", err)
	}
	upSrv := &http.Server{Handler: replay.NewServer(append(slices.Clone(caps), incident), replay.ServerOptions{Speed: o.Speed})}
	go upSrv.Serve(upLn)
	defer upSrv.Close()
	upURL := &url.URL{Scheme: "http", Host: upLn.Addr().String()}

	dir, err := demoDir(o.Dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "seam demo: a mock upstream at %s replays real recorded streams at their\nrecorded timing (speed %g); each recorded request goes through seam's recording proxy.\n\n", upURL, o.Speed)

	// 1. Real streams through the passthrough engine.
	path, sums, err := recordThrough(ctx, o, filepath.Join(dir, demoFiles[0]), upURL, tape.Engine{Profile: shape.DefaultProfile}, caps)
	if err != nil {
		return err
	}
	printSummaries(w, sums)
	got, err := tape.ReadFile(path)
	if err != nil {
		return fmt.Errorf("the demo capture does not decode: %w", err)
	}
	fmt.Fprintf(w, "\ncapture: %s\n         %d exchanges, both sides, decoded cleanly\n", path, len(got.Exchanges))
	printInspectSummary(w, inspect.Inspect(got, inspect.Options{NoDiffs: true}))

	// 2. The incident: the real token stream through the Obsidian XML engine
	// as it ran before the fix, then replayed with the fix switched on.
	before := incident.Header.Engine
	ipath, _, err := recordThrough(ctx, o, filepath.Join(dir, demoFiles[1]), upURL, before, []*tape.Capture{incident})
	if err != nil {
		return err
	}
	ic, err := tape.ReadFile(ipath)
	if err != nil {
		return fmt.Errorf("the incident capture does not decode: %w", err)
	}
	return showIncident(ctx, w, o, ic, ipath)
}

// demoFiles are the captures a demo run writes in its directory.
var demoFiles = []string{"demo-streams.ndjson", "demo-incident.ndjson"}

// demoDir returns the directory the demo writes its captures in, made
// when missing: dir when given (where an earlier run's captures are never
// overwritten), else seam's own under the user's cache directory, the same
// one every run so runs do not pile up temporary directories, whose
// earlier captures each run replaces; or a new temporary directory when
// there is no cache directory to use.
func demoDir(dir string) (string, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("create demo directory: %w", err)
		}
		return dir, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil || os.MkdirAll(filepath.Join(cache, "seam", "demo"), 0o700) != nil {
		if dir, err = os.MkdirTemp("", "seam-demo-"); err != nil {
			return "", fmt.Errorf("create demo directory: %w", err)
		}
		return dir, nil
	}
	dir = filepath.Join(cache, "seam", "demo")
	for _, name := range demoFiles {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("replace the last demo's captures: %w", err)
		}
	}
	return dir, nil
}

// MockNote is the capture-level note on the demo's captures: their
// upstream is the demo's mock, gone when the demo ends. seam export
// recognises it.
const MockNote = "seam demo: the upstream is the demo's mock, which stopped when the demo ended"

// MockUpstream reports whether a capture with these notes was recorded by
// seam demo, against its mock upstream, now gone.
func MockUpstream(notes []tape.Note) bool {
	return slices.ContainsFunc(notes, func(n tape.Note) bool { return n.Text == MockNote })
}

// recordThrough records every exchange of caps through a recording proxy with
// engine eng in front of upstream, into a new capture at path.
func recordThrough(ctx context.Context, o Options, path string, upstream *url.URL, eng tape.Engine, caps []*tape.Capture) (string, []record.Summary, error) {
	var mu sync.Mutex
	var sums []record.Summary
	r, err := record.StartRecording(record.RecordingOptions{
		Create:    func() (io.WriteCloser, string, error) { return captures.Create(path, nil, time.Now()) },
		Header:    tape.Header{Seam: o.Seam, Engine: eng, Upstream: tape.RedactUpstream(upstream)},
		Endpoints: []*record.Endpoint{{Listen: "127.0.0.1:0", Upstream: upstream, Leg: record.Whole}},
		Note:      func([]*record.Endpoint) string { return MockNote },
		OnDone: func(s record.Summary) {
			mu.Lock()
			sums = append(sums, s)
			mu.Unlock()
		},
	})
	if err != nil {
		return "", nil, err
	}
	client := &http.Client{}
	base := "http://" + r.Endpoints()[0].Addr().String()
	var sendErr error
	for _, c := range caps {
		for _, x := range c.Exchanges {
			if err := sendRecorded(ctx, client, base, x.Request); err != nil {
				sendErr = errors.Join(sendErr, err)
			}
		}
	}
	if err := r.Stop(5*time.Second, io.Discard); err != nil {
		return "", nil, err
	}
	if ctx.Err() != nil {
		return "", nil, ctx.Err()
	}
	if sendErr != nil {
		return "", nil, sendErr
	}
	sort.Slice(sums, func(i, j int) bool { return sums[i].Ex < sums[j].Ex })
	return r.Path(), sums, nil
}

// sendRecorded sends a recorded request to base, as the original client did,
// and reads the streamed answer to the end.
func sendRecorded(ctx context.Context, client *http.Client, base string, r *tape.Request) error {
	req, err := http.NewRequestWithContext(ctx, r.Method, base+r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return fmt.Errorf("demo request %d: %w", r.Ex, err)
	}
	for _, k := range []string{"content-type", "user-agent"} {
		if v := r.Headers[k]; len(v) > 0 && v[0] != tape.Redacted {
			req.Header.Set(k, v[0])
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("demo request %d: %w", r.Ex, err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return fmt.Errorf("demo request %d: read stream: %w", r.Ex, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("demo request %d: status %s", r.Ex, resp.Status)
	}
	return nil
}

func printSummaries(w io.Writer, sums []record.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tendpoint\tstatus\toutcome\tupstream\tclient\tttfb\tduration")
	for _, s := range sums {
		fmt.Fprintf(tw, "%d\t%s %s\t%d\t%s\t%s, %d events\t%s, %d events\t%s\t%s\n",
			s.Ex, s.Method, s.Path, s.Status, s.Outcome,
			units.Bytes(s.UpstreamBytes), s.UpstreamEvents,
			units.Bytes(s.ClientBytes), s.ClientEvents,
			units.Duration(int64(s.TTFB)), units.Duration(int64(s.Duration)))
	}
	tw.Flush()
}
