package main

import (
	"github.com/seam-dev/seam/internal/pager"
)

// pagedCommands are the commands whose text can run past a screen; on a
// terminal it goes through a pager, as git's and gh's does.
var pagedCommands = map[string]bool{"inspect": true, "diff": true, "grep": true, "stats": true, "replay": true}

// withPager returns e with its stdout going to a pager when e's stdout is
// a terminal and one is configured, and a func that closes the pager's
// input and waits for the user to leave it. It returns e unchanged (and a
// func doing nothing) otherwise, or when the pager does not start.
func (e *env) withPager() (*env, func()) {
	line := pager.Command(e.getenv)
	if !e.terminal || line == "" {
		return e, func() {}
	}
	p, err := pager.Start(line, e.stdout, e.stderr, e.getenv)
	if err != nil {
		return e, func() {}
	}
	paged := *e
	paged.pageWidth = termWidth(e, e.stdout)
	paged.stdout = p
	paged.terminal = false
	paged.paging = true
	return &paged, func() { p.Close() }
}

// leftPager reports whether err is only the user leaving the pager before
// the end of the text, which is no failure.
func leftPager(e *env, err error) bool {
	return e.paging && pager.Left(err)
}
