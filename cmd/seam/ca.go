package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/tlsca"
)

type caOptions struct {
	dir    string
	path   bool
	pem    bool
	rotate bool
}

func caCommand() *command {
	return &command{
		name:    "ca",
		summary: "show seam's CA for --forward and how to make clients trust it",
		usage:   "seam ca [--path | --pem | --rotate] [--ca-dir DIR]",
		help:    caHelp,
		example: "seam ca",
		new:     func() runner { return &caOptions{} },
	}
}

// caHelp is the text of "seam help ca".
const caHelp = `
seam record --forward decrypts the connections it records with certificates
signed by seam's own certificate authority, so the client must trust that CA.
"seam ca" creates the CA on first use (in $SEAM_CA_DIR, else the seam
directory of your user config directory: ~/.config/seam on Linux), prints
where its certificate is and how to trust it for Node, Python, Go, curl,
VS Code (Copilot Chat) and the Debian system store.

The private key next to it can impersonate any web site to a client that
trusts the CA: it is created readable by you alone, never leaves that
directory, and seam refuses to use it when others can read it or another
user owns it, and refuses a CA directory that another user owns or others
can write in (another user could have made it first, say in /tmp).

A new CA is valid for a year: "seam ca" and "seam record --forward" warn
when it expires within 30 days. "seam ca --rotate" then makes a new CA in
its place (the old certificate and key are moved aside in the same
directory, not deleted) and says, per client, what must trust the new one.
It also replaces a CA that expired or was damaged. Trust the CA
only where you record; to start over, delete both files and run "seam ca".`

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
	dir, err := caDir(e, o.dir)
	if err != nil {
		return err
	}
	if o.rotate {
		r, err := tlsca.Rotate(dir, time.Now())
		if err != nil {
			return err
		}
		writeRotation(e.stdout, r)
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

// warnExpiry says on w when ca expires within tlsca.RenewWithin, and how
// to rotate it.
func warnExpiry(w io.Writer, ca *tlsca.Authority, now time.Time) {
	if !ca.ExpiresWithin(now, tlsca.RenewWithin) {
		return
	}
	until := ca.Certificate().NotAfter
	fmt.Fprintf(w, "warning: seam's CA %s expires on %s (in %d days): run \"seam ca --rotate\" for a new one, and trust it where you trust this one\n",
		ca.CertPath(), until.Format(time.DateOnly), int(until.Sub(now).Hours()/24))
}

// writeRotation says which CA was retired, where its files went, and what
// each client must do to trust the new one.
func writeRotation(w io.Writer, r *tlsca.Rotation) {
	old := "none (no CA was there)"
	switch {
	case r.RetiredCert != "" && r.Old == nil:
		old = "a certificate that did not parse"
	case r.RetiredCert == "" && r.RetiredKey != "":
		old = "a key without its certificate"
	}
	if r.Old != nil {
		old = fmt.Sprintf("%s, SHA-256 %s, valid until %s", r.Old.Subject.CommonName, tlsca.CertFingerprint(r.Old), r.Old.NotAfter.Format(time.DateOnly))
	}
	fmt.Fprintf(w, "retired seam's CA: %s\n", old)
	if r.RetiredCert != "" {
		fmt.Fprintf(w, "  certificate moved to %s\n", r.RetiredCert)
	}
	if r.RetiredKey != "" {
		fmt.Fprintf(w, "  key moved to %s (mode 0600; delete it once nothing trusts the old CA)\n", r.RetiredKey)
	}
	fmt.Fprintln(w)
	io.WriteString(w, guideReplacer(r.New).Replace(rotateGuide))
}

// guideReplacer fills the $WORDS of trustGuide and rotateGuide for ca.
func guideReplacer(ca *tlsca.Authority) *strings.Replacer {
	bundle := "/path/to/system-ca-bundle.pem"
	for _, b := range systemBundles {
		if _, err := os.Stat(b); err == nil {
			bundle = b
			break
		}
	}
	cert := ca.Certificate()
	return strings.NewReplacer(
		"$PATH", ca.CertPath(),
		"$NAME", cert.Subject.CommonName,
		"$SHA", ca.Fingerprint(),
		"$UNTIL", cert.NotAfter.Format("2006-01-02"),
		"$CERT", shellquote.Word(ca.CertPath()),
		"$SYSTEM", shellquote.Word(bundle),
		"$BUNDLE", shellquote.Word(strings.TrimSuffix(ca.CertPath(), ".pem")+"-bundle.pem"),
	)
}

// writeTrustGuide prints the CA's path and, per client, how to trust it.
func writeTrustGuide(w io.Writer, ca *tlsca.Authority) {
	io.WriteString(w, guideReplacer(ca).Replace(trustGuide))
}

// rotateGuide is what seam ca --rotate prints after the retired CA: the
// new CA is in the same file, so what each client must do depends on how
// it was given the old one (as trustGuide tells it). $WORDS are replaced.
const rotateGuide = `made a new CA in its place: $PATH
  $NAME
  SHA-256 $SHA
  valid until $UNTIL

Every client that trusted the old CA must trust the new one; until it does, it
refuses seam's certificates (an unknown-authority error):

Node (NODE_EXTRA_CA_CERTS=$CERT): same file, read once at start: restart the
  Node processes.
Python and Go (the combined bundle $BUNDLE): it holds a copy of the old CA;
  make it again, then restart them:
  cat $SYSTEM $CERT > $BUNDLE
curl --cacert $CERT: nothing to do; curl reads the file on every run.
VS Code started with NODE_EXTRA_CA_CERTS: restart it. With the system store: below.
Debian and Ubuntu system store: copy the new CA over the old one; --fresh drops the old:
  sudo cp $CERT /usr/local/share/ca-certificates/seam-ca.crt && sudo update-ca-certificates --fresh
Anywhere else you copied the old certificate (another machine, a container image,
a browser, the macOS keychain, the Windows store): put the new one there and
remove the old one, named above by its SHA-256.
`

// trustGuide is what seam ca prints; $WORDS are replaced.
const trustGuide = `seam's CA certificate: $PATH
  $NAME
  SHA-256 $SHA
  valid until $UNTIL

Record with: seam record --forward   (listens on 127.0.0.1:8080)
Then run the client with the proxy set and the CA trusted:

Node (openai, @anthropic-ai/sdk; read once at start):
  NODE_EXTRA_CA_CERTS=$CERT NODE_USE_ENV_PROXY=1 HTTPS_PROXY=http://127.0.0.1:8080 node app.js
  (a Node without NODE_USE_ENV_PROXY ignores HTTPS_PROXY in fetch: pass undici's
  EnvHttpProxyAgent or ProxyAgent as the SDK's fetchOptions.dispatcher)

Python (httpx: openai, anthropic, google-genai; requests): SSL_CERT_FILE and
REQUESTS_CA_BUNDLE replace the default roots, so give them the system's plus seam's:
  cat $SYSTEM $CERT > $BUNDLE
  SSL_CERT_FILE=$BUNDLE REQUESTS_CA_BUNDLE=$BUNDLE HTTPS_PROXY=http://127.0.0.1:8080 python app.py

Go (Linux; macOS and Windows use the system store, see below):
  SSL_CERT_FILE=$BUNDLE HTTPS_PROXY=http://127.0.0.1:8080 ./app   (the combined bundle above)
  Go never proxies requests to localhost or 127.0.0.1: record those with seam record --upstream.

curl:
  curl --cacert $CERT -x http://127.0.0.1:8080 https://api.openai.com/v1/models

VS Code (Copilot Chat and other extensions): in settings.json
  "http.proxy": "http://127.0.0.1:8080", "http.proxyStrictSSL": true, "http.systemCertificates": true
  and trust the CA in the system store (below), or start VS Code from a shell with
  NODE_EXTRA_CA_CERTS=$CERT code
  Copilot Chat can instead send its API calls to seam record --upstream, no CA needed:
  "github.copilot.advanced.debug.overrideCapiUrl": "http://127.0.0.1:8080" with
  seam record --upstream https://api.githubcopilot.com (undocumented debug settings; they may change)

Debian and Ubuntu system store (curl, Python's ssl, Go, VS Code with system certificates):
  sudo cp $CERT /usr/local/share/ca-certificates/seam-ca.crt && sudo update-ca-certificates
  undo: sudo rm /usr/local/share/ca-certificates/seam-ca.crt && sudo update-ca-certificates --fresh

The key beside the certificate can impersonate any site to whoever trusts the CA:
keep it private, and trust the CA only where you record.
`
