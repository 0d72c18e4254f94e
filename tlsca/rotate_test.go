package tlsca

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeCA writes a CA valid from notBefore to notAfter into dir, as
// create would have on another day.
func writeCA(t *testing.T, dir string, notBefore, notAfter time.Time) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(), Subject: pkix.Name{CommonName: "seam local CA old"},
		NotBefore: notBefore, NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, KeyFile), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, CertFile), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNewCAValidForAYear: a new CA is valid for a year, and is due for
// rotation in its last RenewWithin.
func TestNewCAValidForAYear(t *testing.T) {
	a, _, err := Open(filepath.Join(t.TempDir(), "ca"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if d := a.Certificate().NotAfter.Sub(now); d < 364*24*time.Hour || d > 366*24*time.Hour {
		t.Errorf("a new CA is valid for %s, want a year", d)
	}
	if a.ExpiresWithin(now, RenewWithin) {
		t.Error("a new CA is due for rotation")
	}
	if !a.ExpiresWithin(now.Add(340*24*time.Hour), RenewWithin) {
		t.Error("a CA 25 days from expiry is not due for rotation")
	}
}

// TestRotate: the old certificate and key are moved aside, byte for byte,
// the key still 0600; a new CA takes their place; an expired or damaged CA
// is rotated as well, and a rotation never replaces a retired file.
func TestRotate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ca")
	old, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	oldKey, _ := os.ReadFile(filepath.Join(dir, KeyFile))
	now := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	r, err := Rotate(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	if r.Old == nil || !r.Old.Equal(old.Certificate()) {
		t.Errorf("Rotation.Old is not the old CA")
	}
	if want := filepath.Join(dir, "seam-ca-retired-20270301T120000Z.pem"); r.RetiredCert != want {
		t.Errorf("certificate retired to %s, want %s", r.RetiredCert, want)
	}
	if b, _ := os.ReadFile(r.RetiredCert); !bytes.Equal(b, old.CertPEM()) {
		t.Error("the retired certificate is not the old one")
	}
	if b, _ := os.ReadFile(r.RetiredKey); !bytes.Equal(b, oldKey) || !strings.HasSuffix(r.RetiredKey, "seam-ca-key-retired-20270301T120000Z.pem") {
		t.Errorf("the old key was not moved to %s whole", r.RetiredKey)
	}
	if st, err := os.Stat(r.RetiredKey); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("retired key mode %v, %v; want 0600", st.Mode(), err)
	}
	loaded, err := Load(dir)
	if err != nil || !loaded.Certificate().Equal(r.New.Certificate()) || loaded.Certificate().Equal(old.Certificate()) {
		t.Fatalf("after rotation Load = %v; want the new CA", err)
	}
	if _, err := Rotate(dir, now); err == nil {
		t.Error("a second rotation with the same time replaced the retired files")
	}

	// An expired CA, which Load refuses, pointing at --rotate.
	expired := filepath.Join(t.TempDir(), "ca")
	writeCA(t, expired, now.AddDate(-2, 0, 0), time.Now().Add(-time.Hour))
	if _, err := Load(expired); err == nil || !strings.Contains(err.Error(), "seam ca --rotate") {
		t.Errorf("Load of an expired CA = %v, want a hint to rotate", err)
	}
	if r, err := Rotate(expired, now); err != nil || r.Old == nil {
		t.Fatalf("Rotate of an expired CA = %v", err)
	}
	if _, err := Load(expired); err != nil {
		t.Errorf("after rotating an expired CA: %v", err)
	}

	// A damaged certificate.
	damaged := filepath.Join(t.TempDir(), "ca")
	if _, _, err := Open(damaged); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(damaged, CertFile), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := Rotate(damaged, now); err != nil || r.Old != nil || r.RetiredCert == "" {
		t.Fatalf("Rotate of a damaged CA = %+v, %v", r, err)
	}
	if _, err := Load(damaged); err != nil {
		t.Errorf("after rotating a damaged CA: %v", err)
	}
}
