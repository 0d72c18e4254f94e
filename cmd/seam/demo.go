package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
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

	"github.com/seam-dev/seam/capture"
	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

type demoOptions struct {
	speed  float64
	output string
}

func demoCommand() *command {
	return &command{
		name:    "demo",
		summary: "record embedded real streams through the proxy, offline, and summarise them",
		usage:   "seam demo [--speed N] [-o DIR]",
		help:    demoHelp,
		example: "seam demo --speed 4",
		new:     func() runner { return &demoOptions{} },
	}
}

// demoHelp is the text of "seam help demo".
const demoHelp = `
Runs seam end to end with no network and no API key. A mock upstream on
127.0.0.1 plays real recorded streams (OpenAI Chat Completions with parallel
tool calls, Anthropic Messages with tool use, OpenAI Responses) at their
recorded timing; a demo client sends each recorded request through the real
recording proxy on 127.0.0.1; the proxy writes a capture file. seam then
prints a summary per exchange, checks that the capture decodes and inspects it.

Then the incident that started seam: the real token stream of an Obsidian
Copilot tool call goes through the Obsidian XML engine as the shaping proxy
ran it before its fix (holdback=off). inspect finds "</use_tool<use_tool>"
in the assembled message, which no single delta contains, and names the
client event where it was born; a replay with the fix switched on
(holdback=on) shows it gone, as a diff.`

func (o *demoOptions) flags(fs *flag.FlagSet) {
	fs.Float64Var(&o.speed, "speed", 1, "playback speed of the recorded timing (0 sends at once)")
	fs.StringVar(&o.output, "o", "", "`directory` for the demo's captures (default: a new temporary directory)")
}

func (o *demoOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return &usageError{cmd: "demo", msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), example: "seam demo"}
	}
	if o.speed < 0 {
		return &usageError{cmd: "demo", msg: "--speed must be 0 or more", example: "seam demo --speed 4"}
	}
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
	upSrv := &http.Server{Handler: replay.NewServer(append(slices.Clone(caps), incident), replay.ServerOptions{Speed: o.speed})}
	go upSrv.Serve(upLn)
	defer upSrv.Close()
	upURL := &url.URL{Scheme: "http", Host: upLn.Addr().String()}

	dir := o.output
	if dir == "" {
		if dir, err = os.MkdirTemp("", "seam-demo-"); err != nil {
			return fmt.Errorf("create demo directory: %w", err)
		}
	}
	fmt.Fprintf(e.stdout, "seam demo: a mock upstream at %s replays real recorded streams at their\nrecorded timing (speed %g); each recorded request goes through seam's recording proxy.\n\n", upURL, o.speed)

	// 1. Real streams through the passthrough engine.
	path, sums, err := recordDemo(ctx, filepath.Join(dir, "demo-streams.ndjson"), upURL, tape.Engine{Profile: shape.DefaultProfile}, caps)
	if err != nil {
		return err
	}
	printSummaries(e.stdout, sums)
	got, err := tape.ReadFile(path)
	if err != nil {
		return fmt.Errorf("the demo capture does not decode: %w", err)
	}
	fmt.Fprintf(e.stdout, "\ncapture: %s\n         %d exchanges, both sides, decoded cleanly\n", path, len(got.Exchanges))
	printInspectSummary(e.stdout, inspect.Inspect(got, inspect.Options{NoDiffs: true}))

	// 2. The incident: the real token stream through the Obsidian XML engine
	// as it ran before the fix, then replayed with the fix switched on.
	before := incident.Header.Engine
	ipath, _, err := recordDemo(ctx, filepath.Join(dir, "demo-incident.ndjson"), upURL, before, []*tape.Capture{incident})
	if err != nil {
		return err
	}
	ic, err := tape.ReadFile(ipath)
	if err != nil {
		return fmt.Errorf("the incident capture does not decode: %w", err)
	}
	return showIncident(ctx, e, ic, ipath)
}

// demoMockNote is the capture-level note on the demo's captures: their
// upstream is the demo's mock, gone when the demo ends. seam export
// recognises it.
const demoMockNote = "seam demo: the upstream is the demo's mock, which stopped when the demo ended"

// recordDemo records every exchange of caps through a recording proxy with
// engine eng in front of upstream, into a new capture at path.
func recordDemo(ctx context.Context, path string, upstream *url.URL, eng tape.Engine, caps []*tape.Capture) (string, []capture.Summary, error) {
	var mu sync.Mutex
	var sums []capture.Summary
	r, err := capture.StartRecording(capture.RecordingOptions{
		Create:    func() (io.WriteCloser, string, error) { return captures.Create(path, nil, time.Now()) },
		Header:    recordHeader(upstream, eng, false),
		Endpoints: []*capture.Endpoint{{Listen: "127.0.0.1:0", Upstream: upstream, Leg: capture.Whole}},
		Note:      func([]*capture.Endpoint) string { return demoMockNote },
		OnDone: func(s capture.Summary) {
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

func countExchanges(caps []*tape.Capture) int {
	n := 0
	for _, c := range caps {
		n += len(c.Exchanges)
	}
	return n
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

func printSummaries(w io.Writer, sums []capture.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tendpoint\tstatus\toutcome\tupstream\tclient\tttfb\tduration")
	for _, s := range sums {
		fmt.Fprintf(tw, "%d\t%s %s\t%d\t%s\t%s, %d events\t%s, %d events\t%s\t%s\n",
			s.Ex, s.Method, s.Path, s.Status, s.Outcome,
			capture.Bytes(s.UpstreamBytes), s.UpstreamEvents,
			capture.Bytes(s.ClientBytes), s.ClientEvents,
			capture.Millis(s.TTFB), capture.Millis(s.Duration))
	}
	tw.Flush()
}
