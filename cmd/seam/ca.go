package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/seam-dev/seam/tlsca"
)

type caOptions struct {
	dir    string
	path   bool
	pem    bool
	rotate bool
}

func (o *caOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.dir, "ca-dir", "", "`directory` of seam's CA (default $SEAM_CA_DIR, else the user config directory's seam/)")
	fs.BoolVar(&o.path, "path", false, "print only the certificate's path (for NODE_EXTRA_CA_CERTS=$(seam ca --path))")
	fs.BoolVar(&o.pem, "pem", false, "print only the certificate, in PEM")
	fs.BoolVar(&o.rotate, "rotate", false, "replace the CA with a new one (the old files are moved aside) and say what clients must trust again")
}

func (o *caOptions) run(_ context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return &usageError{cmd: "ca", msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), example: "seam ca"}
	}
	if o.path && o.pem || o.rotate && (o.path || o.pem) {
		return &usageError{cmd: "ca", msg: "--path, --pem and --rotate do different things; pick one", example: "seam ca --path"}
	}
	dir, err := tlsca.Dir(o.dir, e.getenv)
	if err != nil {
		return err
	}
	if o.rotate {
		r, err := tlsca.Rotate(dir, time.Now())
		if err != nil {
			return err
		}
		tlsca.WriteRotation(e.stdout, r)
		return nil
	}
	ca, created, err := tlsca.Open(dir)
	if err != nil {
		return err
	}
	warnExpiry(e.stderr, ca, time.Now())
	switch {
	case o.path:
		fmt.Fprintln(e.stdout, ca.CertPath())
		return nil
	case o.pem:
		_, err := e.stdout.Write(ca.CertPEM())
		return err
	}
	if created {
		fmt.Fprintf(e.stderr, "created a new CA in %s\n", dir)
	}
	tlsca.WriteTrustGuide(e.stdout, ca)
	return nil
}

// warnExpiry says on w when ca expires soon, and how to rotate it.
func warnExpiry(w io.Writer, ca *tlsca.Authority, now time.Time) {
	if s := tlsca.ExpiryWarning(ca, now); s != "" {
		fmt.Fprintln(w, "warning: "+s)
	}
}
