package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/seam-dev/seam/internal/s3fake"
)

// putFixtures stores fixtures in the fake store under caps/team/, one of
// them zstd-compressed as seam record --upload ships them, and copies the
// same files into a local directory, which it returns.
func putFixtures(t *testing.T, fake *s3fake.Fake) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []struct{ src, name string }{
		{"openai-chat-tools.ndjson", "a-openai-chat-tools.ndjson"},
		{"anthropic-tool-use.ndjson", "b-anthropic-tool-use.ndjson.zst"},
	} {
		b, err := os.ReadFile(filepath.Join(fixturesDir, f.src))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.name, ".zst") {
			var buf bytes.Buffer
			zw, _ := zstd.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			b = buf.Bytes()
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := fake.Backend.PutObject("caps", "team/"+f.name, map[string]string{}, bytes.NewReader(b), int64(len(b)), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Not a capture by its name: left out of a prefix, as in a directory.
	fake.Backend.PutObject("caps", "team/README.txt", map[string]string{}, strings.NewReader("notes"), 5, nil)
	return dir
}

// TestReadS3 reads captures from a store as from files and directories:
// inspect, stats, grep and report print for s3://bucket/prefix[/name] what
// they print for the same files on disk, but for the names; the objects
// are streamed (a compressed one too).
func TestReadS3(t *testing.T) {
	fake := s3fake.Start(t, "caps")
	fake.SetEnv(t)
	dir := putFixtures(t, fake)
	same := func(remote, local []string) {
		t.Helper()
		want, err := seamOutput(local...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := seamOutput(remote...)
		if err != nil {
			t.Fatal(err)
		}
		// Names differ: the local directory for the bucket's prefix.
		norm := strings.ReplaceAll(string(got), "s3://caps/team", dir)
		if norm != string(want) {
			t.Errorf("seam %s printed\n%s\nwant what seam %s printed\n%s", strings.Join(remote, " "), got, strings.Join(local, " "), want)
		}
		if len(want) == 0 {
			t.Errorf("seam %s printed nothing", strings.Join(local, " "))
		}
	}
	same([]string{"inspect", "s3://caps/team/a-openai-chat-tools.ndjson"}, []string{"inspect", filepath.Join(dir, "a-openai-chat-tools.ndjson")})
	same([]string{"inspect", "--json", "s3://caps/team/b-anthropic-tool-use.ndjson.zst"}, []string{"inspect", "--json", filepath.Join(dir, "b-anthropic-tool-use.ndjson.zst")})
	// A prefix stands for the captures under it, in key order, as a
	// directory (whose captures are ordered by start time: the same here).
	same([]string{"inspect", "s3://caps/team/"}, []string{"inspect", dir})
	same([]string{"stats", "s3://caps/team"}, []string{"stats", dir})
	same([]string{"grep", "-i", "weather", "s3://caps/team"}, []string{"grep", "-i", "weather", dir})

	obj := "s3://caps/team/a-openai-chat-tools.ndjson"
	same([]string{"export", "--format", "sse", obj}, []string{"export", "--format", "sse", filepath.Join(dir, "a-openai-chat-tools.ndjson")})
	same([]string{"replay", obj}, []string{"replay", filepath.Join(dir, "a-openai-chat-tools.ndjson")})
	same([]string{"diff", obj, filepath.Join(dir, "a-openai-chat-tools.ndjson")}, []string{"diff", filepath.Join(dir, "a-openai-chat-tools.ndjson"), filepath.Join(dir, "a-openai-chat-tools.ndjson")})

	html := filepath.Join(t.TempDir(), "r.html")
	if out, err := seamCombinedOutput("report", "-o", html, "s3://caps/team/b-anthropic-tool-use.ndjson.zst"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if b, _ := os.ReadFile(html); !bytes.Contains(b, []byte("b-anthropic-tool-use.ndjson.zst")) {
		t.Errorf("report of an object does not name it")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", "s3://caps/nothing-here"}, "s3://caps/nothing-here: no captures (*.ndjson or *.ndjson.zst) under this prefix"},
		{[]string{"inspect", "s3://missing-bucket/x.ndjson"}, "s3://missing-bucket/x.ndjson: HTTP 404: api error NoSuchBucket"},
		{[]string{"report", "s3://caps/team/gone.ndjson"}, "s3://caps/team/gone.ndjson: HTTP 404"},
	} {
		var stdout, stderr bytes.Buffer
		code := runSeam(context.Background(), nil, &stdout, &stderr, tc.args...)
		if code != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("seam %s: exit %d, stderr %q; want 1 and %q", strings.Join(tc.args, " "), code, stderr.String(), tc.want)
		}
	}
}

// TestTUILocalCopies: the TUI reads files in place, so an s3:// input is
// streamed into a private temporary directory first, byte for byte, and
// removed after.
func TestTUILocalCopies(t *testing.T) {
	fake := s3fake.Start(t, "caps")
	fake.SetEnv(t)
	dir := putFixtures(t, fake)
	var stderr bytes.Buffer
	e := testEnv(nil, io.Discard, &stderr)
	paths, _, cleanup, err := tuiInputs(context.Background(), e, []string{"fixtures/x.ndjson", "s3://caps/team"})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 || paths[0] != "fixtures/x.ndjson" {
		t.Fatalf("paths %q", paths)
	}
	for _, p := range paths[1:] {
		got, _ := os.ReadFile(p)
		want, _ := os.ReadFile(filepath.Join(dir, filepath.Base(p)))
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, want the object's %d", p, len(got), len(want))
		}
		if st, _ := os.Stat(filepath.Dir(p)); st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is in a directory others can read", p)
		}
	}
	cleanup()
	if _, err := os.Stat(paths[1]); !os.IsNotExist(err) {
		t.Errorf("the copies outlive cleanup")
	}
}
