package bucket_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dev/seam/bucket"
	"github.com/seam-dev/seam/internal/s3fake"
)

func logTo(b *bytes.Buffer) func(string) {
	var mu sync.Mutex
	return func(line string) {
		mu.Lock()
		b.WriteString(line + "\n")
		mu.Unlock()
	}
}

func fastBackoff(int) time.Duration { return 20 * time.Millisecond }

// writeFile writes a capture-like file into dir and returns its path.
func writeFile(t *testing.T, dir, name string, size int) (string, []byte) {
	t.Helper()
	b := bytes.Repeat([]byte(`{"type":"note","ex":0,"t":0,"text":"x"}`+"\n"), size/40+1)[:size]
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, b
}

func object(t *testing.T, s *bucket.Store, uri string) []byte {
	t.Helper()
	l, err := bucket.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Open(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUploadVerifiedAndMarked(t *testing.T) {
	fake := s3fake.Start(t, "caps")
	fake.SetEnv(t)
	dir := t.TempDir()
	store := bucket.NewStore(bucket.AddressingAuto)
	target, _ := bucket.Parse("s3://caps/team/laptop-1/")
	u := bucket.NewUploader(bucket.UploaderOptions{Store: store, Target: target, Backoff: fastBackoff})
	path, want := writeFile(t, dir, "seam-20261127T100000Z-000001.ndjson.zst", 300<<10)
	if err := u.Prepare(path); err != nil {
		t.Fatal(err)
	}
	if got := u.Object(path).String(); got != "s3://caps/team/laptop-1/seam-20261127T100000Z-000001.ndjson.zst" {
		t.Fatalf("Object = %s", got)
	}
	u.Add(path)
	rep := u.Finish(10 * time.Second)
	if rep.Uploaded != 1 || rep.Bytes != int64(len(want)) || len(rep.Pending) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if got := object(t, store, "s3://caps/team/laptop-1/seam-20261127T100000Z-000001.ndjson.zst"); !bytes.Equal(got, want) {
		t.Fatalf("object holds %d bytes, want the file's %d", len(got), len(want))
	}
	m, err := os.ReadFile(path + bucket.MarkerExt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m), `"state":"uploaded"`) || !strings.Contains(string(m), `"verified":"sha256"`) {
		t.Fatalf("marker: %s", m)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the local file is kept by default: %v", err)
	}
	if n := fake.Count("PUT", "caps/team/laptop-1/seam-20261127T100000Z-000001.ndjson.zst"); n != 1 {
		t.Fatalf("%d PUTs, want 1", n)
	}
}

func TestUploadFailsThenRetries(t *testing.T) {
	fake := s3fake.Start(t, "caps")
	fake.SetEnv(t)
	dir := t.TempDir()
	store := bucket.NewStore(bucket.AddressingAuto)
	var log bytes.Buffer
	u := bucket.NewUploader(bucket.UploaderOptions{Store: store, Target: bucket.Location{Bucket: "caps", Key: "p"}, Backoff: fastBackoff, Log: logTo(&log), Delete: true})
	// The uploader retries, not the SDK: each failure is one attempt.
	fake.Fail("PUT", 5)
	path, want := writeFile(t, dir, "a.ndjson.zst", 10<<10)
	u.Prepare(path)
	u.Add(path)
	rep := u.Finish(30 * time.Second)
	if rep.Uploaded != 1 || rep.Retried != 1 || len(rep.Pending) != 0 {
		t.Fatalf("report %+v; log:\n%s", rep, log.String())
	}
	if fake.Failed() != 5 {
		t.Fatalf("%d requests failed, want 5", fake.Failed())
	}
	if !strings.Contains(log.String(), "seam: upload "+path+" to s3://caps/p/a.ndjson.zst failed: PUT s3://caps/p/a.ndjson.zst: HTTP 503") ||
		!strings.Contains(log.String(), "after 6 attempts") {
		t.Fatalf("log does not say the failure and the retry:\n%s", log.String())
	}
	if got := object(t, store, "s3://caps/p/a.ndjson.zst"); !bytes.Equal(got, want) {
		t.Fatal("object differs from the file")
	}
	// Delete: gone once verified, marker too.
	for _, p := range []string{path, path + bucket.MarkerExt} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s still there after a verified upload with Delete", p)
		}
	}
}

func TestUploadGivesUpAtFinishAndKeepsPending(t *testing.T) {
	fake := s3fake.Start(t, "caps")
	fake.SetEnv(t)
	dir := t.TempDir()
	var log bytes.Buffer
	u := bucket.NewUploader(bucket.UploaderOptions{Store: bucket.NewStore(bucket.AddressingAuto), Target: bucket.Location{Bucket: "caps"}, Backoff: fastBackoff, Log: logTo(&log), Delete: true})
	fake.Fail("PUT", 1000)
	path, _ := writeFile(t, dir, "b.ndjson", 1000)
	u.Prepare(path)
	u.Add(path)
	rep := u.Finish(500 * time.Millisecond)
	if rep.Uploaded != 0 || len(rep.Pending) != 1 || rep.Pending[0].Path != path || !strings.Contains(rep.Pending[0].Err, "503") {
		t.Fatalf("report %+v", rep)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("a file not uploaded is never deleted: %v", err)
	}
	m, _ := os.ReadFile(path + bucket.MarkerExt)
	if !strings.Contains(string(m), `"state":"pending"`) {
		t.Fatalf("marker: %s", m)
	}
}

func TestResumeUploadsOnceAndNeverOverwrites(t *testing.T) {
	fake := s3fake.Start(t, "caps")
	fake.SetEnv(t)
	dir := t.TempDir()
	store := bucket.NewStore(bucket.AddressingAuto)
	target := bucket.Location{Bucket: "caps", Key: "p"}
	opts := bucket.UploaderOptions{Store: store, Target: target, Backoff: fastBackoff}

	// A run that died: a file uploaded and marked, one uploaded but not
	// marked (killed between), one never uploaded, an empty one.
	u := bucket.NewUploader(opts)
	done, _ := writeFile(t, dir, "1.ndjson", 5000)
	between, _ := writeFile(t, dir, "2.ndjson", 6000)
	never, _ := writeFile(t, dir, "3.ndjson", 7000)
	empty, _ := writeFile(t, dir, "4.ndjson", 0)
	for _, p := range []string{done, between, never, empty} {
		u.Prepare(p)
	}
	u.Add(done)
	u.Add(between)
	if rep := u.Finish(10 * time.Second); rep.Uploaded != 2 {
		t.Fatalf("first run %+v", rep)
	}
	// Killed between creating a file and writing its marker: empty, no
	// marker.
	unmarked, _ := writeFile(t, dir, "5.ndjson.zst", 0)
	// Undo the marker of "between", as a kill before it was written would.
	os.WriteFile(between+bucket.MarkerExt, []byte(`{"object":"s3://caps/p/2.ndjson","state":"pending","closed":true}`), 0o600)

	u = bucket.NewUploader(opts)
	queued, cut, err := u.Resume(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cut != 1 {
		t.Errorf("%d cut, want 1: the file never closed", cut)
	}
	if strings.Join(queued, " ") != between+" "+never {
		t.Fatalf("resumed %q, want the two pending files", queued)
	}
	rep := u.Finish(10 * time.Second)
	if rep.Uploaded != 2 || rep.Already != 1 || rep.Resumed != 2 {
		t.Fatalf("second run %+v", rep)
	}
	for key, n := range fake.Counts("PUT") {
		if n != 1 {
			t.Errorf("%s was PUT %d times", key, n)
		}
	}
	if len(fake.Counts("PUT")) != 3 {
		t.Errorf("PUTs %v, want one per file with content", fake.Counts("PUT"))
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Error("an empty file left pending is not dropped")
	}
	if _, err := os.Stat(unmarked); !os.IsNotExist(err) {
		t.Error("an empty file a kill left before its marker is not dropped")
	}

	// Another file of the same name but other content is never
	// overwritten.
	other := filepath.Join(t.TempDir(), "3.ndjson")
	os.WriteFile(other, []byte("other content\n"), 0o600)
	var log bytes.Buffer
	opts.Log = logTo(&log)
	u = bucket.NewUploader(opts)
	u.Add(other)
	rep = u.Finish(300 * time.Millisecond)
	if len(rep.Pending) != 1 || !strings.Contains(rep.Pending[0].Err, "already exists with other content") {
		t.Fatalf("report %+v", rep)
	}
	if fake.Count("PUT", "caps/p/3.ndjson") != 1 {
		t.Fatal("overwritten")
	}
}

func TestListAndOpen(t *testing.T) {
	fake := s3fake.Start(t, "caps")
	fake.SetEnv(t)
	dir := t.TempDir()
	store := bucket.NewStore(bucket.AddressingAuto)
	u := bucket.NewUploader(bucket.UploaderOptions{Store: store, Target: bucket.Location{Bucket: "caps", Key: "a/b"}, Backoff: fastBackoff})
	for _, n := range []string{"x-000002.ndjson.zst", "x-000001.ndjson.zst", "notes.txt"} {
		p, _ := writeFile(t, dir, n, 100)
		u.Add(p)
	}
	u.Finish(10 * time.Second)
	isCapture := func(name string) bool { return strings.HasSuffix(name, ".ndjson.zst") }
	for _, tc := range []struct{ uri, want string }{
		{"s3://caps/a/b", "a/b/x-000001.ndjson.zst a/b/x-000002.ndjson.zst"},
		{"s3://caps/a/", "a/b/x-000001.ndjson.zst a/b/x-000002.ndjson.zst"},
		{"s3://caps/a/b/x-000002.ndjson.zst", "a/b/x-000002.ndjson.zst"},
		{"s3://caps/a/b/notes.txt", "a/b/notes.txt"}, // named: taken whatever its name
		{"s3://caps/nothing", ""},
	} {
		l, err := bucket.Parse(tc.uri)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := store.List(context.Background(), l, isCapture)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, o := range objs {
			keys = append(keys, o.Key)
			if o.Size != 100 {
				t.Errorf("%s: size %d", o.Key, o.Size)
			}
		}
		if got := strings.Join(keys, " "); got != tc.want {
			t.Errorf("List(%s) = %q, want %q", tc.uri, got, tc.want)
		}
	}
	if _, err := store.Open(context.Background(), bucket.Location{Bucket: "caps", Key: "a/b/missing"}); err == nil || !strings.Contains(err.Error(), "s3://caps/a/b/missing: HTTP 404") {
		t.Fatalf("open a missing object: %v", err)
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"s3://b":            "s3://b",
		"s3://b/":           "s3://b",
		"s3://b/p/q/":       "s3://b/p/q",
		"s3://b/p/x.ndjson": "s3://b/p/x.ndjson",
	} {
		l, err := bucket.Parse(in)
		if err != nil || l.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, l, err, want)
		}
	}
	for _, bad := range []string{"s3://", "s3:///k", "http://b/k", "b/k"} {
		if _, err := bucket.Parse(bad); err == nil {
			t.Errorf("Parse(%q) took it", bad)
		}
	}
}
