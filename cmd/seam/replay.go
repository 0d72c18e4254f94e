package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
	"github.com/seam-dev/seam/visible"
)

type replayOptions struct {
	ex       int
	speed    float64
	output   string
	raw      bool
	exitCode bool
	engine   engineFlags
	faults   faultFlag
	seed     uint64
}

func (o *replayOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.ex, "ex", 0, "replay only exchange `N`")
	fs.Float64Var(&o.speed, "speed", 0, "pace by the recorded times: 1 original, N faster, 0 no waiting")
	fs.StringVar(&o.output, "o", "", "write the replayed exchanges as a capture `file` (- for stdout)")
	fs.BoolVar(&o.raw, "raw", false, "write the produced client bytes to stdout")
	fs.BoolVar(&o.exitCode, "exit-code", false, "exit 1 when the replay differs from the recording")
	fs.Var(&o.faults, "fault", "change the upstream side first with `fault`, e.g. split-rune, stall=2s@event:40 (repeatable)")
	fs.Uint64Var(&o.seed, "seed", 1, "`seed` for the positions faults pick")
	o.engine.register(fs, "the capture's engine")
}

func (o *replayOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	const example = "seam replay --set holdback=on capture.ndjson"
	if fs.NArg() != 1 {
		return &usageError{cmd: "replay", msg: "want exactly one capture", example: example}
	}
	if o.speed < 0 {
		return &usageError{cmd: "replay", msg: "--speed must be 0 or more", example: example}
	}
	if o.raw && o.output == "-" {
		return &usageError{cmd: "replay", msg: "--raw and -o - both want stdout", example: "seam replay -o replayed.ndjson --raw capture.ndjson"}
	}
	// The report goes to stdout, or to stderr when the replayed capture does.
	w := e.stdout
	if o.output == "-" {
		w = e.stderr
	}
	c, err := captures.Load(ctx, fs.Arg(0), e.open())
	if err != nil {
		return err
	}
	recorded := replay.RecordedEngine(&c.Header)
	eng, err := o.engine.resolve(&recorded)
	if err != nil {
		return &usageError{cmd: "replay", msg: err.Error(), example: example}
	}
	if o.ex != 0 {
		if _, err := captures.Exchange(c, o.ex); err != nil {
			return err
		}
	}
	out := &tape.Capture{Name: c.Name, Header: c.Header}
	out.Header.Engine = eng
	differ := 0
	if !o.raw {
		faults := ""
		if len(o.faults) > 0 {
			faults = fmt.Sprintf(" and faults %s (seed %d)", o.faults.String(), o.seed)
		}
		fmt.Fprintf(w, "replaying %s with engine %s%s\n", visible.String(c.Name), visible.String(shape.Summary(eng)), faults)
	}
	for _, x := range c.Exchanges {
		if o.ex != 0 && x.Ex != o.ex {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rx, differs, err := o.replayOne(ctx, e, w, eng, x)
		if err != nil {
			return err
		}
		if rx != nil {
			out.Exchanges = append(out.Exchanges, rx)
		}
		if differs {
			differ++
		}
	}
	if o.output != "" {
		if err := saveCapture(ctx, e, o.output, out); err != nil {
			return err
		}
	}
	if o.exitCode && differ > 0 {
		return errDiffers
	}
	return nil
}

// replayOne replays exchange x through eng and says on w how the client
// stream it produces compares with the recorded one (with --raw, writes
// its bytes to stdout instead). It returns the replayed exchange (nil when
// x has no upstream response to replay) and whether it differs.
func (o *replayOptions) replayOne(ctx context.Context, e *env, w io.Writer, eng tape.Engine, x *tape.Exchange) (*tape.Exchange, bool, error) {
	if x.Upstream.Response == nil {
		if !o.raw {
			fmt.Fprintf(w, "exchange %d: skipped, no upstream response was recorded\n", x.Ex)
		}
		return nil, false, nil
	}
	res, err := replay.Exchange(ctx, x, eng, replay.Options{Speed: o.speed, Faults: o.faults, Seed: o.seed})
	if err != nil {
		return nil, false, err
	}
	rx := res.ToExchange(x)
	if o.raw {
		_, err := e.stdout.Write(res.Body())
		return rx, false, err
	}
	differs, err := textreport.WriteReplay(w, x, rx, res)
	return rx, differs, err
}

// saveCapture writes c to spec (captures.Save) and says where.
func saveCapture(ctx context.Context, e *env, spec string, c *tape.Capture) error {
	path, err := captures.Save(ctx, spec, e.stdout, c, version)
	if err == nil && path != "stdout" {
		fmt.Fprintf(e.stderr, "wrote %s\n", path)
	}
	return err
}
