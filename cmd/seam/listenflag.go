package main

import (
	"fmt"

	"github.com/seam-dev/seam/listen"
)

// listenFlag reads a --listen style value (flag names it) for command
// cmd: a bare port means 127.0.0.1:PORT. An address other machines can
// reach is said on stderr, since what seam records passes through it.
func listenFlag(e *env, cmd, flag string, addr *string) error {
	a, err := listen.Address(*addr)
	if err != nil {
		return &usageError{cmd: cmd, msg: flag + ": " + err.Error(), example: "seam " + cmd + " " + flag + " 127.0.0.1:8080"}
	}
	*addr = a
	if listen.Exposed(a) {
		fmt.Fprintln(e.stderr, "seam "+cmd+": warning: "+listen.ExposedWarning(a))
	}
	return nil
}
