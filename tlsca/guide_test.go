package tlsca

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrustGuideQuotesPaths: the guide names the CA by path and
// fingerprint, and a CA directory with a quote and a space in its name
// reaches every command as one single-quoted word.
func TestTrustGuideQuotesPaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "it's here")
	ca, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteTrustGuide(&b, ca)
	g := b.String()
	quoted := `'` + strings.ReplaceAll(ca.CertPath(), `'`, `'\''`) + `'`
	for _, want := range []string{
		"seam's CA certificate: " + ca.CertPath() + "\n",
		"SHA-256 " + ca.Fingerprint() + "\n",
		"NODE_EXTRA_CA_CERTS=" + quoted + " ",
		"curl --cacert " + quoted + " ",
	} {
		if !strings.Contains(g, want) {
			t.Errorf("guide lacks %q:\n%s", want, g)
		}
	}
	if strings.Contains(g, "$CERT") || strings.Contains(g, "$SHA") {
		t.Errorf("guide left a $WORD unfilled:\n%s", g)
	}
	if s := ExpiryWarning(ca, time.Now()); s != "" {
		t.Errorf("a new CA warns: %s", s)
	}
	if s := ExpiryWarning(ca, ca.Certificate().NotAfter.Add(-24*time.Hour)); !strings.Contains(s, "seam ca --rotate") {
		t.Errorf("a CA a day from expiry: %q", s)
	}
}

// TestRotationGuide: after a rotation the guide names the retired CA and
// where its files went, then what each client must do.
func TestRotationGuide(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	r, err := Rotate(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteRotation(&b, r)
	for _, want := range []string{"retired seam's CA: " + r.Old.Subject.CommonName, "certificate moved to " + r.RetiredCert, "made a new CA in its place: " + r.New.CertPath()} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("rotation guide lacks %q:\n%s", want, b.String())
		}
	}
}
