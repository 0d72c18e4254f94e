package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/seam-dev/seam/tape"
)

// BuildSeam builds the seam command into dir with the go command on PATH
// and returns the binary's path.
func BuildSeam(dir string) (string, error) {
	bin := filepath.Join(dir, "seam")
	build := exec.Command("go", "build", "-o", bin, "github.com/seam-dev/seam/cmd/seam")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build seam: %v\n%s", err, out)
	}
	return bin, nil
}

// SeamRecord is "seam record" running as its own process, as a user runs
// it, so its CPU and memory are its own.
type SeamRecord struct {
	Cmd *exec.Cmd
	// URL is where it listens, Capture the file it writes.
	URL     string
	Capture string
}

// StartSeamRecord runs the seam binary bin as "seam record" in front of
// upstream on a free loopback port, writing capture (compressed when its
// name ends in .zst), with extra flags after the others.
func StartSeamRecord(bin, upstream, capture string, extra ...string) (*SeamRecord, error) {
	return startSeam(bin, capture, append([]string{"--upstream", upstream}, extra...))
}

// StartSeamForward runs the seam binary bin as "seam record --forward" on
// a free loopback port, decrypting the tunnels to host (host:port) with
// the CA in caDir, trusting the upstream certificates caFile signs, and
// writing capture, with extra flags after the others. Its URL is the
// proxy's, as HTTPS_PROXY takes it.
func StartSeamForward(bin, host, caDir, caFile, capture string, extra ...string) (*SeamRecord, error) {
	return startSeam(bin, capture, append([]string{"--forward", "--host", host, "--ca-dir", caDir, "--ca-file", caFile}, extra...))
}

// startSeam runs "seam record" with args on a free loopback port, writing
// capture, and waits for it to say where it listens.
func startSeam(bin, capture string, args []string) (*SeamRecord, error) {
	args = append([]string{"record", "--listen", "127.0.0.1:0", "-o", capture, "-q"}, args...)
	p := &SeamRecord{Cmd: exec.Command(bin, args...), Capture: capture}
	stderr, err := p.Cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.Cmd.Start(); err != nil {
		return nil, fmt.Errorf("start seam record: %w", err)
	}
	sc := bufio.NewScanner(stderr)
	var said []string
	for sc.Scan() {
		said = append(said, sc.Text())
		if rest, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			p.URL, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if p.URL == "" {
		p.Cmd.Process.Kill()
		p.Cmd.Wait()
		return nil, fmt.Errorf("seam record never said where it listens (%v): %s", sc.Err(), strings.Join(said, "\n"))
	}
	go io.Copy(os.Stderr, stderrRest{sc}) // warnings and errors stay visible
	return p, nil
}

// stderrRest passes on what is left of seam's stderr, line by line, but
// for the lines every run prints (and those every forward run prints).
type stderrRest struct{ sc *bufio.Scanner }

func (s stderrRest) Read(p []byte) (int, error) {
	for s.sc.Scan() {
		line := s.sc.Text()
		if strings.HasPrefix(line, "capturing to ") || strings.Contains(line, " recorded to ") || line == "seam: interrupted" ||
			strings.HasPrefix(line, "intercepting ") || strings.HasPrefix(line, "clients must trust ") {
			continue
		}
		return copy(p, line+"\n"), nil
	}
	return 0, io.EOF
}

// Pid returns the process id.
func (p *SeamRecord) Pid() int { return p.Cmd.Process.Pid }

// Stop interrupts seam record, as ctrl-c does, and waits for it to write
// out its capture and exit.
func (p *SeamRecord) Stop() error {
	p.Cmd.Process.Signal(syscall.SIGINT)
	err := p.Cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 130) {
		return fmt.Errorf("seam record: %w", err)
	}
	return nil
}

// CaptureCheck is what [CheckCapture] found in a capture.
type CaptureCheck struct {
	// Exchanges counts exchanges whose two sides ended complete with the
	// same byte count.
	Exchanges int
	// Incomplete counts those of them whose data the recorder stopped
	// recording because the capture writer fell behind; Skipped those of
	// them it recorded none of (they began while it was behind).
	Incomplete, Skipped int
	// Bytes is the size of the file.
	Bytes int64
}

// CheckCapture reads the capture at path, streaming, and checks that every
// exchange in it completed on both sides with the same bytes and that no
// line is wrong (a hash mismatch, a bad reference, a malformed or torn
// line). It counts the exchanges the recorder could not record whole.
func CheckCapture(path string) (CaptureCheck, error) {
	var c CaptureCheck
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("open capture: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		c.Bytes = st.Size()
	}
	d := tape.NewDecoder(bufio.NewReaderSize(f, 1<<20), path)
	up := map[int]*tape.End{}
	for {
		rec, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c, err
		}
		if rec.Kind != tape.KindEnd {
			continue
		}
		e := rec.End
		if e.Side == tape.Upstream {
			up[e.Ex] = e
			continue
		}
		u := up[e.Ex]
		delete(up, e.Ex)
		if u == nil || u.Outcome != tape.Complete || e.Outcome != tape.Complete || u.Bytes != e.Bytes {
			return c, fmt.Errorf("%s: exchange %d did not complete: upstream %+v, client %+v", path, e.Ex, u, e)
		}
		c.Exchanges++
		if e.Unrecorded != 0 || u.Unrecorded != 0 {
			c.Incomplete++
			if e.Unrecorded == e.Bytes && u.Unrecorded == u.Bytes {
				c.Skipped++
			}
		}
	}
	if w := d.Warnings(); len(w) > 0 {
		return c, fmt.Errorf("%s: %d problems, the first: %w", path, len(w), w[0])
	}
	return c, nil
}
