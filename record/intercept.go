package record

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path"
	"slices"
	"strconv"
	"strings"
)

// DefaultInterceptHosts are the hosts forward mode decrypts and records
// unless told otherwise: the well-known LLM APIs. A "*" matches any
// characters within the name, as in path.Match.
func DefaultInterceptHosts() []string {
	return []string{
		"api.openai.com", "*.openai.azure.com",
		"api.anthropic.com",
		"generativelanguage.googleapis.com", "aiplatform.googleapis.com", "*-aiplatform.googleapis.com",
		"bedrock-runtime.*.amazonaws.com", "bedrock-runtime-fips.*.amazonaws.com",
		"api.mistral.ai", "api.groq.com", "openrouter.ai",
		"api.githubcopilot.com", "*.githubcopilot.com", "copilot-proxy.githubusercontent.com",
	}
}

// InterceptList says which hosts forward mode decrypts and records, and to
// which ports it opens tunnels at all. The zero value intercepts nothing
// and allows only the default ports (443 for CONNECT and https, 80 for
// http).
type InterceptList struct {
	patterns []hostPattern
	all      bool
}

// hostPattern is one entry: a host name or pattern, and the one extra port
// it allows ("" for the default ports only).
type hostPattern struct {
	host string
	port string
}

// NewInterceptList builds the list from host entries, each a name
// ("api.example.com"), a pattern ("*.example.com") or either with a port
// ("127.0.0.1:8443"), which also allows CONNECT to that port for the
// matching hosts. all intercepts every host (the port rule still applies).
func NewInterceptList(hosts []string, all bool) (*InterceptList, error) {
	l := &InterceptList{all: all}
	for _, h := range hosts {
		p, err := parseHostPattern(h)
		if err != nil {
			return nil, err
		}
		l.patterns = append(l.patterns, p)
	}
	return l, nil
}

func parseHostPattern(s string) (hostPattern, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return hostPattern{}, errors.New("empty host")
	}
	if strings.Contains(s, "/") {
		return hostPattern{}, fmt.Errorf("host %q: want a host name or host:port, not a URL", s)
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return hostPattern{}, fmt.Errorf("host %q: port %q is not a number from 1 to 65535", s, p)
		}
	} else if strings.Count(s, ":") == 1 {
		return hostPattern{}, fmt.Errorf("host %q: %v", s, err)
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if _, err := path.Match(host, ""); err != nil {
		return hostPattern{}, fmt.Errorf("host %q: bad pattern: %v", s, err)
	}
	return hostPattern{host: host, port: port}, nil
}

// Names reports whether an entry names host (on any port): forward mode
// then reaches it wherever it resolves, a private address included (see
// [GuardedDial]). Intercepting every host names none.
func (l *InterceptList) Names(host string) bool {
	host = normalHost(host)
	return slices.ContainsFunc(l.patterns, func(p hostPattern) bool { return p.matches(host) })
}

// All reports whether every host is intercepted.
func (l *InterceptList) All() bool { return l.all }

// Hosts returns the entries as given (lower case).
func (l *InterceptList) Hosts() []string {
	out := make([]string, 0, len(l.patterns))
	for _, p := range l.patterns {
		if p.port != "" {
			out = append(out, net.JoinHostPort(p.host, p.port))
		} else {
			out = append(out, p.host)
		}
	}
	return out
}

// Intercepts reports whether requests to host (no port) on port are
// decrypted and recorded.
func (l *InterceptList) Intercepts(host, port, scheme string) bool {
	if !l.PortAllowed(host, port, scheme) {
		return false
	}
	if l.all {
		return true
	}
	host = normalHost(host)
	return slices.ContainsFunc(l.patterns, func(p hostPattern) bool {
		return p.matches(host) && (p.port == "" && port == defaultPort(scheme) || p.port == port)
	})
}

// PortAllowed reports whether forward mode opens a connection to host on
// port: the scheme's default port (443 for https and CONNECT, 80 for
// http), or a port an entry names for that host.
func (l *InterceptList) PortAllowed(host, port, scheme string) bool {
	if port == defaultPort(scheme) {
		return true
	}
	host = normalHost(host)
	return slices.ContainsFunc(l.patterns, func(p hostPattern) bool { return p.port == port && p.matches(host) })
}

func (p hostPattern) matches(host string) bool {
	if p.host == host {
		return true
	}
	ok, _ := path.Match(p.host, host)
	return ok
}

func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// normalHost lower-cases a host name, strips a trailing dot, and writes an
// IP address in its canonical form.
func normalHost(host string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.WithZone("").String()
	}
	return host
}

// hostPort splits an authority ("api.openai.com", "api.openai.com:443",
// "[::1]:8443") into a normalised host and a port, the scheme's default
// when absent.
func hostPort(authority, scheme string) (host, port string, err error) {
	if authority == "" {
		return "", "", errors.New("no host")
	}
	host, port, err = net.SplitHostPort(authority)
	if err != nil {
		// No port: the whole authority is the host.
		host, port = authority, defaultPort(scheme)
		if strings.Count(authority, ":") == 1 {
			return "", "", fmt.Errorf("host %q: %v", authority, err)
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("host %q: bad port %q", authority, port)
	}
	host = normalHost(host)
	if host == "" {
		return "", "", fmt.Errorf("host %q: empty host name", authority)
	}
	return host, port, nil
}

// displayHost is how a capture names host on port: with ":port" only when
// the port is not the scheme's default.
func displayHost(host, port, scheme string) string {
	if port == defaultPort(scheme) {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}
