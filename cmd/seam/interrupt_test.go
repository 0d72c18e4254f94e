package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeExchanges writes to w a capture of n copies of the first exchange
// of the fixture anthropic-tool-use.ndjson (a streamed tool call, 7 KB),
// numbered 1 to n.
func writeExchanges(t *testing.T, w io.Writer, n int) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(fixturesDir, "anthropic-tool-use.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(src, []byte("\n"))
	var ex [][]byte
	for _, l := range lines[1:] {
		if bytes.Contains(l, []byte(`"ex":1,`)) {
			ex = append(ex, l)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.Write(lines[0])
	bw.WriteByte('\n')
	for i := 1; i <= n; i++ {
		num := fmt.Appendf(nil, `"ex":%d,`, i)
		for _, l := range ex {
			bw.Write(bytes.Replace(l, []byte(`"ex":1,`), num, 1))
			bw.WriteByte('\n')
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}

// exchangesFile writes a capture of n exchanges (see writeExchanges) into
// a temporary directory and returns its path.
func exchangesFile(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "many.ndjson")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	writeExchanges(t, f, n)
	return path
}

// signalDelay is when the interrupt tests signal seam: 300 ms, and more
// when seam is slow to start (under -race, on a loaded machine), since a
// signal that comes before main installs its handler kills seam (143 or
// -1) instead of interrupting it. It is measured at each call, seam
// version's run time then, as the load of a machine running the other
// packages' tests changes.
func signalDelay(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	if err := exec.Command("seam", "version").Run(); err != nil {
		t.Fatalf("seam version: %v", err)
	}
	return 300*time.Millisecond + 5*time.Since(start)
}

// interrupted runs seam with args under timeout (underTimeout), the
// signal after signalDelay, with the stdin stdin makes (nil: none), and
// returns what it did and when the signal came. A run the signal reached
// before seam's handler was installed (killed by it: 143 or -1, which says
// nothing of how seam handles it) is run again, up to three times, with
// the signal twice as late each time.
func interrupted(t *testing.T, stdin func() io.Reader, args ...string) (code int, stderr string, took, after time.Duration) {
	t.Helper()
	after = signalDelay(t)
	for try := 0; ; try++ {
		var in io.Reader
		if stdin != nil {
			in = stdin()
		}
		code, stderr, took = underTimeout(t, after, in, args...)
		if code != 143 && code != -1 || try == 2 {
			return code, stderr, took, after
		}
		t.Logf("seam %s: killed by the signal at %s, before its handler was installed; again with it later", args[0], after.Round(time.Millisecond))
		after *= 2
	}
}

// underTimeout runs seam with args under timeout(1), which sends SIGTERM
// after after and SIGKILL 20 s later, with stdin from stdin (nil: none),
// and returns seam's own exit status (timeout --preserve-status), its
// stderr and how long it ran.
func underTimeout(t *testing.T, after time.Duration, stdin io.Reader, args ...string) (int, string, time.Duration) {
	t.Helper()
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Skip("no timeout(1) on this machine")
	}
	targs := append([]string{"--preserve-status", "-k", "20", fmt.Sprintf("%.3f", after.Seconds()), "seam"}, args...)
	cmd := exec.Command("timeout", targs...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String(), took
}

// TestInterruptBusy: "timeout 1 seam CMD …" ends with seam's interrupted
// status (130), soon after the one SIGTERM timeout sends, for every command
// that reads captures, on a capture it would take seconds over. Before,
// the signal only cancelled a context nothing checked while the commands
// worked through their input, and timeout had to SIGKILL them.
func TestInterruptBusy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs seam on a large capture")
	}
	// 20,000 exchanges, 146 MB: each command takes 1.3 to 6 s over it
	// without -race (grep the least), five times that with it, well past
	// the signal.
	big := exchangesFile(t, 20000)
	dir := t.TempDir()
	cmds := [][]string{
		{"inspect", big},
		{"stats", big},
		{"grep", "weather", big},
		{"check", big},
		{"report", "-o", filepath.Join(dir, "big.html"), big},
		{"export", "--format", "har", big},
		{"diff", big, big},
		{"replay", "--speed", "1", big}, // paced: replay alone reads the file in 1.25 s
		{"import", "-o", filepath.Join(dir, "imported.ndjson"), big},
	}
	for _, args := range cmds {
		t.Run(args[0], func(t *testing.T) {
			code, stderr, took, after := interrupted(t, nil, args...)
			if code != 130 || took > after+5*time.Second {
				t.Errorf("seam %s under timeout: exit %d after %s, want 130 soon after the signal at %s; stderr:\n%s", args[0], code, took.Round(time.Millisecond), after.Round(time.Millisecond), stderr)
			}
			if strings.Contains(stderr, "goroutine ") {
				t.Errorf("a stack trace on stderr:\n%s", stderr)
			}
		})
	}
}

// TestInterruptBlocked: a command reading a pipe that never ends (stdin
// here, a named pipe or a network mount alike) ends on the first signal:
// reads of an input give up once interrupted.
func TestInterruptBlocked(t *testing.T) {
	var head bytes.Buffer
	writeExchanges(t, &head, 3)
	cmds := [][]string{
		{"inspect", "-"},
		{"stats", "-"},
		{"grep", "weather", "-"},
		{"report", "-o", filepath.Join(t.TempDir(), "r.html"), "-"},
		{"export", "--format", "har", "-"},
		{"import", "-o", filepath.Join(t.TempDir(), "imported.ndjson"), "-"},
	}
	for _, args := range cmds {
		t.Run(args[0], func(t *testing.T) {
			// A pipe per run, its writer held open: the input never ends.
			stdin := func() io.Reader {
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { pr.Close(); pw.Close() })
				if _, err := pw.Write(head.Bytes()); err != nil {
					t.Fatal(err)
				}
				return pr
			}
			code, stderr, took, after := interrupted(t, stdin, args...)
			if code != 130 || took > after+5*time.Second {
				t.Errorf("seam %s reading an endless stdin under timeout: exit %d after %s, want 130 soon after the signal; stderr:\n%s", args[0], code, took.Round(time.Millisecond), stderr)
			}
		})
	}
}

// TestSecondSignal: a second ctrl-c ends seam at once with status 130,
// whatever it is waiting for (here to open a named pipe nobody writes,
// which no context reaches); a signal no longer goes unanswered.
func TestSecondSignal(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "never.ndjson")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	delay := signalDelay(t)
	cmd, stderr := spawnSeam(t, nil, "inspect", fifo)
	said := make(chan string, 1)
	go func() { b, _ := io.ReadAll(stderr); said <- string(b) }()
	time.Sleep(delay) // seam is in open(2)
	cmd.Process.Signal(os.Interrupt)
	time.Sleep(2 * signalEcho)
	cmd.Process.Signal(os.Interrupt)
	// stderr is read to its end (seam exiting closes it) before Wait, which
	// closes the pipe: waiting first could lose what seam said.
	var s string
	select {
	case s = <-said:
	case <-time.After(3 * time.Second):
		t.Fatal("seam still running 3 s after a second ctrl-c")
	}
	if !exited(cmd, 3*time.Second) {
		t.Fatal("seam closed its stderr but did not exit")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("after a second ctrl-c: exit %d, want 130; stderr:\n%s", code, s)
	}
	if !strings.Contains(s, "interrupted again") {
		t.Errorf("stderr %q does not say why seam stopped", s)
	}
}

// exited waits up to d for cmd to end, and kills it if it has not.
func exited(cmd *exec.Cmd, d time.Duration) bool {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return false
	}
}

// TestBrokenPipe: "seam inspect … | head" ends seam when head leaves,
// quietly: no error message and no stack trace.
func TestBrokenPipe(t *testing.T) {
	big := exchangesFile(t, 2000)
	for _, args := range [][]string{{"inspect", big}, {"inspect", "--json", big}, {"grep", "weather", big}, {"export", "--format", "har", big}} {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd, stderr := spawnSeam(t, pw, args...)
		pw.Close()
		said := make(chan string, 1)
		go func() { b, _ := io.ReadAll(stderr); said <- string(b) }()
		if _, err := io.ReadFull(pr, make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		pr.Close() // head has what it wants
		if !exited(cmd, 20*time.Second) {
			t.Fatalf("seam %s still running 20 s after its stdout closed", strings.Join(args[:len(args)-1], " "))
		}
		st := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !(st.Signaled() && st.Signal() == syscall.SIGPIPE) && st.ExitStatus() != 141 {
			t.Errorf("seam %s: %v, want SIGPIPE or exit 141", args[0], cmd.ProcessState)
		}
		if s := <-said; s != "" {
			t.Errorf("seam %s wrote on stderr after its stdout closed:\n%s", args[0], s)
		}
	}
}

// brokenStdout fails every write as a pipe with no reader does when
// SIGPIPE is ignored.
type brokenStdout struct{}

func (brokenStdout) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// TestBrokenPipeIgnoredSIGPIPE: with SIGPIPE ignored (as some parents start
// their children), writes to a pipe without a reader fail with EPIPE
// instead of ending the process: seam then ends quietly with 141, as a
// shell reports a process ended by SIGPIPE.
func TestBrokenPipeIgnoredSIGPIPE(t *testing.T) {
	var stderr bytes.Buffer
	code := runSeam(context.Background(), nil, brokenStdout{}, &stderr, "inspect", filepath.Join(fixturesDir, "anthropic-tool-use.ndjson"))
	if code != 141 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q; want 141 and nothing said", code, stderr.String())
	}
}
