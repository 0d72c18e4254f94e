package listen

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// Address reads a --listen value: "HOST:PORT" as net.Listen takes it, or a
// bare port ("8080"), which means 127.0.0.1:8080 (seam listens on the
// loopback interface unless told otherwise). It refuses a value net.Listen
// would refuse, saying what was expected.
func Address(s string) (string, error) {
	if s == "" {
		return "", errors.New("an empty address: want HOST:PORT, or a port alone for 127.0.0.1:PORT")
	}
	if _, err := strconv.ParseUint(s, 10, 16); err == nil {
		return net.JoinHostPort("127.0.0.1", s), nil
	}
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", fmt.Errorf("%q is not HOST:PORT (or a port alone for 127.0.0.1:PORT): %w", s, err)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || (n == 0 && port != "0") {
		return "", fmt.Errorf("%q: the port %q is not a number from 0 to 65535", s, port)
	}
	return s, nil
}

// Exposed reports whether addr (an Address) listens beyond this machine:
// any host but a loopback one (127.0.0.0/8, ::1, localhost). An empty
// host (":8080") listens on every interface.
func Exposed(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return true
	}
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// ExposedWarning is what seam says when it listens beyond this machine:
// the prompts and answers it records pass through that listener.
func ExposedWarning(addr string) string {
	return fmt.Sprintf("%s is reachable from other machines, and so is every prompt and answer seam passes or serves (use 127.0.0.1:PORT unless you mean it)", addr)
}

// InUse reports whether err is a listen failing on an address another
// process holds.
func InUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE)
}

// InUseHint is the advice for a listen that failed because another
// process holds the address, "" for any other error.
func InUseHint(err error) string {
	if !InUse(err) {
		return ""
	}
	port := "PORT"
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		if _, p, err := net.SplitHostPort(op.Addr.String()); err == nil {
			port = p
		}
	}
	return fmt.Sprintf("--listen 127.0.0.1:0 picks a free port; or stop what holds port %s (lsof -i :%s, ss -ltnp)", port, port)
}
