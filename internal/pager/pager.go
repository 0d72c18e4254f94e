package pager

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
)

// Command is the shell command that pages output: SEAM_PAGER, else PAGER,
// else less -FRX when less is installed (it quits at once when the text
// fits the screen, and passes colour through). "" when there is none or
// it is "cat".
func Command(getenv func(string) string) string {
	p := strings.TrimSpace(getenv("SEAM_PAGER"))
	if p == "" {
		p = strings.TrimSpace(getenv("PAGER"))
	}
	if p == "" {
		if _, err := exec.LookPath("less"); err != nil {
			return ""
		}
		p = "less -FRX"
	}
	if p == "cat" {
		return ""
	}
	return p
}

// Pager is a running pager: what is written to it is paged.
type Pager struct {
	in  io.WriteCloser
	cmd *exec.Cmd
}

// Start runs the shell command line (see Command) with its output going
// to stdout and stderr; LESS=FRX is set when getenv has no LESS.
func Start(line string, stdout, stderr io.Writer, getenv func(string) string) (*Pager, error) {
	cmd := exec.Command("sh", "-c", line)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if getenv("LESS") == "" {
		cmd.Env = append(cmd.Environ(), "LESS=FRX")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("pager %s: %w", line, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pager %s: %w", line, err)
	}
	return &Pager{in: in, cmd: cmd}, nil
}

// Write writes p into the pager's input.
func (p *Pager) Write(b []byte) (int, error) { return p.in.Write(b) }

// Close closes the pager's input and waits for the user to leave it.
func (p *Pager) Close() error {
	p.in.Close()
	return p.cmd.Wait()
}

// Left reports whether err is only the reader leaving the pager before
// the end of the text (a write into its closed input), which is no
// failure.
func Left(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}
