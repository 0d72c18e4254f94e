package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/seam-dev/seam/tlsca"
)

type caOptions struct {
	dir  string
	path bool
	pem  bool
}

func caCommand() *command {
	return &command{
		name:    "ca",
		summary: "show seam's CA for --forward and how to make clients trust it",
		usage:   "seam ca [--path | --pem] [--ca-dir DIR]",
		help: `
seam record --forward decrypts the connections it records with certificates
signed by seam's own certificate authority, so the client must trust that CA.
"seam ca" creates the CA on first use (in $SEAM_CA_DIR, else the seam
directory of your user config directory: ~/.config/seam on Linux), prints
where its certificate is and how to trust it for Node, Python, Go, curl,
VS Code (Copilot Chat) and the Debian system store.

The private key next to it can impersonate any web site to a client that
trusts the CA: it is created readable by you alone, never leaves that
directory, and seam refuses to use it when others can read it. Trust the CA
only where you record; to start over, delete both files and run "seam ca".`,
		example: "seam ca",
		flags: func(fs *flag.FlagSet) any {
			o := &caOptions{}
			fs.StringVar(&o.dir, "ca-dir", "", "`directory` of seam's CA (default $SEAM_CA_DIR, else the user config directory's seam/)")
			fs.BoolVar(&o.path, "path", false, "print only the certificate's path (for NODE_EXTRA_CA_CERTS=$(seam ca --path))")
			fs.BoolVar(&o.pem, "pem", false, "print only the certificate, in PEM")
			return o
		},
		run: runCA,
	}
}

func runCA(_ context.Context, e *env, fs *flag.FlagSet, opts any) error {
	o := opts.(*caOptions)
	if fs.NArg() > 0 {
		return &usageError{cmd: "ca", msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), example: "seam ca"}
	}
	if o.path && o.pem {
		return &usageError{cmd: "ca", msg: "--path and --pem print different things; pick one", example: "seam ca --path"}
	}
	dir := o.dir
	if dir == "" {
		var err error
		if dir, err = caDir(e); err != nil {
			return err
		}
	}
	ca, created, err := tlsca.Open(dir)
	if err != nil {
		return err
	}
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
	writeTrustGuide(e.stdout, ca)
	return nil
}

// systemBundles are where Linux distributions keep the system's CA bundle,
// as Go's crypto/x509 looks for it.
var systemBundles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

// writeTrustGuide prints the CA's path and, per client, how to trust it.
func writeTrustGuide(w io.Writer, ca *tlsca.Authority) {
	cert := shellQuote(ca.CertPath())
	bundle := ""
	for _, b := range systemBundles {
		if _, err := os.Stat(b); err == nil {
			bundle = b
			break
		}
	}
	combined := shellQuote(strings.TrimSuffix(ca.CertPath(), ".pem") + "-bundle.pem")
	var b strings.Builder
	fmt.Fprintf(&b, "seam's CA certificate: %s\n", ca.CertPath())
	fmt.Fprintf(&b, "  %s\n", ca.Certificate().Subject.CommonName)
	fmt.Fprintf(&b, "  SHA-256 %s\n", ca.Fingerprint())
	fmt.Fprintf(&b, "  valid until %s\n\n", ca.Certificate().NotAfter.Format("2006-01-02"))
	fmt.Fprintf(&b, "Record with: seam record --forward   (listens on 127.0.0.1:8080)\n")
	fmt.Fprintf(&b, "Then run the client with the proxy set and the CA trusted:\n\n")
	fmt.Fprintf(&b, "Node (openai, @anthropic-ai/sdk; read once at start):\n")
	fmt.Fprintf(&b, "  NODE_EXTRA_CA_CERTS=%s NODE_USE_ENV_PROXY=1 HTTPS_PROXY=http://127.0.0.1:8080 node app.js\n", cert)
	fmt.Fprintf(&b, "  (a Node without NODE_USE_ENV_PROXY ignores HTTPS_PROXY in fetch: pass undici's\n")
	fmt.Fprintf(&b, "  EnvHttpProxyAgent or ProxyAgent as the SDK's fetchOptions.dispatcher)\n\n")
	fmt.Fprintf(&b, "Python (httpx: openai, anthropic, google-genai; requests): SSL_CERT_FILE and\n")
	fmt.Fprintf(&b, "REQUESTS_CA_BUNDLE replace the default roots, so give them the system's plus seam's:\n")
	if bundle != "" {
		fmt.Fprintf(&b, "  cat %s %s > %s\n", shellQuote(bundle), cert, combined)
	} else {
		fmt.Fprintf(&b, "  cat /path/to/system-ca-bundle.pem %s > %s\n", cert, combined)
	}
	fmt.Fprintf(&b, "  SSL_CERT_FILE=%s REQUESTS_CA_BUNDLE=%s HTTPS_PROXY=http://127.0.0.1:8080 python app.py\n\n", combined, combined)
	fmt.Fprintf(&b, "Go (Linux; macOS and Windows use the system store, see below):\n")
	fmt.Fprintf(&b, "  SSL_CERT_FILE=%s HTTPS_PROXY=http://127.0.0.1:8080 ./app   (the combined bundle above)\n", combined)
	fmt.Fprintf(&b, "  Go never proxies requests to localhost or 127.0.0.1: record those with seam record --upstream.\n\n")
	fmt.Fprintf(&b, "curl:\n")
	fmt.Fprintf(&b, "  curl --cacert %s -x http://127.0.0.1:8080 https://api.openai.com/v1/models\n\n", cert)
	fmt.Fprintf(&b, "VS Code (Copilot Chat and other extensions): in settings.json\n")
	fmt.Fprintf(&b, "  \"http.proxy\": \"http://127.0.0.1:8080\", \"http.proxyStrictSSL\": true, \"http.systemCertificates\": true\n")
	fmt.Fprintf(&b, "  and trust the CA in the system store (below), or start VS Code from a shell with\n")
	fmt.Fprintf(&b, "  NODE_EXTRA_CA_CERTS=%s code\n", cert)
	fmt.Fprintf(&b, "  Copilot Chat can instead send its API calls to seam record --upstream, no CA needed:\n")
	fmt.Fprintf(&b, "  \"github.copilot.advanced.debug.overrideCapiUrl\": \"http://127.0.0.1:8080\" with\n")
	fmt.Fprintf(&b, "  seam record --upstream https://api.githubcopilot.com (undocumented debug settings; they may change)\n\n")
	fmt.Fprintf(&b, "Debian and Ubuntu system store (curl, Python's ssl, Go, VS Code with system certificates):\n")
	fmt.Fprintf(&b, "  sudo cp %s /usr/local/share/ca-certificates/seam-ca.crt && sudo update-ca-certificates\n", cert)
	fmt.Fprintf(&b, "  undo: sudo rm /usr/local/share/ca-certificates/seam-ca.crt && sudo update-ca-certificates --fresh\n\n")
	fmt.Fprintf(&b, "The key beside the certificate can impersonate any site to whoever trusts the CA:\n")
	fmt.Fprintf(&b, "keep it private, and trust the CA only where you record.\n")
	io.WriteString(w, b.String())
}
