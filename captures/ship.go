package captures

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seam-dev/seam/bucket"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// ShipOptions say where a long recording's capture goes: split into files
// (a new one past Size bytes or every Every), and each closed file
// uploaded to an object store when Store is set.
type ShipOptions struct {
	// Output is the capture file or directory (seam record -o); not
	// stdout.
	Output string
	// Size and Every rotate the capture (record.Rotation); both zero: one
	// file.
	Size  int64
	Every time.Duration
	// Store reaches the object store closed files go to, under Target;
	// nil: nothing is uploaded.
	Store  *bucket.Store
	Target bucket.Location
	// Delete removes a local file once its upload is verified.
	Delete bool
	// Log hears what uploading has to say, a line at a time, as it is (a
	// path or an error from the store: escape it for a terminal).
	Log func(line string)
	// Now names the files (their start time); zero: time.Now().
	Now time.Time
}

// Rotates reports whether the capture is split into files.
func (o ShipOptions) Rotates() bool { return o.Size > 0 || o.Every > 0 }

// Shipping is a long recording's capture files as Ship set them up: named,
// created, and uploaded once closed.
type Shipping struct {
	o        ShipOptions
	uploader *bucket.Uploader
	notices  []string
}

// Ship sets cfg up to write the capture as o says: its files named after
// o.Now (PartPath when rotating, NewPath otherwise; a run restarted within
// the same second names them after the next free second, so they still
// sort after the last run's), an uploaded capture compressed. With a
// store it checks the credentials (an error) and the bucket (a notice:
// uploads are retried), starts the uploader and queues what a previous run
// left in the directory, each file marked pending as it is created so a
// run that dies leaves it for the next.
func Ship(ctx context.Context, o ShipOptions, cfg *record.RecordingOptions) (*Shipping, error) {
	s := &Shipping{o: o}
	if o.Log == nil {
		s.o.Log = func(string) {}
	}
	ext := ".ndjson"
	if o.Store != nil {
		ext += tape.CompressedExt // a few percent of the plain size
	}
	start := o.Now
	if start.IsZero() {
		start = time.Now()
	}
	start = start.Truncate(time.Second)
	name := func(n int) string {
		if o.Rotates() {
			return PartPath(o.Output, start, n, ext)
		}
		return NewPath(o.Output, start, ext)
	}
	for i := 0; i < 60 && exists(name(1)); i++ {
		start = start.Add(time.Second)
	}
	if o.Store != nil {
		if err := s.startUpload(ctx, filepath.Dir(name(1)), cfg); err != nil {
			return nil, err
		}
	}
	if o.Rotates() {
		cfg.Rotate = record.Rotation{Size: o.Size, Every: o.Every,
			Create: func(n int) (io.WriteCloser, string, error) { return s.create(name(n)) },
			Empty: func(path string) {
				os.Remove(path)
				os.Remove(path + bucket.MarkerExt)
			}}
	} else {
		cfg.Create = func() (io.WriteCloser, string, error) { return s.create(name(1)) }
	}
	s.notices = append([]string{s.describe(name(1), name(2))}, s.notices...)
	return s, nil
}

// create creates the capture file at path, marked pending upload.
func (s *Shipping) create(path string) (io.WriteCloser, string, error) {
	f, err := CreateFile(path)
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

// startUpload checks the store, starts the uploader, hands it each file
// cfg closes, and queues what a previous run left in dir.
func (s *Shipping) startUpload(ctx context.Context, dir string, cfg *record.RecordingOptions) error {
	store, target := s.o.Store, s.o.Target
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := store.CheckCredentials(ctx); err != nil {
		return fmt.Errorf("--upload %s: %w", target, err)
	}
	if err := store.CheckBucket(ctx, target); err != nil {
		s.notices = append(s.notices, fmt.Sprintf("warning: --upload: cannot reach %s yet (%v): recording goes on, uploads are retried", target, err))
	}
	s.uploader = bucket.NewUploader(bucket.UploaderOptions{Store: store, Target: target, Delete: s.o.Delete, Log: s.o.Log})
	cfg.OnClosed = func(path string, err error) {
		if err != nil {
			s.o.Log(fmt.Sprintf("seam: %s; uploading what the file holds", err))
		}
		s.uploader.Add(path)
	}
	left, cut, err := s.uploader.Resume(dir)
	if err != nil {
		s.notices = append(s.notices, fmt.Sprintf("warning: --upload: %v", err))
	}
	if len(left) > 0 {
		line := fmt.Sprintf("uploading %s a previous run left in %s", units.Count(len(left), "file"), dir)
		if cut > 0 {
			line += fmt.Sprintf(" (%d of them still being written when it ended: read up to the cut)", cut)
		}
		s.notices = append(s.notices, line)
	}
	return nil
}

// describe says how the capture is split (first and second are its first
// two files when it is) and where it is shipped.
func (s *Shipping) describe(first, second string) string {
	var what []string
	if s.o.Rotates() {
		every := []string{}
		if s.o.Size > 0 {
			every = append(every, units.Bytes(s.o.Size))
		}
		if s.o.Every > 0 {
			every = append(every, s.o.Every.String())
		}
		what = append(what, fmt.Sprintf("a new capture file every %s (%s, %s, ...)", strings.Join(every, " or "),
			filepath.Base(first), filepath.Base(second)))
	}
	if s.uploader != nil {
		keep := "kept here"
		if s.o.Delete {
			keep = "deleted here once verified"
		}
		what = append(what, fmt.Sprintf("each closed file uploaded to %s (%s)", s.o.Target, keep))
	}
	return strings.Join(what, "; ")
}

// Notices are what to say once the recording listens: how the capture is
// split and shipped, and what uploading found at the start. Each is as it
// is: escape it for a terminal.
func (s *Shipping) Notices() []string { return s.notices }

// Object returns the s3:// URI the capture file at path is uploaded to,
// "" when nothing is uploaded (s nil included).
func (s *Shipping) Object(path string) string {
	if s == nil || s.uploader == nil {
		return ""
	}
	return s.uploader.Object(path).String()
}

// Finish waits up to wait for the uploads once the recording has stopped,
// saying through say (each line as it is) what is left to upload and what
// was uploaded. What is still not uploaded then is an error: those files
// are kept, marked, and the next run with the same output uploads them.
func (s *Shipping) Finish(wait time.Duration, say func(line string)) error {
	if s.uploader == nil {
		return nil
	}
	target := s.o.Target
	if n := s.uploader.Queued(); n > 0 {
		say(fmt.Sprintf("seam: uploading %s to %s (ctrl-c again to leave them for the next run)", units.Count(n, "file"), target))
	}
	rep := s.uploader.Finish(wait)
	line := fmt.Sprintf("%s (%s) uploaded to %s", units.Count(rep.Uploaded, "file"), units.Bytes(rep.Bytes), target)
	if rep.Retried > 0 {
		line += fmt.Sprintf(", %d after failing first", rep.Retried)
	}
	if rep.Already > 0 {
		line += fmt.Sprintf(", %d found there already", rep.Already)
	}
	say(line)
	if len(rep.Pending) == 0 {
		return nil
	}
	for _, p := range rep.Pending {
		say(fmt.Sprintf("not uploaded: %s → %s: %s", p.Path, p.Object, p.Err))
	}
	return errors.New(units.Count(len(rep.Pending), "file") + " not uploaded: kept here; the next seam record --upload with the same -o uploads them")
}

// exists reports whether something is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
