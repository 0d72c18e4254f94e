package main

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
)

// pagedCommands are the commands whose text can run past a screen; on a
// terminal it goes through a pager, as git's and gh's does.
var pagedCommands = map[string]bool{"inspect": true, "diff": true, "grep": true, "stats": true, "replay": true}

// pagerCommand is the shell command that pages seam's output: SEAM_PAGER,
// else PAGER, else less -FRX when less is installed (it quits at once
// when the text fits the screen, and passes colour through). "" when
// there is none or it is "cat".
func pagerCommand(getenv func(string) string) string {
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

// withPager returns e with its stdout going to a pager when e's stdout is
// a terminal and one is configured, and a func that closes the pager's
// input and waits for the user to leave it. It returns e unchanged (and a
// func doing nothing) otherwise, or when the pager does not start.
func (e *env) withPager() (*env, func()) {
	p := pagerCommand(e.getenv)
	if !e.terminal || p == "" {
		return e, func() {}
	}
	cmd := exec.Command("sh", "-c", p)
	cmd.Stdout, cmd.Stderr = e.stdout, e.stderr
	if e.getenv("LESS") == "" {
		cmd.Env = append(cmd.Environ(), "LESS=FRX")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return e, func() {}
	}
	if err := cmd.Start(); err != nil {
		return e, func() {}
	}
	paged := *e
	paged.pageWidth = termWidth(e, e.stdout)
	paged.stdout = in
	paged.terminal = false
	paged.paging = true
	return &paged, func() {
		in.Close()
		cmd.Wait()
	}
}

// leftPager reports whether err is only the user leaving the pager before
// the end of the text (a write into its closed input), which is no
// failure.
func leftPager(e *env, err error) bool {
	return e.paging && (errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe))
}
