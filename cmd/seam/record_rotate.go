package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/seam-dev/seam/bucket"
	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/otlpexport"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/visible"
)

// shipFlags are seam record's flags for a recorder that runs for long:
// --rotate splits the capture into files, --upload ships each closed file
// to an object store.
type shipFlags struct {
	rotate       rotateFlag
	upload       string
	uploadDelete bool
	uploadWait   time.Duration

	// shipping is where the capture goes; nil without --rotate and
	// --upload.
	shipping *captures.Shipping
}

// rotateFlag is --rotate: a size, a duration, or both (the flag given
// twice).
type rotateFlag struct {
	size  int64
	every time.Duration
}

func (f *rotateFlag) String() string {
	var s []string
	if f.size > 0 {
		s = append(s, units.Bytes(f.size))
	}
	if f.every > 0 {
		s = append(s, f.every.String())
	}
	return strings.Join(s, " or ")
}

func (f *rotateFlag) Set(v string) error {
	if d, err := time.ParseDuration(v); err == nil {
		if d <= 0 {
			return fmt.Errorf("%q: want a duration above zero, such as 1h", v)
		}
		f.every = d
		return nil
	}
	n, err := units.ParseBytes(v)
	if err != nil {
		return fmt.Errorf("want a size such as 64MiB or a duration such as 1h: %v", err)
	}
	if n < 1 {
		return fmt.Errorf("%q: want a size above zero, such as 64MiB", v)
	}
	f.size = n
	return nil
}

func (s *shipFlags) register(fs *flag.FlagSet) {
	fs.Var(&s.rotate, "rotate", "a new capture file every `SIZE|DURATION` (64MiB, 1h; see above)")
	fs.StringVar(&s.upload, "upload", "", "upload each closed file to `URI` s3://bucket/prefix (see above)")
	fs.BoolVar(&s.uploadDelete, "upload-delete", false, "delete a local file once its upload is verified")
	fs.DurationVar(&s.uploadWait, "upload-wait", time.Minute, "once stopped, go on uploading for up to `DURATION`")
}

// on reports whether the capture is split or uploaded.
func (s *shipFlags) on() bool { return s.rotate.size > 0 || s.rotate.every > 0 || s.upload != "" }

// apply sets cfg up to split the capture into files and upload them, as
// the flags say, for the -o spec output. Uploading starts here: first the
// files a previous run in the same directory left to upload.
func (s *shipFlags) apply(e *env, output string, cfg *record.RecordingOptions) error {
	if !s.on() {
		if s.uploadDelete {
			return &usageError{cmd: "record", msg: "--upload-delete applies to --upload", example: "seam record --upstream URL --upload s3://bucket/prefix --upload-delete"}
		}
		return nil
	}
	if output == "-" {
		return &usageError{cmd: "record", msg: "--rotate and --upload write capture files: -o names a file or a directory, not stdout", example: "seam record --upstream URL --rotate 1h -o captures/"}
	}
	o := captures.ShipOptions{Output: output, Size: s.rotate.size, Every: s.rotate.every, Delete: s.uploadDelete,
		Log: func(line string) { fmt.Fprintln(e.stderr, visible.String(line)) }}
	if s.upload != "" {
		ex := "seam record --upstream URL --upload s3://bucket/prefix"
		target, err := bucket.Parse(s.upload)
		if err != nil {
			return &usageError{cmd: "record", msg: "--upload: " + err.Error(), example: ex}
		}
		addr, err := bucket.ParseAddressing(e.getenv("SEAM_S3_ADDRESSING"))
		if err != nil {
			return &usageError{cmd: "record", msg: "SEAM_S3_ADDRESSING: " + err.Error(), example: "SEAM_S3_ADDRESSING=path " + ex}
		}
		o.Store, o.Target = bucket.NewStore(addr), target
	}
	var err error
	s.shipping, err = captures.Ship(context.Background(), o, cfg)
	return err
}

// announce says, once the recording listens, how its capture is split and
// shipped.
func (s *shipFlags) announce(e *env) {
	if s.shipping == nil {
		return
	}
	for _, line := range s.shipping.Notices() {
		fmt.Fprintf(e.stderr, "seam: %s\n", visible.String(line))
	}
}

// captureURI names the capture file path for others (an exported span's
// capture URI): its object's s3:// URI when seam uploads it, else its
// file: URI.
func (s *shipFlags) captureURI(path string) string {
	if uri := s.shipping.Object(path); uri != "" {
		return uri
	}
	return otlpexport.FileURI(path)
}

// finish waits for the uploads once the recording has stopped and says
// what was uploaded and what was not, which is an error: those files are
// kept, and the next seam record --upload in the same directory sends
// them.
func (s *shipFlags) finish(e *env) error {
	if s.shipping == nil {
		return nil
	}
	return s.shipping.Finish(s.uploadWait, func(line string) { fmt.Fprintln(e.stderr, visible.String(line)) })
}
