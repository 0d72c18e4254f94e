package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/seam-dev/seam/record"
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
	*record.ForwardPlan
	ca        *tlsca.Authority
	caCreated bool
	intercept *record.InterceptList
	upstream  record.UpstreamOptions
	log       io.Writer
	quiet     bool
}

// setup checks the flags, loads the CA (creating it on first use) and the
// extra roots. listen is the proxy's listen address.
func (f *forwardFlags) setup(e *env, cmd, listenAddr string) (*forwardSetup, error) {
	p, err := record.ForwardConfig{Hosts: f.hosts, InterceptAll: f.interceptAll, CAFiles: f.caFiles,
		Insecure: f.insecure, Resolve: f.resolve, Listen: listenAddr}.Plan()
	var ce *record.ConfigError
	if errors.As(err, &ce) {
		return nil, &usageError{cmd: cmd, msg: ce.Error(), example: "seam " + cmd + " --forward --host api.example.com"}
	}
	if err != nil {
		return nil, err
	}
	s := &forwardSetup{ForwardPlan: p, intercept: p.Intercept, upstream: p.Upstream, log: e.stderr}
	dir, err := tlsca.Dir(f.caDir, e.getenv)
	if err != nil {
		return nil, err
	}
	if s.ca, s.caCreated, err = tlsca.Open(dir); err != nil {
		return nil, err
	}
	return s, nil
}

// proxy builds the forward proxy in front of h (a forward-mode recorder,
// or seam serve's mock).
func (s *forwardSetup) proxy(h http.Handler) (*record.Forward, error) {
	opts := record.ForwardOptions{
		Handler: h, Intercept: s.intercept, Authority: s.ca,
		AllowRemote: s.AllowRemote, Dial: s.upstream.Dial,
		Transport: record.UpstreamTransport(s.upstream),
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
	return record.NewForward(opts)
}

// announce prints what forward mode does, after the listening line.
func (s *forwardSetup) announce(w io.Writer, addr net.Addr, insecure bool) {
	s.Announce(w, addr, s.ca, s.caCreated, insecure)
}
