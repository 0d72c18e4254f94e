package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
)

// stderrLog collects a process's stderr as it is written.
type stderrLog struct {
	mu    sync.Mutex
	buf   strings.Builder
	lines chan string
	done  chan struct{} // closed when stderr is closed and read to its end
}

func (l *stderrLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// runSeamLogged runs seam with args (spawnSeam), collecting stderr,
// and returns the address its "listening on" line names.
func runSeamLogged(t *testing.T, stdout *os.File, args ...string) (*exec.Cmd, *stderrLog, string) {
	t.Helper()
	cmd, pipe := spawnSeam(t, stdout, args...)
	log := &stderrLog{lines: make(chan string, 64), done: make(chan struct{})}
	go func() {
		br := bufio.NewReader(pipe)
		for {
			line, err := br.ReadString('\n')
			log.mu.Lock()
			log.buf.WriteString(line)
			log.mu.Unlock()
			select {
			case log.lines <- line:
			default:
			}
			if err != nil {
				close(log.lines)
				close(log.done)
				return
			}
		}
	}()
	re := regexp.MustCompile(`listening on http://(\S+)`)
	for line := range log.lines {
		if m := re.FindStringSubmatch(line); m != nil {
			return cmd, log, m[1]
		}
	}
	t.Fatalf("seam never said where it listens:\n%s", log)
	return nil, nil, ""
}

// streamUpstream answers every request with a complete stream of n events
// of about 230 bytes each.
func streamUpstream(t *testing.T, n int) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range n {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %d %s\"}}]}\n\n", i, strings.Repeat("é", 80))
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(up.Close)
	return up
}

// requestStreams sends n requests one after the other and checks that each
// client got its whole stream.
func requestStreams(t *testing.T, addr string, n int) {
	t.Helper()
	for i := range n {
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
			t.Fatalf("request %d: the client did not get its whole stream (%v, %d bytes)", i+1, err, len(body))
		}
	}
}

// waitLog waits until the log holds want.
func waitLog(t *testing.T, log *stderrLog, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr never said %q:\n%s", want, log)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// interrupt sends SIGINT and returns the exit status once all of stderr
// is in log.
func interrupt(t *testing.T, cmd *exec.Cmd, log *stderrLog) int {
	t.Helper()
	cmd.Process.Signal(syscall.SIGINT)
	<-log.done
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("seam exited with %v, want a failure status", err)
	}
	return ee.ExitCode()
}

// TestRecordOnFullFilesystem records onto a 96 KiB tmpfs that fills up
// after a few exchanges: the write error is on stderr at once with the path,
// every client still gets its whole stream, the final count is what the
// file holds, and ctrl-c exits 1 with the error (not 130).
func TestRecordOnFullFilesystem(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=96k"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v); TestRecordToFullDevice covers ENOSPC", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	out := filepath.Join(dir, "full.ndjson")
	up := streamUpstream(t, 60) // about 14 KiB per side per exchange
	cmd, log, addr := runSeamLogged(t, nil, "record", "--upstream", up.URL, "--listen", "127.0.0.1:0", "-o", out, "-q")

	requestStreams(t, addr, 7)
	waitLog(t, log, "no space left on device")
	said := log.String()
	for _, want := range []string{"seam: capture " + out + ": write capture: ", "recording stopped", "(clients are still served)"} {
		if !strings.Contains(said, want) {
			t.Errorf("stderr before ctrl-c lacks %q:\n%s", want, said)
		}
	}
	if code := interrupt(t, cmd, log); code != 1 {
		t.Errorf("exit status %d, want 1:\n%s", code, log)
	}
	c, err := tape.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	whole := 0
	for _, x := range c.Exchanges {
		if x.Client.End != nil {
			whole++
		}
	}
	if whole == 0 || whole >= 7 {
		t.Fatalf("the file holds %d whole exchanges; the tmpfs should fit some, not 7", whole)
	}
	final := log.String()
	if want := fmt.Sprintf("%s recorded to %s (7 served, %d not recorded)", units.Count(whole, "exchange"), out, 7-whole); !strings.Contains(final, want) {
		t.Errorf("stderr lacks %q:\n%s", want, final)
	}
	if want := "seam: capture " + out + ": write capture: "; !strings.Contains(final[strings.LastIndex(final, "recorded to"):], want) {
		t.Errorf("the last line is not the write error:\n%s", final)
	}
	if strings.Contains(final, "interrupted") {
		t.Errorf("the write error is hidden behind the interrupt:\n%s", final)
	}
}

// TestRecordToFullDevice writes the capture to stdout on /dev/full, which
// fails every write with ENOSPC, as a full disk does.
func TestRecordToFullDevice(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	up := streamUpstream(t, 5)
	cmd, log, addr := runSeamLogged(t, full, "record", "--upstream", up.URL, "--listen", "127.0.0.1:0", "-o", "-", "-q")
	waitLog(t, log, "seam: capture stdout: write capture: write /dev/stdout: no space left on device: recording stopped")
	requestStreams(t, addr, 2)
	if code := interrupt(t, cmd, log); code != 1 {
		t.Errorf("exit status %d, want 1:\n%s", code, log)
	}
	for _, want := range []string{"0 exchanges recorded to stdout (2 served, 2 not recorded)", "seam: capture stdout: write capture: write /dev/stdout: no space left on device\n"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
}
