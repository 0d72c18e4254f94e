package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seam-dev/seam/bench"
	"github.com/seam-dev/seam/internal/units"
)

// readModeArg runs seam-bench's reading mode (see readMain).
const readModeArg = "read"

const readUsage = `Usage: seam-bench read [flags]

Times seam's reading commands on a v3 capture of realistic exchanges, each
as its own process with the built binary: "seam inspect --json", "seam
stats" and "seam grep PATTERN", on the capture and on its .ndjson.zst copy.
For each run it prints the wall time, the child's CPU time (user+sys), MB/s
of capture (plain bytes) on both, the child's peak resident set, and the
SHA-256 of what the command printed (the same before and after a change that
must not change the output).

The capture is made unless -capture names one: agent sessions whose requests
carry their growing history (system prompt, tool definitions, tool results)
in the protocol families of fixtures/ (OpenAI Chat and compatible, Anthropic,
Responses, Gemini, Cohere, Ollama NDJSON, Bedrock event-stream), each
response a recorded stream from fixtures/ cut into reads as a network cuts
them, both sides written by tape.Writer as seam record writes them
(passthrough: the client's chunk mirrored on the upstream's line; one
exchange in ten with a client side of its own), four exchanges in flight at
a time. It is the same for the same -seed and -size.

  go run ./cmd/seam-bench read                       # a 1 GB capture, each command twice
  go run ./cmd/seam-bench read -keep -dir /tmp/rb    # keep it (and reuse it next time)
  go run ./cmd/seam-bench read -capture x.ndjson -seam ./seam-old

Flags:
`

type readOptions struct {
	size     int64
	seed     uint64
	dir      string
	capture  string
	fixtures string
	seam     string
	repeat   int
	zst      bool
	keep     bool
	pattern  string
	only     string
}

// readMain is seam-bench read: it parses args and runs the reading
// benchmark, returning the exit status.
func readMain(args []string) int {
	o := readOptions{}
	fs := flag.NewFlagSet("seam-bench read", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), readUsage); fs.PrintDefaults() }
	size := fs.String("size", "1GB", "size of the capture to make (at least)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the generated capture")
	fs.StringVar(&o.dir, "dir", "", "directory for the capture (default: a temporary one); a capture of the same size and seed already there is reused")
	fs.StringVar(&o.capture, "capture", "", "time this capture instead of making one")
	fs.StringVar(&o.fixtures, "fixtures", "fixtures", "the repository's fixtures directory")
	fs.StringVar(&o.seam, "seam", "", "seam binary to time (default: build ./cmd/seam)")
	fs.IntVar(&o.repeat, "repeat", 2, "runs of each command")
	fs.BoolVar(&o.zst, "zst", true, "time the .ndjson.zst copy too")
	fs.BoolVar(&o.keep, "keep", false, "keep the generated capture")
	fs.StringVar(&o.pattern, "pattern", "parser|pkg7/file_1[0-9]\\.go", "the pattern seam grep searches for")
	fs.StringVar(&o.only, "only", "", "time only these commands, comma-separated (inspect, stats, grep)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	n, err := units.ParseBytes(*size)
	if err != nil || n <= 0 {
		fmt.Fprintf(os.Stderr, "seam-bench read: -size %q: want a size such as 1GB or 400MB\n", *size)
		return 2
	}
	o.size = n
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := readRun(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "seam-bench read:", err)
		return 1
	}
	return 0
}

func readRun(ctx context.Context, o readOptions, out io.Writer) error {
	dir := o.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "seam-bench-read-")
		if err != nil {
			return err
		}
		if o.keep {
			fmt.Fprintf(os.Stderr, "the capture is kept in %s\n", tmp)
		} else {
			defer os.RemoveAll(tmp)
		}
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin := o.seam
	if bin == "" {
		fmt.Fprintln(os.Stderr, "building seam…")
		var err error
		if bin, err = bench.BuildSeam(dir); err != nil {
			return err
		}
	}
	inputs, err := readInputs(o, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seam-bench read: %s (%s, %d CPUs, load average %s at the start)\n\n", inputs[0].path, units.Bytes(inputs[0].plain), runtime.NumCPU(), loadAverage())
	cmds := [][]string{{"inspect", "--json"}, {"stats"}, {"grep", o.pattern}}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "command\tinput\twall\tCPU\tMB/s wall\tMB/s CPU\tpeak RSS\toutput\toutput SHA-256\t")
	for _, c := range cmds {
		if o.only != "" && !strings.Contains(","+o.only+",", ","+c[0]+",") {
			continue
		}
		for _, in := range inputs {
			for range o.repeat {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r, err := timeCommand(ctx, bin, append(append([]string(nil), c...), in.path))
				if err != nil {
					return err
				}
				mb := float64(in.plain) / 1e6
				row := fmt.Sprintf("seam %s\t%s\t%.2fs\t%.2fs\t%.0f\t%.0f\t%s\t%s\t%s\t", strings.Join(c, " "), in.kind,
					r.wall.Seconds(), r.cpu.Seconds(), mb/r.wall.Seconds(), mb/r.cpu.Seconds(), units.Bytes(r.rss), units.Bytes(r.outBytes), r.sum[:16])
				fmt.Fprintln(os.Stderr, strings.ReplaceAll(row, "\t", "  "))
				fmt.Fprintln(tw, row)
			}
		}
	}
	return tw.Flush()
}

// readInput is a capture to time: its path, its kind (plain or .zst) and
// its plain size, which MB/s counts.
type readInput struct {
	path, kind string
	plain      int64
}

// readInputs returns the capture to time, made in dir unless o names one,
// and its .ndjson.zst copy when o asks for it.
func readInputs(o readOptions, dir string) ([]readInput, error) {
	path := o.capture
	if path == "" {
		path = filepath.Join(dir, readCaptureName)
		stamp := path + ".made"
		want := fmt.Sprintf("size %d seed %d format %d\n", o.size, o.seed, genFormat)
		if b, err := os.ReadFile(stamp); err != nil || string(b) != want {
			fmt.Fprintf(os.Stderr, "making a %s capture in %s…\n", units.Bytes(o.size), dir)
			t0 := time.Now()
			n, ex, err := genCapture(path, o.fixtures, o.size, o.seed)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(os.Stderr, "made %s, %d exchanges, in %s\n", units.Bytes(n), ex, time.Since(t0).Round(time.Second))
			os.Remove(path + ".zst")
			if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
				return nil, err
			}
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	inputs := []readInput{{path: path, kind: "plain", plain: st.Size()}}
	if o.zst && !strings.HasSuffix(path, ".zst") {
		zpath := path + ".zst"
		if zs, err := os.Stat(zpath); err != nil || zs.ModTime().Before(st.ModTime()) {
			fmt.Fprintln(os.Stderr, "compressing it…")
			if err := compressCapture(path, zpath); err != nil {
				return nil, err
			}
		}
		inputs = append(inputs, readInput{path: zpath, kind: ".zst", plain: st.Size()})
	}
	return inputs, nil
}

// genFormat numbers the generator's output: a change to what genCapture
// writes bumps it, so a kept capture is made again.
const genFormat = 1

// commandRun is what one run of a seam command took.
type commandRun struct {
	wall, cpu time.Duration
	rss       int64
	outBytes  int64
	sum       string
}

// timeCommand runs bin with args, its output hashed and counted, and
// returns its wall and CPU time and its peak resident set.
func timeCommand(ctx context.Context, bin string, args []string) (commandRun, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	h := &countingHash{h: sha256.New()}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = h, &stderr
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: findings, or no match
		return commandRun{}, fmt.Errorf("seam %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	st := cmd.ProcessState
	return commandRun{wall: wall, cpu: st.UserTime() + st.SystemTime(), rss: peakRSS(st), outBytes: h.n, sum: hex.EncodeToString(h.h.Sum(nil))}, nil
}

// countingHash hashes and counts what is written to it.
type countingHash struct {
	h hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}
