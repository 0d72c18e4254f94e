package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/tlsca"
)

// caExpiringIn writes into a new directory a CA that expires d from now,
// as a CA made a year ago would, and returns the directory.
func caExpiringIn(t *testing.T, d time.Duration) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ca")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "seam local CA old"},
		NotBefore: now.AddDate(-1, 0, 0), NotAfter: now.Add(d), IsCA: true, BasicConstraintsValid: true,
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
	if err := os.WriteFile(filepath.Join(dir, tlsca.KeyFile), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, tlsca.CertFile), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCAExpiryWarning: a CA within 30 days of expiry gets a warning from
// seam ca and from seam record --forward, naming the day and how to
// rotate; a CA further from it gets none.
func TestCAExpiryWarning(t *testing.T) {
	soon := caExpiringIn(t, 10*24*time.Hour+time.Hour)
	var stdout, stderr bytes.Buffer
	if code := runSeam(context.Background(), nil, &stdout, &stderr, "ca", "--ca-dir", soon); code != 0 {
		t.Fatalf("seam ca: exit %d: %s", code, stderr.String())
	}
	want := "warning: seam's CA " + filepath.Join(soon, tlsca.CertFile) + " expires on " + time.Now().Add(10*24*time.Hour+time.Hour).Format(time.DateOnly) + " (in 10 days): run \"seam ca --rotate\""
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("seam ca stderr:\n%s\nwant %q", stderr.String(), want)
	}

	cmd, _, rest := launchSeam(t, `listening on http://(\S+)`, "record", "--forward", "--listen", "127.0.0.1:0", "-o", filepath.Join(t.TempDir(), "c.ndjson"), "--ca-dir", soon)
	// The announcement follows the banner.
	lines := make(chan string)
	go func() {
		for {
			line, err := rest.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	var said []string
	warned := false
	for deadline := time.After(10 * time.Second); !warned; {
		select {
		case line, ok := <-lines:
			if !ok {
				deadline = nil
				break
			}
			said = append(said, line)
			warned = strings.Contains(line, "warning: seam's CA") && strings.Contains(line, "seam ca --rotate")
			continue
		case <-deadline:
		}
		break
	}
	cmd.Process.Signal(os.Interrupt)
	go func() {
		for range lines {
		}
	}()
	cmd.Wait()
	if !warned {
		t.Errorf("seam record --forward stderr does not warn of the CA's expiry:\n%s", strings.Join(said, ""))
	}

	later := caExpiringIn(t, 60*24*time.Hour)
	stderr.Reset()
	if code := runSeam(context.Background(), nil, io.Discard, &stderr, "ca", "--ca-dir", later); code != 0 || strings.Contains(stderr.String(), "warning") {
		t.Errorf("a CA 60 days from expiry: exit %d, stderr %q", code, stderr.String())
	}
}
