// Package shellquote quotes words for a POSIX shell, so that what seam
// prints for a user to run (a hint naming a capture, a curl command sent
// again from a capture) passes every byte of the word to the command as
// one argument and lets the shell expand, substitute or run nothing.
//
// Quote single-quotes every word; Word leaves a word bare when it is made
// only of characters no shell treats specially. Neither quotes for another
// shell (cmd.exe, PowerShell) or for a double-quoted context.
package shellquote
