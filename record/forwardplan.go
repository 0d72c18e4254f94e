package record

import (
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/tlsca"
	"github.com/seam-dev/seam/visible"
)

// ForwardConfig is forward mode as a command line asks for it.
type ForwardConfig struct {
	Hosts        []string // also intercept these: names, *.patterns or host:port
	InterceptAll bool     // decrypt and record every host
	CAFiles      []string // PEM files of more roots to trust for upstreams
	Insecure     bool     // do not verify upstream certificates
	Resolve      []string // host:port:addr, connect to addr for host:port
	Listen       string   // the proxy's listen address
}

// ForwardPlan is what forward mode intercepts and how it reaches upstreams.
type ForwardPlan struct {
	Intercept *InterceptList
	Upstream  UpstreamOptions
	// AllowRemote is set when the proxy listens beyond loopback: its
	// upstream dial then refuses this machine's and its network's
	// addresses unless Hosts names them.
	AllowRemote bool
	// CA mints the intercepted hosts' certificates; CACreated says OpenCA
	// made it for this run.
	CA        *tlsca.Authority
	CACreated bool
	// Log hears a line per tunnel to a host not intercepted (nil: none);
	// Quiet leaves out those that opened, not those that failed.
	Log   io.Writer
	Quiet bool
}

// OpenCA loads seam's CA from dir (tlsca.Dir), creating it on first use.
func (p *ForwardPlan) OpenCA(dir string) error {
	ca, created, err := tlsca.Open(dir)
	p.CA, p.CACreated = ca, created
	return err
}

// Proxy builds the forward proxy in front of h: a forward-mode
// [Recorder] (an [Endpoint]'s Forward), or a mock upstream answering from
// captures.
func (p *ForwardPlan) Proxy(h http.Handler) (*Forward, error) {
	opts := ForwardOptions{Handler: h, Intercept: p.Intercept, Authority: p.CA,
		AllowRemote: p.AllowRemote, Dial: p.Upstream.Dial, Transport: UpstreamTransport(p.Upstream)}
	if p.Log != nil {
		opts.OnTunnel = func(hostport string, err error) {
			switch {
			case err != nil:
				// Said even when quiet: the client got an error, not an answer.
				fmt.Fprintln(p.Log, visible.String(fmt.Sprintf("tunnel %s failed: %v", hostport, err)))
			case !p.Quiet:
				fmt.Fprintln(p.Log, visible.String(fmt.Sprintf("tunnel %s (not intercepted, not recorded)", hostport)))
			}
		}
	}
	return NewForward(opts)
}

// Serve sets leg up to be the forward proxy: requests come to it as to a
// proxy, the intercepted ones reach leg's handler, and upstreams are
// reached as the plan says.
func (p *ForwardPlan) Serve(leg *Endpoint) {
	leg.Forward, leg.Transport = p.Proxy, UpstreamTransport(p.Upstream)
}

// Note is the capture's note for a forward-mode recording: what it
// intercepts.
func (p *ForwardPlan) Note() string {
	if p.Intercept.All() {
		return "forward proxy: intercepting every host"
	}
	return "forward proxy: intercepting " + strings.Join(p.Intercept.Hosts(), ", ")
}

// ConfigError is a mistake in the value of one of a ForwardConfig's
// flags, named by Flag (--host, --resolve).
type ConfigError struct {
	Flag string
	Msg  string
}

func (e *ConfigError) Error() string { return e.Flag + " " + e.Msg }

// Plan checks c and returns its plan; a mistake in Hosts or Resolve is a
// *ConfigError, an unreadable CA file another error.
func (c ForwardConfig) Plan() (*ForwardPlan, error) {
	p := &ForwardPlan{}
	var hosts []string
	if !c.InterceptAll {
		hosts = DefaultInterceptHosts()
	}
	var err error
	if p.Intercept, err = NewInterceptList(append(hosts, c.Hosts...), c.InterceptAll); err != nil {
		return nil, &ConfigError{Flag: "--host", Msg: err.Error()}
	}
	resolve := map[string]string{}
	for _, r := range c.Resolve {
		host, rest, ok := strings.Cut(r, ":")
		port, addr, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 || host == "" || port == "" || addr == "" {
			return nil, &ConfigError{Flag: "--resolve", Msg: fmt.Sprintf("%q: want host:port:addr, e.g. api.openai.com:443:127.0.0.1:8443", r)}
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(strings.Trim(addr, "[]"), port)
		}
		resolve[strings.ToLower(net.JoinHostPort(host, port))] = addr
	}
	p.AllowRemote = listen.Exposed(c.Listen)
	p.Upstream.Dial = ResolveDial(resolve)
	if p.AllowRemote {
		// Other machines may use the proxy: it does not reach this one's
		// services, nor its network's, for them unless Hosts names them.
		named, err := NewInterceptList(c.Hosts, false)
		if err != nil {
			return nil, &ConfigError{Flag: "--host", Msg: err.Error()}
		}
		p.Upstream.Dial = GuardedDial(resolve, named.Names)
	}
	p.Upstream.Insecure = c.Insecure
	if len(c.CAFiles) > 0 {
		if p.Upstream.RootCAs, err = rootPool(c.CAFiles); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// rootPool is the system's roots and those in the PEM files.
func rootPool(files []string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--ca-file: %w", err)
		}
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("--ca-file %s: no PEM certificate in it", file)
		}
	}
	return pool, nil
}

// Announce writes what forward mode does once listening at addr: what it
// intercepts, the CA clients must trust (and that it was made for this
// run), and the warnings insecure and AllowRemote call for.
func (p *ForwardPlan) Announce(w io.Writer, addr net.Addr, insecure bool) {
	ca := p.CA
	if p.Intercept.All() {
		fmt.Fprintln(w, "intercepting every host (--intercept-all)")
	} else {
		fmt.Fprintf(w, "intercepting %s; other hosts are tunnelled, not recorded\n", strings.Join(p.Intercept.Hosts(), ", "))
	}
	if p.CACreated {
		fmt.Fprintf(w, "created seam's CA: %s\n", ca.CertPath())
	}
	fmt.Fprintf(w, "clients must trust %s: run \"seam ca\" for how (e.g. NODE_EXTRA_CA_CERTS=%s HTTPS_PROXY=http://%s node app.js)\n",
		ca.CertPath(), shellquote.Word(ca.CertPath()), addr)
	if s := tlsca.ExpiryWarning(ca, time.Now()); s != "" {
		fmt.Fprintln(w, "warning: "+s)
	}
	if insecure {
		fmt.Fprintln(w, "warning: --insecure: upstream certificates are NOT verified (the capture header says so)")
	}
	if p.AllowRemote {
		fmt.Fprintln(w, "warning: listening beyond loopback: any client that reaches this address can use the proxy; "+
			"it refuses to connect to loopback, link-local (the cloud metadata service at 169.254.169.254) and private addresses, "+
			"checked on the address each name resolves to, unless --host names the host")
	}
}
