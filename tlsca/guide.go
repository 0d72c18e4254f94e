package tlsca

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/seam-dev/seam/internal/shellquote"
)

// What a user does with the CA, per client: trust it (WriteTrustGuide),
// trust a new one after a rotation (WriteRotation), rotate one about to
// expire (ExpiryWarning). Paths in the commands are quoted for a POSIX
// shell.

// systemBundles are where Linux distributions keep the system's CA bundle,
// as Go's crypto/x509 looks for it.
var systemBundles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

// ExpiryWarning says, when ca expires within RenewWithin of now, when it
// does and how to rotate it; "" when it does not.
func ExpiryWarning(ca *Authority, now time.Time) string {
	if !ca.ExpiresWithin(now, RenewWithin) {
		return ""
	}
	until := ca.Certificate().NotAfter
	return fmt.Sprintf("seam's CA %s expires on %s (in %d days): run \"seam ca --rotate\" for a new one, and trust it where you trust this one",
		ca.CertPath(), until.Format(time.DateOnly), int(until.Sub(now).Hours()/24))
}

// WriteRotation says which CA was retired, where its files went, and what
// each client must do to trust the new one.
func WriteRotation(w io.Writer, r *Rotation) {
	old := "none (no CA was there)"
	switch {
	case r.RetiredCert != "" && r.Old == nil:
		old = "a certificate that did not parse"
	case r.RetiredCert == "" && r.RetiredKey != "":
		old = "a key without its certificate"
	}
	if r.Old != nil {
		old = fmt.Sprintf("%s, SHA-256 %s, valid until %s", r.Old.Subject.CommonName, CertFingerprint(r.Old), r.Old.NotAfter.Format(time.DateOnly))
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
func guideReplacer(ca *Authority) *strings.Replacer {
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

// WriteTrustGuide writes the CA's path and, per client, how to trust it.
func WriteTrustGuide(w io.Writer, ca *Authority) {
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
