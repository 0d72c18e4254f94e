package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/seam-dev/seam/otlpexport"
	"github.com/seam-dev/seam/record"
)

// otlpClose is how long a command waits, as it ends, for the spans still
// queued to go out.
const otlpClose = 15 * time.Second

// otlpFlags are the flags of the commands that export OTLP: --otlp and
// --otlp-content.
type otlpFlags struct {
	url     string
	content bool
}

func (f *otlpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "otlp", "", "send each exchange as an OpenTelemetry GenAI span to the OTLP endpoint at `URL` (e.g. http://127.0.0.1:4318; OTEL_EXPORTER_OTLP_ENDPOINT does the same)")
	fs.BoolVar(&f.content, "otlp-content", false, "with OTLP export, also send the messages (after seam's redaction); off by default")
}

// exporter returns the OTLP exporter the flags and the OTEL_* environment
// ask for, or nil when export is off. log hears, once, that spans are
// being dropped (nil: nowhere).
func (f *otlpFlags) exporter(ctx context.Context, e *env, cmd string, log io.Writer) (*otlpexport.Exporter, error) {
	cfg, on, err := otlpexport.FromEnv(e.getenv, f.url)
	if err != nil {
		return nil, &usageError{cmd: cmd, msg: err.Error(), example: "seam " + cmd + " --otlp http://127.0.0.1:4318 ..."}
	}
	if !on {
		if f.content {
			return nil, &usageError{cmd: cmd, msg: "--otlp-content applies with --otlp URL or OTEL_EXPORTER_OTLP_ENDPOINT", example: "seam " + cmd + " --otlp http://127.0.0.1:4318 --otlp-content ..."}
		}
		return nil, nil
	}
	cfg.Content, cfg.Log, cfg.Version = f.content, log, version
	return otlpexport.New(ctx, cfg)
}

// startOTLP starts exporting what the recording cfg sets up records to
// output (-o) when the flags or the environment ask for it, and hooks
// the export to cfg; nil when they do not. uri names each capture file
// for the spans (nil: its file: URI). Call it before the recording
// starts.
func startOTLP(ctx context.Context, e *env, f *otlpFlags, cmd, output string, uri func(string) string, cfg *record.RecordingOptions, log io.Writer) (*otlpexport.Live, error) {
	x, err := f.exporter(ctx, e, cmd, log)
	if x == nil || err != nil {
		return nil, err
	}
	if output == "-" {
		x.Close(ctx)
		return nil, &usageError{cmd: cmd, msg: "OTLP spans point at the capture file that holds each exchange: give -o a file or directory, not -", example: "seam " + cmd + " --otlp http://127.0.0.1:4318 -o captures/ ..."}
	}
	l := otlpexport.NewLive(x, otlpexport.LiveOptions{URI: uri})
	l.Hook(cfg)
	return l, nil
}

// stopOTLP ends the live export l (nil: none) once the recording stopped,
// sending what is queued, and says how many spans went out and were
// dropped.
func stopOTLP(e *env, l *otlpexport.Live) {
	if l != nil {
		fmt.Fprintln(e.stderr, l.Close(otlpClose))
	}
}
