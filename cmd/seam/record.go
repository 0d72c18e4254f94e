package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/seam-dev/seam/capture"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tui"
)

// shutdownGrace is how long in-flight streams may run on after ctrl-c.
const shutdownGrace = 2 * time.Second

type recordOptions struct {
	upstream string
	listen   string
	output   string
	fsync    bool
	quiet    bool
	tui      bool
	engine   engineFlags
}

func recordCommand() *command {
	return &command{
		name:    "record",
		summary: "run the recording proxy: point a client's base URL at it",
		usage:   "seam record --upstream URL [--listen ADDR] [-o FILE|DIR] [flags]",
		help: `
Starts a reverse proxy that forwards every request to --upstream and records
both sides of every exchange into one capture file: the request, the bytes the
upstream sent and the bytes the client received, each read and write with its
offset and time, and how each side ended. Streams pass through at once; nothing
is buffered. Secret headers and query parameters never reach the file.

Point your client's base URL at the listen address, e.g. for the OpenAI SDK
OPENAI_BASE_URL=http://127.0.0.1:8080/v1 with --upstream https://api.openai.com.
Stop with ctrl-c; in-flight streams get a few seconds to finish.`,
		example: "seam record --upstream https://api.openai.com -o captures/",
		flags: func(fs *flag.FlagSet) any {
			o := &recordOptions{}
			fs.StringVar(&o.upstream, "upstream", "", "upstream base `URL` every request is forwarded to (required)")
			fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "`address` to listen on")
			fs.StringVar(&o.output, "o", "", "capture `file` or directory (default ./captures/seam-<UTC time>.ndjson; - for stdout)")
			fs.BoolVar(&o.fsync, "fsync", false, "fsync the capture after every write (durable, slower)")
			fs.BoolVar(&o.quiet, "q", false, "do not print a summary line per exchange")
			fs.BoolVar(&o.tui, "tui", false, "watch exchanges arrive in the terminal UI (q stops recording)")
			o.engine.register(fs, shape.DefaultProfile)
			return o
		},
		run: runRecord,
	}
}

func runRecord(ctx context.Context, e *env, fs *flag.FlagSet, opts any) error {
	o := opts.(*recordOptions)
	ex := "seam record --upstream https://api.openai.com"
	if fs.NArg() > 0 {
		return &usageError{cmd: "record", msg: fmt.Sprintf("unexpected argument %q (flags go before arguments)", fs.Arg(0)), example: ex}
	}
	if o.upstream == "" {
		return &usageError{cmd: "record", msg: "--upstream is required", example: ex}
	}
	up, err := parseUpstream(o.upstream)
	if err != nil {
		return &usageError{cmd: "record", msg: err.Error(), example: ex}
	}
	eng, err := o.engine.resolve(nil)
	if err != nil {
		return &usageError{cmd: "record", msg: err.Error(), example: "seam record --upstream URL --profile obsidian-xml --set holdback=on"}
	}
	if o.tui && (o.output == "-" || !tui.IsTerminal(e.stdout)) {
		return &usageError{cmd: "record", msg: "--tui needs a terminal on stdout and a capture file (not -o -)", example: "seam record --tui --upstream https://api.openai.com"}
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()

	out, path, err := openCapture(o.output, e.stdout, time.Now())
	if err != nil {
		return err
	}
	start := time.Now()
	w := tape.NewWriter(out, tape.WriterOptions{Sync: o.fsync})
	w.Header(newHeader(start, up, eng))

	var count atomic.Int64
	rec, err := capture.New(capture.Options{
		Upstream: up, Engine: eng, Writer: w, Start: start,
		OnDone: func(s capture.Summary) {
			count.Add(1)
			if !o.quiet && !o.tui {
				fmt.Fprintln(e.stderr, s.String())
			}
		},
	})
	if err != nil {
		w.Close()
		out.Close()
		return err
	}
	fmt.Fprintf(e.stderr, "listening on http://%s → %s\n", ln.Addr(), redactURL(up))
	fmt.Fprintf(e.stderr, "capturing to %s (engine %s)\n", path, engineSummary(eng))

	srv := &http.Server{Handler: rec, ReadHeaderTimeout: 30 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	var runErr error
	var tuiDone chan error // nil without --tui: never ready
	tuiCtx, stopTUI := context.WithCancel(ctx)
	defer stopTUI()
	if o.tui {
		// The TUI follows the capture as it grows; quitting it stops recording.
		tuiDone = make(chan error, 1)
		go func() {
			tuiDone <- tui.Run(tuiCtx, tui.Options{Paths: []string{path}, Follow: true, In: e.stdin, Out: e.stdout, NoColor: e.getenv("NO_COLOR") != ""})
		}()
	}
	stopped := true
	select {
	case err := <-serveErr:
		runErr = fmt.Errorf("serve: %w", err)
		stopped = false
	case <-ctx.Done():
		runErr = errInterrupted
	case err := <-tuiDone:
		tuiDone = nil
		if errors.Is(err, tui.ErrInterrupted) {
			err = errInterrupted
		}
		runErr = err
	}
	if tuiDone != nil {
		stopTUI() // give the terminal back before printing
		<-tuiDone
	}
	if stopped {
		// Give in-flight streams a moment to finish, then cut them; either
		// way each one is recorded to its end before the file is closed.
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		if err := srv.Shutdown(sctx); err != nil {
			fmt.Fprintf(e.stderr, "cutting streams still open after %s\n", shutdownGrace)
			srv.Close()
		}
		cancel()
	}
	rec.Wait()
	werr := w.Close()
	cerr := out.Close()
	fmt.Fprintf(e.stderr, "%d exchanges recorded to %s\n", count.Load(), path)
	return errors.Join(runErr, werr, cerr)
}

// parseUpstream checks that raw is an absolute http(s) URL.
func parseUpstream(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("--upstream %q: %v", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--upstream %q: want an absolute http or https URL such as https://api.openai.com", raw)
	}
	return u, nil
}

// redactURL drops credentials and the query from u for display and headers.
func redactURL(u *url.URL) string {
	v := *u
	v.User = nil
	v.RawQuery = ""
	return v.String()
}

func newHeader(start time.Time, up *url.URL, eng tape.Engine) tape.Header {
	var id [8]byte
	rand.Read(id[:])
	return tape.Header{
		V: tape.Version, Seam: version, ID: hex.EncodeToString(id[:]),
		Started: start.UTC(), Upstream: redactURL(up), Engine: eng,
	}
}

// openCapture opens where a new capture goes. spec is a file, a directory
// (existing, or ending in a slash), "-" for stdout, or "" for the default
// ./captures/ directory. It never overwrites an existing file.
func openCapture(spec string, stdout io.Writer, now time.Time) (io.WriteCloser, string, error) {
	if spec == "-" {
		return nopCloser{stdout}, "stdout", nil
	}
	name := "seam-" + now.UTC().Format("20060102T150405Z") + ".ndjson"
	path := spec
	switch {
	case spec == "":
		path = filepath.Join("captures", name)
	case strings.HasSuffix(spec, "/") || strings.HasSuffix(spec, string(os.PathSeparator)):
		path = filepath.Join(spec, name)
	default:
		if st, err := os.Stat(spec); err == nil && st.IsDir() {
			path = filepath.Join(spec, name)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, "", fmt.Errorf("create capture directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, "", fmt.Errorf("capture %s already exists; choose another -o", path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("create capture: %w", err)
	}
	return f, path, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
