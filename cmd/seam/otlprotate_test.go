package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/internal/s3fake"
	"github.com/seam-dev/seam/otlpexport"
)

// TestOTLPRotate: seam record --otlp --rotate exports every exchange of
// every file it rotates to, once, with the capture URI of the file that
// holds it (the bucket object's with --upload), and each span is the one
// seam export --format otlp sends for that exchange from the files.
func TestOTLPRotate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam record over many rotated files")
	}
	for _, upload := range []bool{false, true} {
		t.Run(fmt.Sprintf("upload=%v", upload), func(t *testing.T) {
			up := streamingUpstream(t, 20, time.Millisecond)
			dir := t.TempDir() + "/caps/"
			recv := newOTLPRecv(t)
			args := []string{"record", "--upstream", up.URL, "--listen", "127.0.0.1:0", "-o", dir, "-q", "--rotate", "3KiB", "--otlp", recv.URL()}
			ext := ".ndjson"
			if upload {
				fake := s3fake.Start(t, "caps")
				fake.SetEnv(t)
				args = append(args, "--upload", "s3://caps/team/host-a")
				ext = ".ndjson.zst"
			}
			cmd, addr, rest := launchSeam(t, `listening on http://(\S+)`, args...)
			stop := make(chan struct{})
			wait := load("http://"+addr, 4, stop)
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if names, _ := filepath.Glob(filepath.Join(dir, "*"+ext)); len(names) >= 5 {
					break
				}
			}
			close(stop)
			served := wait()
			said := stopRecording(t, cmd, rest)

			names, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
			slices.Sort(names)
			if len(names) < 3 {
				t.Fatalf("%d capture files after %d streams with --rotate 3KiB", len(names), served)
			}
			uriOf := map[int]string{} // exchange → the URI of the file holding it
			for _, name := range names {
				uri := otlpexport.FileURI(name)
				if upload {
					uri = "s3://caps/team/host-a/" + filepath.Base(name)
				}
				for _, x := range readLocal(t, name).Exchanges {
					uriOf[x.Ex] = uri
				}
			}
			spans := recv.Spans()
			if len(spans) != len(uriOf) || int64(len(uriOf)) < served {
				t.Fatalf("%d spans for %d exchanges in %d files (%d streams served)\n%s", len(spans), len(uriOf), len(names), served, said)
			}
			if !strings.Contains(said, fmt.Sprintf("otlp: %d spans sent", len(spans))) {
				t.Errorf("seam record said:\n%s", said)
			}
			seen := map[int64]bool{}
			for _, s := range spans {
				ex, _ := s.Attrs["seam.exchange"].(int64)
				if seen[ex] {
					t.Errorf("exchange %d exported twice", ex)
				}
				seen[ex] = true
				if got := s.Attrs["seam.capture.uri"]; got != uriOf[int(ex)] {
					t.Errorf("exchange %d: capture URI %v, want %s", ex, got, uriOf[int(ex)])
				}
			}
			// What the files hold, exported again, gives the same spans:
			// the same ids, attributes (but the URI: file: URIs here) and
			// events, sessions linked across the files as they were live.
			again := exportFiles(t, names)
			for _, s := range spans {
				ex, _ := s.Attrs["seam.exchange"].(int64)
				a, err := spanOf(again, int(ex))
				if err != nil {
					t.Errorf("exchange %d: seam export sent no span", ex)
					continue
				}
				a.Attrs["seam.capture.uri"] = s.Attrs["seam.capture.uri"]
				if a.TraceID != s.TraceID || a.SpanID != s.SpanID || !a.Start.Equal(s.Start) || !a.End.Equal(s.End) ||
					fmt.Sprint(a.Attrs) != fmt.Sprint(s.Attrs) || fmt.Sprint(a.Events) != fmt.Sprint(s.Events) {
					t.Errorf("exchange %d: live\n%v %v\nexport\n%v %v", ex, s.Attrs, s.Events, a.Attrs, a.Events)
				}
			}
		})
	}
}

// exportFiles runs seam export --format otlp on the captures and returns
// the spans it sent.
func exportFiles(t *testing.T, names []string) []recvSpan {
	t.Helper()
	recv := newOTLPRecv(t)
	cmd := exec.Command("seam", append([]string{"export", "--format", "otlp", "--otlp", recv.URL()}, names...)...)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("seam export --format otlp: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`otlp: \d+ spans? sent`).Match(out) {
		t.Fatalf("seam export said:\n%s", out)
	}
	return recv.Spans()
}
