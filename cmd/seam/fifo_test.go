package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fifoDir makes a directory holding a copy of the fixture
// anthropic-tool-use.ndjson and its golden, a named pipe named as a
// capture (pipe.ndjson), and a capture (piped.ndjson) whose golden is a
// named pipe, as a tarball can carry them. Nothing ever writes the pipes:
// opening one for reading waits forever.
func fifoDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"anthropic-tool-use.ndjson", "anthropic-tool-use.expect.json"} {
		b, err := os.ReadFile(filepath.Join(fixturesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.ndjson"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return dir
}

// seamWithin runs the seam binary with args and returns its exit status,
// stdout and stderr, failing the test if it runs longer than d.
func seamWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command("seam", args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !exited(cmd, d) {
		t.Fatalf("seam %s still running after %s (stderr: %q)", strings.Join(args, " "), d, stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestDirectoryFIFO: a named pipe named *.ndjson in a directory no longer
// holds stats, inspect, grep, check, export or serve on the directory
// forever: it is skipped with a note naming it, and the regular captures
// beside it are read.
func TestDirectoryFIFO(t *testing.T) {
	dir := fifoDir(t)
	pipe := filepath.Join(dir, "pipe.ndjson")
	for _, args := range [][]string{
		{"stats", dir},
		{"inspect", dir},
		{"grep", "weather", dir},
		{"check", dir},
		{"export", "--format", "har", dir},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, stdout, stderr := seamWithin(t, 20*time.Second, args...)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, "seam: note: skipped "+pipe+": not a regular file: a named pipe (FIFO)") {
				t.Errorf("stderr does not name the pipe skipped:\n%s", stderr)
			}
			if !strings.Contains(stdout, "claude-sonnet-4") && !strings.Contains(stdout, "1 passed") && !strings.Contains(stdout, "get_weather") {
				t.Errorf("the capture beside the pipe was not read:\n%s", stdout)
			}
		})
	}
	t.Run("serve", func(t *testing.T) {
		cmd, stderr := spawnSeam(t, nil, "serve", "--listen", "127.0.0.1:0", dir)
		lines := make(chan string, 4)
		go func() {
			br := bufio.NewReader(stderr)
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					close(lines)
					return
				}
				lines <- line
			}
		}()
		var said []string
		timeout := time.After(20 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("seam serve ended: %v\n%s", cmd.Wait(), strings.Join(said, ""))
				}
				said = append(said, line)
				if strings.Contains(line, "serving 1 exchange from 1 capture") {
					if !strings.Contains(strings.Join(said, ""), "skipped "+pipe+": not a regular file") {
						t.Errorf("serve did not say it skipped the pipe:\n%s", strings.Join(said, ""))
					}
					return
				}
			case <-timeout:
				t.Fatalf("seam serve not serving after 20 s:\n%s", strings.Join(said, ""))
			}
		}
	})
}

// TestGoldenFIFO: seam check on a fixture whose golden is a named pipe
// fails that fixture, saying why, instead of waiting on the pipe.
func TestGoldenFIFO(t *testing.T) {
	dir := fifoDir(t)
	golden := filepath.Join(dir, "anthropic-tool-use.expect.json")
	if err := os.Remove(golden); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(golden, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := seamWithin(t, 20*time.Second, "check", filepath.Join(dir, "anthropic-tool-use.ndjson"))
	if code != 1 || !strings.Contains(stdout, "FAIL") || !strings.Contains(stdout, "not a regular file: a named pipe (FIFO)") {
		t.Fatalf("exit %d, want 1 and the golden named as a pipe; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestExplicitFIFO: a named pipe given on the command line is read, as a
// shell's process substitution, <(zstdcat capture.ndjson.zst), passes one:
// seam waits for its writer.
func TestExplicitFIFO(t *testing.T) {
	dir := fifoDir(t)
	pipe := filepath.Join(dir, "pipe.ndjson")
	go func() {
		f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		src, _ := os.Open(filepath.Join(dir, "anthropic-tool-use.ndjson"))
		defer src.Close()
		io.Copy(f, src)
	}()
	code, stdout, stderr := seamWithin(t, 20*time.Second, "stats", pipe)
	if code != 0 || !strings.Contains(stdout, "claude-sonnet-4") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
