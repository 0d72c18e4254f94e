package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

	// uploader ships the closed files to target; nil without --upload.
	uploader *bucket.Uploader
	target   bucket.Location
	// said is what announce says.
	said []string
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
	// An uploaded capture is compressed: a few percent of the plain size.
	ext := ".ndjson"
	if s.upload != "" {
		ext = ".ndjson.zst"
	}
	start := time.Now().Truncate(time.Second)
	rotating := s.rotate.size > 0 || s.rotate.every > 0
	name := func() string {
		if rotating {
			return captures.PartPath(output, start, 1, ext)
		}
		return captures.NewPath(output, start, ext)
	}
	// A run restarted within the second (a supervisor restarting seam at
	// once) names its files after the next free second, so its names
	// still sort after the last run's.
	for i := 0; i < 60 && exists(name()); i++ {
		start = start.Add(time.Second)
	}
	first := name()
	if s.upload != "" {
		if err := s.startUpload(e, filepath.Dir(first)); err != nil {
			return err
		}
		cfg.OnClosed = func(path string, err error) {
			if err != nil {
				fmt.Fprintf(e.stderr, "seam: %s; uploading what the file holds\n", visible.String(err.Error()))
			}
			s.uploader.Add(path)
		}
	}
	create := func(path string) (io.WriteCloser, string, error) {
		f, err := captures.CreateFile(path)
		if err != nil {
			return nil, "", err
		}
		if s.uploader != nil {
			if err := s.uploader.Prepare(path); err != nil {
				f.Close()
				return nil, "", err
			}
		}
		return f, path, nil
	}
	if rotating {
		cfg.Rotate = record.Rotation{Size: s.rotate.size, Every: s.rotate.every,
			Create: func(n int) (io.WriteCloser, string, error) {
				return create(captures.PartPath(output, start, n, ext))
			},
			Empty: func(path string) {
				os.Remove(path)
				os.Remove(path + bucket.MarkerExt)
			}}
	} else {
		cfg.Create = func() (io.WriteCloser, string, error) { return create(first) }
	}
	second := ""
	if rotating {
		second = captures.PartPath(output, start, 2, ext)
	}
	s.said = append([]string{s.describe(first, second)}, s.said...)
	return nil
}

// describe says how the capture is split (first and second are its first
// two files; second is "" when it is not split) and where it is shipped.
func (s *shipFlags) describe(first, second string) string {
	var what []string
	if second != "" {
		what = append(what, fmt.Sprintf("a new capture file every %s (%s, %s, ...)", &s.rotate,
			visible.String(filepath.Base(first)), visible.String(filepath.Base(second))))
	}
	if s.upload != "" {
		keep := "kept here"
		if s.uploadDelete {
			keep = "deleted here once verified"
		}
		what = append(what, fmt.Sprintf("each closed file uploaded to %s (%s)", visible.String(s.target.String()), keep))
	}
	return strings.Join(what, "; ")
}

// announce says, once the recording listens, how its capture is split and
// shipped.
func (s *shipFlags) announce(e *env) {
	for _, line := range s.said {
		fmt.Fprintf(e.stderr, "seam: %s\n", line)
	}
}

// startUpload checks --upload and the credentials, starts the uploader
// and queues what a previous run left in dir.
func (s *shipFlags) startUpload(e *env, dir string) error {
	ex := "seam record --upstream URL --upload s3://bucket/prefix"
	target, err := bucket.Parse(s.upload)
	s.target = target
	if err != nil {
		return &usageError{cmd: "record", msg: "--upload: " + err.Error(), example: ex}
	}
	addr, err := bucket.ParseAddressing(e.getenv("SEAM_S3_ADDRESSING"))
	if err != nil {
		return &usageError{cmd: "record", msg: "SEAM_S3_ADDRESSING: " + err.Error(), example: "SEAM_S3_ADDRESSING=path " + ex}
	}
	store := bucket.NewStore(addr)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := store.CheckCredentials(ctx); err != nil {
		return fmt.Errorf("--upload %s: %w", target, err)
	}
	if err := store.CheckBucket(ctx, target); err != nil {
		s.said = append(s.said, fmt.Sprintf("warning: --upload: cannot reach %s yet (%v): recording goes on, uploads are retried", visible.String(target.String()), visible.String(err.Error())))
	}
	s.uploader = bucket.NewUploader(bucket.UploaderOptions{Store: store, Target: target, Delete: s.uploadDelete,
		Log: func(line string) { fmt.Fprintln(e.stderr, visible.String(line)) }})
	left, cut, err := s.uploader.Resume(dir)
	if err != nil {
		s.said = append(s.said, fmt.Sprintf("warning: --upload: %v", visible.String(err.Error())))
	}
	if len(left) > 0 {
		line := fmt.Sprintf("uploading %s a previous run left in %s", files(len(left)), visible.String(dir))
		if cut > 0 {
			line += fmt.Sprintf(" (%d of them still being written when it ended: read up to the cut)", cut)
		}
		s.said = append(s.said, line)
	}
	return nil
}

// captureURI names the capture file path for others (an exported span's
// capture URI): its object's s3:// URI when seam uploads it, else its
// file: URI.
func (s *shipFlags) captureURI(path string) string {
	if s.uploader == nil {
		return otlpexport.FileURI(path)
	}
	return s.uploader.Object(path).String()
}

// finish waits for the uploads once the recording has stopped and says
// what was uploaded and what was not, which is an error: those files are
// kept, and the next seam record --upload in the same directory sends
// them.
func (s *shipFlags) finish(e *env) error {
	if s.uploader == nil {
		return nil
	}
	target := s.target
	if n := s.uploader.Queued(); n > 0 {
		fmt.Fprintf(e.stderr, "seam: uploading %s to %s (ctrl-c again to leave them for the next run)\n", files(n), visible.String(target.String()))
	}
	rep := s.uploader.Finish(s.uploadWait)
	line := fmt.Sprintf("%s (%s) uploaded to %s", files(rep.Uploaded), units.Bytes(rep.Bytes), visible.String(target.String()))
	if rep.Retried > 0 {
		line += fmt.Sprintf(", %d after failing first", rep.Retried)
	}
	if rep.Already > 0 {
		line += fmt.Sprintf(", %d found there already", rep.Already)
	}
	fmt.Fprintln(e.stderr, line)
	if len(rep.Pending) == 0 {
		return nil
	}
	for _, p := range rep.Pending {
		fmt.Fprintf(e.stderr, "not uploaded: %s → %s: %s\n", visible.String(p.Path), visible.String(p.Object), visible.String(p.Err))
	}
	return errors.New(files(len(rep.Pending)) + " not uploaded: kept here; the next seam record --upload with the same -o uploads them")
}

// exists reports whether something is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// files returns "1 file", "2 files".
func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}
