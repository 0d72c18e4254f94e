package main

import (
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seam-dev/seam/capture"
	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/tlsca"
	"github.com/seam-dev/seam/visible"
)

// forwardFlags are the flags of forward mode, shared by the commands that
// act as a forward proxy.
type forwardFlags struct {
	forward      bool
	hosts        listFlag
	interceptAll bool
	caFiles      listFlag
	insecure     bool
	resolve      listFlag
	caDir        string
}

func (f *forwardFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.forward, "forward", false, "be a forward proxy (HTTPS_PROXY) instead of a base URL: see above")
	fs.Var(&f.hosts, "host", "with --forward, also intercept `host`, a name, a *.pattern or host:port (repeatable)")
	fs.BoolVar(&f.interceptAll, "intercept-all", false, "with --forward, decrypt and record every host, not only the LLM APIs")
	fs.Var(&f.caFiles, "ca-file", "with --forward, also trust the CA certificates in PEM `file` for upstreams (repeatable)")
	fs.BoolVar(&f.insecure, "insecure", false, "with --forward, do not verify upstream certificates (recorded in the capture)")
	fs.Var(&f.resolve, "resolve", "with --forward, connect to `host:port:addr` instead of resolving host:port, as curl --resolve (repeatable)")
	fs.StringVar(&f.caDir, "ca-dir", "", "`directory` of seam's CA (default $SEAM_CA_DIR, else the user config directory's seam/)")
}

// used reports the first forward-only flag given, for "needs --forward".
func (f *forwardFlags) used() string {
	switch {
	case len(f.hosts) > 0:
		return "--host"
	case f.interceptAll:
		return "--intercept-all"
	case len(f.caFiles) > 0:
		return "--ca-file"
	case f.insecure:
		return "--insecure"
	case len(f.resolve) > 0:
		return "--resolve"
	}
	return ""
}

// forwardSetup is forward mode ready to run: the CA, what to intercept and
// how to reach upstreams.
type forwardSetup struct {
	ca          *tlsca.Authority
	caCreated   bool
	intercept   *capture.InterceptList
	upstream    capture.UpstreamOptions
	allowRemote bool
	log         io.Writer
	quiet       bool
}

// setup checks the flags, loads the CA (creating it on first use) and the
// extra roots. listen is the proxy's listen address.
func (f *forwardFlags) setup(e *env, cmd, listenAddr string) (*forwardSetup, error) {
	usage := func(msg string) error {
		return &usageError{cmd: cmd, msg: msg, example: "seam " + cmd + " --forward --host api.example.com"}
	}
	s := &forwardSetup{log: e.stderr}
	var hosts []string
	if !f.interceptAll {
		hosts = capture.DefaultInterceptHosts()
	}
	var err error
	if s.intercept, err = capture.NewInterceptList(append(hosts, f.hosts...), f.interceptAll); err != nil {
		return nil, usage("--host " + err.Error())
	}
	resolve := map[string]string{}
	for _, r := range f.resolve {
		host, rest, ok := strings.Cut(r, ":")
		port, addr, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 || host == "" || port == "" || addr == "" {
			return nil, usage(fmt.Sprintf("--resolve %q: want host:port:addr, e.g. api.openai.com:443:127.0.0.1:8443", r))
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(strings.Trim(addr, "[]"), port)
		}
		resolve[strings.ToLower(net.JoinHostPort(host, port))] = addr
	}
	s.allowRemote = listen.Exposed(listenAddr)
	s.upstream.Dial = capture.ResolveDial(resolve)
	if s.allowRemote {
		// Other machines may use the proxy: it does not reach this one's
		// services, nor its network's, for them unless --host names them.
		named, err := capture.NewInterceptList(f.hosts, false)
		if err != nil {
			return nil, usage("--host " + err.Error())
		}
		s.upstream.Dial = capture.GuardedDial(resolve, named.Names)
	}
	s.upstream.Insecure = f.insecure
	if len(f.caFiles) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		for _, file := range f.caFiles {
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("--ca-file: %w", err)
			}
			if !pool.AppendCertsFromPEM(b) {
				return nil, fmt.Errorf("--ca-file %s: no PEM certificate in it", file)
			}
		}
		s.upstream.RootCAs = pool
	}
	dir, err := caDir(e, f.caDir)
	if err != nil {
		return nil, err
	}
	if s.ca, s.caCreated, err = tlsca.Open(dir); err != nil {
		return nil, err
	}
	return s, nil
}

// caDir is where seam's CA lives: flag (--ca-dir) when given, else
// $SEAM_CA_DIR, else seam/ in the user's config directory.
func caDir(e *env, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if d := e.getenv("SEAM_CA_DIR"); d != "" {
		return d, nil
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the CA directory: %w (set SEAM_CA_DIR or --ca-dir)", err)
	}
	return filepath.Join(cfg, "seam"), nil
}

// proxy builds the forward proxy in front of h (a forward-mode recorder,
// or seam serve's mock).
func (s *forwardSetup) proxy(h http.Handler) (*capture.Forward, error) {
	opts := capture.ForwardOptions{
		Handler: h, Intercept: s.intercept, Authority: s.ca,
		AllowRemote: s.allowRemote, Dial: s.upstream.Dial,
		Transport: capture.UpstreamTransport(s.upstream),
	}
	opts.OnTunnel = func(hostport string, err error) {
		switch {
		case err != nil:
			// Said even with -q: the client got an error, not an answer.
			fmt.Fprintln(s.log, visible.String(fmt.Sprintf("tunnel %s failed: %v", hostport, err)))
		case !s.quiet:
			fmt.Fprintln(s.log, visible.String(fmt.Sprintf("tunnel %s (not intercepted, not recorded)", hostport)))
		}
	}
	return capture.NewForward(opts)
}

// announce prints what forward mode does, after the listening line.
func (s *forwardSetup) announce(w io.Writer, addr net.Addr, insecure bool) {
	if s.intercept.All() {
		fmt.Fprintln(w, "intercepting every host (--intercept-all)")
	} else {
		fmt.Fprintf(w, "intercepting %s; other hosts are tunnelled, not recorded\n", strings.Join(s.intercept.Hosts(), ", "))
	}
	if s.caCreated {
		fmt.Fprintf(w, "created seam's CA: %s\n", s.ca.CertPath())
	}
	fmt.Fprintf(w, "clients must trust %s: run \"seam ca\" for how (e.g. NODE_EXTRA_CA_CERTS=%s HTTPS_PROXY=http://%s node app.js)\n",
		s.ca.CertPath(), shellquote.Word(s.ca.CertPath()), addr)
	warnExpiry(w, s.ca, time.Now())
	if insecure {
		fmt.Fprintln(w, "warning: --insecure: upstream certificates are NOT verified (the capture header says so)")
	}
	if s.allowRemote {
		fmt.Fprintln(w, "warning: listening beyond loopback: any client that reaches this address can use the proxy; "+
			"it refuses to connect to loopback, link-local (the cloud metadata service at 169.254.169.254) and private addresses, "+
			"checked on the address each name resolves to, unless --host names the host")
	}
}
