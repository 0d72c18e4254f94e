package listen

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// TestAddress: a bare port is the loopback interface's; anything else is
// taken as net.Listen takes it, or refused saying what was expected.
func TestAddress(t *testing.T) {
	for in, want := range map[string]string{
		"8080": "127.0.0.1:8080", "0": "127.0.0.1:0", "127.0.0.1:9": "127.0.0.1:9",
		":8080": ":8080", "[::1]:80": "[::1]:80", "localhost:0": "localhost:0",
	} {
		if got, err := Address(in); err != nil || got != want {
			t.Errorf("Address(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "70000", "localhost", "host:port", "1.2.3.4:99999"} {
		if got, err := Address(in); err == nil {
			t.Errorf("Address(%q) = %q, want an error", in, got)
		}
	}
	for addr, exposed := range map[string]bool{
		"127.0.0.1:80": false, "127.1.2.3:80": false, "[::1]:80": false, "localhost:80": false,
		":80": true, "0.0.0.0:80": true, "[::]:80": true, "192.168.1.4:80": true, "example.com:80": true,
	} {
		if Exposed(addr) != exposed {
			t.Errorf("Exposed(%q) = %v", addr, !exposed)
		}
	}
}

// TestInUseHint: a listen failing on a held port gets advice naming that
// port; any other error gets none.
func TestInUseHint(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_, err = net.Listen("tcp", held.Addr().String())
	_, port, _ := net.SplitHostPort(held.Addr().String())
	if h := InUseHint(err); !strings.Contains(h, "holds port "+port+" (lsof -i :"+port) {
		t.Errorf("hint for %v: %q", err, h)
	}
	if h := InUseHint(errors.New("listen: permission denied")); h != "" {
		t.Errorf("hint for another error: %q", h)
	}
}
