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
	"sort"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/seam-dev/seam/capture"
	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/replay"
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
		usage:   "seam demo [--speed N] [-o FILE|DIR]",
		help: `
Runs seam end to end with no network and no API key. A mock upstream on
127.0.0.1 plays real recorded streams (OpenAI Chat Completions with parallel
tool calls, Anthropic Messages with tool use, OpenAI Responses) at their
recorded timing; a demo client sends each recorded request through the real
recording proxy on 127.0.0.1; the proxy writes a capture file. seam then
prints a summary per exchange and checks that the capture decodes.`,
		example: "seam demo --speed 4",
		flags: func(fs *flag.FlagSet) any {
			o := &demoOptions{}
			fs.Float64Var(&o.speed, "speed", 1, "playback speed of the recorded timing (0 sends at once)")
			fs.StringVar(&o.output, "o", "", "capture `file` or directory (default: a new temporary directory)")
			return o
		},
		run: runDemo,
	}
}

func runDemo(ctx context.Context, e *env, fs *flag.FlagSet, opts any) error {
	o := opts.(*demoOptions)
	if fs.NArg() > 0 {
		return &usageError{cmd: "demo", msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), example: "seam demo"}
	}
	if o.speed < 0 {
		return &usageError{cmd: "demo", msg: "--speed must be 0 or more", example: "seam demo --speed 4"}
	}
	var caps []*tape.Capture
	for _, name := range fixtures.Demo {
		c, err := fixtures.Load(name)
		if err != nil {
			return err
		}
		caps = append(caps, c)
	}

	// The mock upstream: recorded exchanges at recorded timing.
	upLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("mock upstream: %w", err)
	}
	upSrv := &http.Server{Handler: replay.NewServer(caps, replay.ServerOptions{Speed: o.speed})}
	go upSrv.Serve(upLn)
	defer upSrv.Close()
	upURL := &url.URL{Scheme: "http", Host: upLn.Addr().String()}

	// The recording proxy in front of it.
	spec := o.output
	if spec == "" {
		dir, err := os.MkdirTemp("", "seam-demo-")
		if err != nil {
			return fmt.Errorf("create demo directory: %w", err)
		}
		spec = dir + string(os.PathSeparator)
	}
	out, path, err := openCapture(spec, e.stdout, time.Now())
	if err != nil {
		return err
	}
	start := time.Now()
	w := tape.NewWriter(out, tape.WriterOptions{})
	w.Header(newHeader(start, upURL, tape.Engine{Profile: "passthrough"}))
	var mu sync.Mutex
	var sums []capture.Summary
	rec, err := capture.New(capture.Options{
		Upstream: upURL, Writer: w, Start: start,
		OnDone: func(s capture.Summary) {
			mu.Lock()
			sums = append(sums, s)
			mu.Unlock()
		},
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	srv := &http.Server{Handler: rec}
	go srv.Serve(ln)

	fmt.Fprintf(e.stdout, "seam demo: %d recorded exchanges, replayed by a mock upstream at %s (speed %g),\n", countExchanges(caps), upURL, o.speed)
	fmt.Fprintf(e.stdout, "sent through the recording proxy at http://%s\n\n", ln.Addr())

	client := &http.Client{}
	base := "http://" + ln.Addr().String()
	var sendErr error
	for _, c := range caps {
		for _, x := range c.Exchanges {
			if err := sendRecorded(ctx, client, base, x.Request); err != nil {
				sendErr = errors.Join(sendErr, err)
			}
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	srv.Shutdown(sctx)
	cancel()
	rec.Wait()
	if err := errors.Join(w.Close(), out.Close()); err != nil {
		return fmt.Errorf("write capture: %w", err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if sendErr != nil {
		return sendErr
	}

	sort.Slice(sums, func(i, j int) bool { return sums[i].Ex < sums[j].Ex })
	printSummaries(e.stdout, sums)
	got, err := tape.ReadFile(path)
	if err != nil {
		return fmt.Errorf("the demo capture does not decode: %w", err)
	}
	fmt.Fprintf(e.stdout, "\ncapture: %s\n         %d exchanges, both sides, decoded cleanly", path, len(got.Exchanges))
	if n := len(got.Warnings); n > 0 {
		fmt.Fprintf(e.stdout, " with %d warnings", n)
	}
	fmt.Fprintln(e.stdout)
	return nil
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
