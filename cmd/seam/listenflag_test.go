package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestListenBarePort: --listen 8080 is 127.0.0.1:8080 (it was refused with
// "missing port in address"), on the loopback interface only.
func TestListenBarePort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close() // free again: seam takes it
	out := filepath.Join(t.TempDir(), "c.ndjson")
	_, addr := startSeam(t, `listening on http://(\S+)`, "record", "--upstream", "http://127.0.0.1:9", "--listen", port, "-o", out)
	if addr != "127.0.0.1:"+port {
		t.Errorf("--listen %s listens on %s, want 127.0.0.1:%s", port, addr, port)
	}
}

// TestListenBusyPort: a port another process holds is said with the cause
// and a try: line naming a way out; a malformed address is a usage error
// (exit 2) that says what was expected.
func TestListenBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().String()
	_, port, _ := net.SplitHostPort(busy)
	out := filepath.Join(t.TempDir(), "c.ndjson")
	for _, args := range [][]string{
		{"record", "--upstream", "http://127.0.0.1:9", "--listen", busy, "-o", out},
		{"serve", "--listen", busy, "../../fixtures/anthropic-tool-use.ndjson"},
	} {
		var stderr bytes.Buffer
		code := runSeam(context.Background(), nil, &bytes.Buffer{}, &stderr, args...)
		if code != 1 || !strings.Contains(stderr.String(), "address already in use") || !strings.Contains(stderr.String(), "try: --listen 127.0.0.1:0 picks a free port; or stop what holds port "+port) {
			t.Errorf("seam %s on a busy port: exit %d, stderr:\n%s", args[0], code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	code := runSeam(context.Background(), nil, &bytes.Buffer{}, &stderr, "record", "--upstream", "http://127.0.0.1:9", "--listen", "localhost:http8080", "-o", out)
	if code != 2 || !strings.Contains(stderr.String(), "is not a number from 0 to 65535") || !strings.Contains(stderr.String(), "try: seam record --listen 127.0.0.1:8080") {
		t.Errorf("a malformed --listen: exit %d, stderr:\n%s", code, stderr.String())
	}
}

// TestListenExposedWarns: listening beyond loopback is said on stderr,
// since every prompt and answer seam passes is then reachable.
func TestListenExposedWarns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.ndjson")
	cmd, stderr := spawnSeam(t, nil, "record", "--upstream", "http://127.0.0.1:9", "--listen", "0.0.0.0:0", "-o", out)
	defer cmd.Process.Kill()
	// Every line up to the listening banner (the warning comes before it;
	// TestListenBarePort's banner, first, shows a loopback listen has none).
	var said strings.Builder
	br := bufio.NewReader(stderr)
	for !strings.Contains(said.String(), "listening on ") {
		line, err := br.ReadString('\n')
		said.WriteString(line)
		if err != nil {
			break
		}
	}
	if !strings.Contains(said.String(), "seam record: warning: 0.0.0.0:0 is reachable from other machines") {
		t.Errorf("no warning for --listen 0.0.0.0:0:\n%s", said.String())
	}
}
