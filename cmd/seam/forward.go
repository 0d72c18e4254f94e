package main

import (
	"errors"
	"flag"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tlsca"
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

// setup checks the flags and returns forward mode's plan with seam's CA
// loaded (created on first use) and tunnels said on stderr. listenAddr is
// the proxy's listen address.
func (f *forwardFlags) setup(e *env, cmd, listenAddr string) (*record.ForwardPlan, error) {
	p, err := record.ForwardConfig{Hosts: f.hosts, InterceptAll: f.interceptAll, CAFiles: f.caFiles,
		Insecure: f.insecure, Resolve: f.resolve, Listen: listenAddr}.Plan()
	var ce *record.ConfigError
	if errors.As(err, &ce) {
		return nil, &usageError{cmd: cmd, msg: ce.Error(), example: "seam " + cmd + " --forward --host api.example.com"}
	}
	if err != nil {
		return nil, err
	}
	p.Log = e.stderr
	dir, err := tlsca.Dir(f.caDir, e.getenv)
	if err != nil {
		return nil, err
	}
	return p, p.OpenCA(dir)
}
