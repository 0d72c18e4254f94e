// Package pager sends text through a pager, as git and gh do: which pager
// the environment names (SEAM_PAGER, PAGER, else less -FRX when installed),
// starting it with its input a pipe, and telling a reader who left the
// pager early from a failed write.
//
// It does not decide whether to page: the command does, from whether its
// stdout is a terminal and what it prints; nor does it read the process's
// environment (a getenv is passed in).
package pager
