package record

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// UpstreamOptions configures the upstream leg of forward mode.
type UpstreamOptions struct {
	// RootCAs verifies upstream certificates; nil means the system roots.
	RootCAs *x509.CertPool
	// Insecure skips verifying upstream certificates.
	Insecure bool
	// Dial opens upstream connections; nil means a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// UpstreamTransport returns the transport forward mode sends requests
// upstream with: it verifies the real server's certificate (against
// RootCAs), speaks HTTP/2 when the server offers it, never asks for
// compression, never goes through another proxy (HTTPS_PROXY may well name
// seam itself) and, like every http.Transport, never follows redirects.
func UpstreamTransport(o UpstreamOptions) *http.Transport {
	dial := o.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return &http.Transport{
		Proxy:       nil,
		DialContext: dial,
		TLSClientConfig: &tls.Config{
			RootCAs:            o.RootCAs,
			InsecureSkipVerify: o.Insecure,
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}

// ResolveDial returns a dial function that connects to the address m maps
// a "host:port" to, and to the address itself when m has no entry, as curl
// --resolve does. The host the client named still decides the TLS name
// checked and the Host header sent.
func ResolveDial(m map[string]string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return GuardedDial(m, nil)
}

// GuardedDial is [ResolveDial] for a forward proxy that serves other
// machines: unless named is nil, it refuses to connect to an address that
// is not public (loopback, link-local such as the cloud metadata service
// at 169.254.169.254, private, carrier-grade NAT, unspecified, multicast;
// see [NonPublic]) unless named reports that the user named the host (seam's
// --host) or m maps the host:port (--resolve). The address checked is the
// one actually dialled, in the dialer's Control hook, after name
// resolution: a name that resolves to 127.0.0.1 is refused as the address
// is, and so is one rebound to it between a check and the dial. The error
// is a *[RefusedError].
func GuardedDial(m map[string]string, named func(host string) bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if to, ok := m[strings.ToLower(addr)]; ok {
			return d.DialContext(ctx, network, to)
		}
		host, _, err := net.SplitHostPort(addr)
		if named == nil || err == nil && named(normalHost(host)) {
			return d.DialContext(ctx, network, addr)
		}
		g := *d
		g.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &RefusedError{Host: host, Kind: "unparsed"}
			}
			if kind := NonPublic(ap.Addr()); kind != "" {
				return &RefusedError{Host: host, Addr: ap.Addr(), Kind: kind}
			}
			return nil
		}
		return g.DialContext(ctx, network, addr)
	}
}

// RefusedError is the error of a dial [GuardedDial] refused.
type RefusedError struct {
	Host string     // the host the client asked for
	Addr netip.Addr // the address it resolved to
	Kind string     // what the address is: "loopback", "link-local", ...
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("seam: refused to connect to %s at %s, a %s address: a forward proxy listening beyond loopback does not relay to loopback, link-local or private addresses unless --host names the host",
		e.Host, e.Addr, e.Kind)
}

var (
	sharedAddrs = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT (RFC 6598): cloud-internal services live there
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")     // "this network": 0.0.0.0 reaches this machine
	nat64       = netip.MustParsePrefix("64:ff9b::/96")  // an IPv4 address through NAT64 (RFC 6052)
	siteLocal   = netip.MustParsePrefix("fec0::/10")     // deprecated IPv6 site-local, private in practice
	benchmark   = netip.MustParsePrefix("198.18.0.0/15") // network benchmarking (RFC 2544), lab-internal
	ietfProto   = netip.MustParsePrefix("192.0.0.0/24")  // IETF protocol assignments (RFC 6890)
	broadcast   = netip.MustParseAddr("255.255.255.255") // limited broadcast
	documented  = netip.MustParsePrefix("2001:db8::/32") // documentation only: never a real server
	sixToFour   = netip.MustParsePrefix("2002::/16")     // 6to4: an IPv4 address inside
)

// NonPublic says what kind of address ip is when it is not one a forward
// proxy serving other machines may reach for them ("loopback",
// "link-local", "private", ...), "" when it is public. An IPv4 address
// mapped into IPv6, or inside NAT64 or 6to4, is judged as the IPv4
// address.
func NonPublic(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			return NonPublic(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(ip):
			return NonPublic(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsPrivate(), siteLocal.Contains(ip):
		return "private"
	case ip.IsUnspecified(), thisNetwork.Contains(ip):
		return "unspecified"
	case sharedAddrs.Contains(ip):
		return "shared (carrier-grade NAT)"
	case ip.IsMulticast(), ip == broadcast:
		return "multicast"
	case benchmark.Contains(ip), ietfProto.Contains(ip), documented.Contains(ip):
		return "reserved"
	}
	return ""
}
