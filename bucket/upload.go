package bucket

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/seam-dev/seam/internal/filelock"
)

// UploaderOptions configures an [Uploader].
type UploaderOptions struct {
	// Store reaches the object store. Required.
	Store *Store
	// Target is the bucket and prefix the files go under, by base name.
	Target Location
	// Log hears each upload's failure (once per file and cause) and a
	// file uploaded after failing, a line without its newline; nil for
	// nowhere. The line quotes what the store said: escape it for a
	// terminal.
	Log func(line string)
	// Delete removes each local file (and its marker) once its upload is
	// verified; by default they are kept.
	Delete bool
	// Backoff returns how long to wait before attempt n+1 of a file (n
	// from 1); nil for 1s doubling to a minute.
	Backoff func(n int) time.Duration
	// AttemptTimeout bounds one attempt (the PUT and its checks); zero
	// means 10 minutes.
	AttemptTimeout time.Duration
}

// Uploader ships capture files to an object store as they are closed (see
// the package doc). Its methods are safe for concurrent use.
type Uploader struct {
	o      UploaderOptions
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	queue   []*item
	wake    chan struct{}
	done    chan struct{}
	closing bool
	// giveUp, once set, is when failing files stop being retried.
	giveUp time.Time
	stats  Report
}

// item is a file to upload.
type item struct {
	path     string
	object   Location
	attempts int
	due      time.Time
	lastErr  string
}

// Report says what an Uploader did.
type Report struct {
	// Uploaded counts the files uploaded and verified, Bytes their size;
	// Already those found in the store already (uploaded by a run that
	// died before it wrote so), counted in Uploaded too.
	Uploaded, Already int
	Bytes             int64
	// Retried counts the files uploaded after failing at least once.
	Retried int
	// Resumed counts the files a run that died had left to upload.
	Resumed int
	// Pending lists the files not uploaded when the Uploader stopped, with
	// why.
	Pending []Failed
}

// Failed is a file not uploaded and the last error.
type Failed struct {
	Path, Object, Err string
}

// NewUploader starts an Uploader; Finish stops it.
func NewUploader(o UploaderOptions) *Uploader {
	if o.Log == nil {
		o.Log = func(string) {}
	}
	if o.Backoff == nil {
		o.Backoff = func(n int) time.Duration { return min(time.Second<<min(n-1, 6), time.Minute) }
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 10 * time.Minute
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &Uploader{o: o, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go u.run()
	return u
}

// Object returns the object the local file at path goes to:
// Target/base name. A span or a report names the capture by it once the
// file is uploaded.
func (u *Uploader) Object(path string) Location { return u.o.Target.Join(filepath.Base(path)) }

// Prepare writes the pending marker of a file just created, so a run that
// dies before it is closed leaves it for the next one to upload.
func (u *Uploader) Prepare(path string) error {
	return writeMarker(path, Marker{Object: u.Object(path).String(), State: StatePending}, false)
}

// Add queues a closed file for upload, first noting in its marker that
// it is closed (whole: a file the next run finds pending without that was
// cut by the end of its writer). It does not wait for the upload.
func (u *Uploader) Add(path string) {
	obj := u.Object(path)
	if err := writeMarker(path, Marker{Object: obj.String(), State: StatePending, Closed: true}, false); err != nil {
		u.o.Log(fmt.Sprintf("seam: %v", err))
	}
	u.add(path, obj)
}

func (u *Uploader) add(path string, object Location) {
	u.mu.Lock()
	u.queue = append(u.queue, &item{path: path, object: object})
	u.mu.Unlock()
	u.poke()
}

func (u *Uploader) poke() {
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// Resume queues the files in dir that a run which died left to upload:
// those whose marker is pending and that no running seam holds open
// (internal/filelock). A file with nothing in it is dropped with its
// marker. It returns the files queued and how many of them were not
// closed (cut where their writer ended).
func (u *Uploader) Resume(dir string) (queued []string, cut int, err error) {
	paths, ms, err := pendingIn(dir)
	if err != nil {
		return nil, 0, err
	}
	for i, path := range paths {
		if filelock.Held(path) {
			continue // a live recorder is still writing it
		}
		st, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) || err == nil && st.Size() == 0 {
			os.Remove(path)
			os.Remove(markerPath(path))
			continue
		}
		obj, err := Parse(ms[i].Object)
		if err != nil {
			obj = u.Object(path)
		}
		u.add(path, obj)
		queued = append(queued, path)
		if !ms[i].Closed {
			cut++
		}
	}
	dropEmpty(dir)
	u.mu.Lock()
	u.stats.Resumed += len(queued)
	u.mu.Unlock()
	return queued, cut, nil
}

// dropEmpty removes the empty capture files in dir that no running seam
// holds and no marker names: a run killed between creating a file and
// writing its marker leaves one, which holds nothing (not even a header)
// and would otherwise stay for good.
func dropEmpty(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".ndjson") && !strings.HasSuffix(name, ".ndjson.zst") {
			continue
		}
		path := filepath.Join(dir, name)
		if st, err := e.Info(); err != nil || st.Size() != 0 || filelock.Held(path) {
			continue
		}
		if _, err := os.Stat(markerPath(path)); errors.Is(err, os.ErrNotExist) {
			os.Remove(path)
		}
	}
}

// Queued returns how many files wait for upload (the one uploading
// included).
func (u *Uploader) Queued() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.queue)
}

// Finish stops taking files and waits until every file queued is
// uploaded, retrying failed ones for up to grace; what is left then is
// abandoned (its marker stays pending for the next run) and the upload in
// flight cancelled. It returns what the Uploader did.
func (u *Uploader) Finish(grace time.Duration) Report {
	u.mu.Lock()
	u.closing = true
	u.giveUp = time.Now().Add(grace)
	u.mu.Unlock()
	u.poke()
	t := time.AfterFunc(grace, u.cancel)
	<-u.done
	t.Stop()
	u.cancel()
	u.mu.Lock()
	defer u.mu.Unlock()
	r := u.stats
	for _, it := range u.queue {
		r.Pending = append(r.Pending, Failed{Path: it.path, Object: it.object.String(), Err: it.lastErr})
	}
	return r
}

// run uploads the queued files one at a time, each when it is due, until
// Finish.
func (u *Uploader) run() {
	defer close(u.done)
	for {
		u.mu.Lock()
		now := time.Now()
		var next *item
		var wait time.Duration = -1
		for _, it := range u.queue {
			if !it.due.After(now) {
				next = it
				break
			}
			if d := it.due.Sub(now); wait < 0 || d < wait {
				wait = d
			}
		}
		stop := u.closing && (len(u.queue) == 0 || next == nil && now.After(u.giveUp) || u.ctx.Err() != nil)
		u.mu.Unlock()
		if stop {
			return
		}
		if next == nil {
			var timer <-chan time.Time
			if wait >= 0 {
				timer = time.After(wait)
			}
			select {
			case <-u.wake:
			case <-timer:
			case <-u.ctx.Done():
			}
			continue
		}
		u.attempt(next)
	}
}

// attempt uploads it once and, on failure, says why (once per cause) and
// schedules the next try.
func (u *Uploader) attempt(it *item) {
	it.attempts++
	ctx, cancel := context.WithTimeout(u.ctx, u.o.AttemptTimeout)
	res, err := u.upload(ctx, it)
	cancel()
	u.mu.Lock()
	defer u.mu.Unlock()
	if err != nil && u.ctx.Err() != nil {
		// Cut by Finish: the last real failure stands.
		if it.lastErr == "" {
			it.lastErr = "not finished when seam stopped"
		}
		return
	}
	if err != nil {
		msg := err.Error()
		if msg != it.lastErr {
			u.o.Log(fmt.Sprintf("seam: upload %s to %s failed: %s; retrying (the file is kept)", it.path, it.object, msg))
		}
		it.lastErr = msg
		it.due = time.Now().Add(u.o.Backoff(it.attempts))
		// The next file goes first: one that keeps failing holds up no
		// other.
		u.remove(it)
		u.queue = append(u.queue, it)
		return
	}
	u.remove(it)
	u.stats.Uploaded++
	u.stats.Bytes += res.size
	if res.already {
		u.stats.Already++
	}
	if it.lastErr != "" {
		u.stats.Retried++
		u.o.Log(fmt.Sprintf("seam: uploaded %s to %s after %d attempts", it.path, it.object, it.attempts))
	}
}

// remove takes it out of the queue. Called with u.mu held.
func (u *Uploader) remove(it *item) {
	for i, q := range u.queue {
		if q == it {
			u.queue = append(u.queue[:i], u.queue[i+1:]...)
			return
		}
	}
}

// uploaded is what one successful upload did.
type uploaded struct {
	size    int64
	already bool
}

// local is what the uploader knows of a local file's content.
type local struct {
	size        int64
	sha256, md5 []byte
}

// upload puts the file at it.path to it.object unless the object already
// holds it, verifies it, and marks it uploaded (deleting it when asked).
func (u *Uploader) upload(ctx context.Context, it *item) (uploaded, error) {
	c, err := u.o.Store.Client(ctx)
	if err != nil {
		return uploaded{}, err
	}
	f, err := os.Open(it.path)
	if err != nil {
		return uploaded{}, err
	}
	defer f.Close()
	loc, err := digest(f)
	if err != nil {
		return uploaded{}, fmt.Errorf("read %s: %w", it.path, err)
	}
	if loc.size > maxPut {
		return uploaded{}, fmt.Errorf("%s has %d bytes, more than one PUT takes (5 GiB): record with --rotate to keep files smaller", it.path, loc.size)
	}
	in := &s3.HeadObjectInput{Bucket: aws.String(it.object.Bucket), Key: aws.String(it.object.Key), ChecksumMode: types.ChecksumModeEnabled}
	head, err := c.HeadObject(ctx, in, once)
	already := err == nil
	switch {
	case already:
		// A run that died after uploading, before it wrote so, or an object
		// of the same name from elsewhere: the same bytes are taken as
		// uploaded, others are never overwritten.
		if _, verr := verify(head, loc); verr != nil {
			return uploaded{}, fmt.Errorf("%s already exists with other content (%v): not overwritten; give each recorder its own prefix", it.object, verr)
		}
	case !IsNotFound(err):
		return uploaded{}, fmt.Errorf("HEAD %s: %w", it.object, Cause(err))
	default:
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return uploaded{}, err
		}
		ct := "application/x-ndjson"
		if strings.HasSuffix(it.path, ".zst") {
			ct = "application/zstd"
		}
		_, err = c.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(it.object.Bucket), Key: aws.String(it.object.Key),
			Body: f, ContentLength: aws.Int64(loc.size), ContentType: aws.String(ct),
			ChecksumSHA256: aws.String(base64.StdEncoding.EncodeToString(loc.sha256)),
			Metadata:       map[string]string{"seam-sha256": hex.EncodeToString(loc.sha256)},
		}, once)
		if err != nil {
			return uploaded{}, fmt.Errorf("PUT %s: %w", it.object, Cause(err))
		}
		if head, err = c.HeadObject(ctx, in, once); err != nil {
			return uploaded{}, fmt.Errorf("verify %s: HEAD: %w", it.object, Cause(err))
		}
	}
	how, err := verify(head, loc)
	if err != nil {
		return uploaded{}, fmt.Errorf("verify %s: %w", it.object, err)
	}
	m := Marker{Object: it.object.String(), State: StateUploaded, Size: loc.size, SHA256: hex.EncodeToString(loc.sha256), Verified: how, Uploaded: time.Now().UTC()}
	if err := writeMarker(it.path, m, true); err != nil {
		return uploaded{}, err
	}
	if u.o.Delete {
		// Only now: the object holds the file.
		if err := os.Remove(it.path); err != nil {
			u.o.Log(fmt.Sprintf("seam: uploaded %s but could not delete it: %v", it.path, err))
		} else {
			os.Remove(markerPath(it.path))
		}
	}
	return uploaded{size: loc.size, already: already}, nil
}

// maxPut is the largest object one PUT may send (S3's limit).
const maxPut = 5 << 30

// once makes a request without the SDK's own retries: the Uploader
// retries a file, with its backoff, and says each failure.
func once(o *s3.Options) { o.RetryMaxAttempts = 1 }

// digest reads r to its end for its size, SHA-256 and MD5.
func digest(r io.Reader) (local, error) {
	s, m := sha256.New(), md5.New()
	n, err := io.Copy(io.MultiWriter(s, m), r)
	if err != nil {
		return local{}, err
	}
	return local{size: n, sha256: s.Sum(nil), md5: m.Sum(nil)}, nil
}

// verify checks the object HEAD describes against the local file: its
// size, then its content by the first the store gives of its SHA-256
// checksum and an ETag that is an MD5 (a single-part upload's, when the
// store does not encrypt with its own keys). It returns which it used.
func verify(head *s3.HeadObjectOutput, loc local) (string, error) {
	if n := aws.ToInt64(head.ContentLength); n != loc.size {
		return "", fmt.Errorf("the object has %d bytes, the file %d", n, loc.size)
	}
	if sum := aws.ToString(head.ChecksumSHA256); sum != "" && !strings.Contains(sum, "-") {
		if sum != base64.StdEncoding.EncodeToString(loc.sha256) {
			return "", fmt.Errorf("the object's SHA-256 is %s, the file's %s", sum, base64.StdEncoding.EncodeToString(loc.sha256))
		}
		return "sha256", nil
	}
	if etag := strings.Trim(aws.ToString(head.ETag), `"`); isMD5(etag) {
		if etag != hex.EncodeToString(loc.md5) {
			return "", fmt.Errorf("the object's ETag is %s, the file's MD5 %s", etag, hex.EncodeToString(loc.md5))
		}
		return "md5", nil
	}
	return "size", nil
}

// isMD5 reports whether an ETag has an MD5's form: 32 hex digits.
func isMD5(etag string) bool {
	if len(etag) != 32 {
		return false
	}
	_, err := hex.DecodeString(etag)
	return err == nil
}
