package record_test

import (
	"net/url"
	"strconv"
	"syscall"
	"testing"
)

// deadUpstream returns the URL of a loopback port that refuses connections
// for the rest of the test: a socket bound to it but never listening. Unlike
// a port whose listener was closed, no parallel test can be handed it.
func deadUpstream(t *testing.T) *url.URL {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	port := sa.(*syscall.SockaddrInet4).Port
	return &url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(port)}
}
