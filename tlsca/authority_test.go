package tlsca

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestOpenCreatesOnceAndLoadsAfter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "seam")
	a, created, err := Open(dir)
	if err != nil || !created {
		t.Fatalf("Open = %v, created %v", err, created)
	}
	st, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("key mode %04o, want 0600", st.Mode().Perm())
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %04o, want 0700", st.Mode().Perm())
	}
	b, created, err := Open(dir)
	if err != nil || created {
		t.Fatalf("second Open = %v, created %v", err, created)
	}
	if !a.Certificate().Equal(b.Certificate()) {
		t.Error("second Open made a new CA instead of loading the first")
	}
	if a.CertPath() != filepath.Join(dir, CertFile) {
		t.Errorf("CertPath %s", a.CertPath())
	}
	if !strings.Contains(string(a.CertPEM()), "BEGIN CERTIFICATE") || strings.Contains(string(a.CertPEM()), "PRIVATE") {
		t.Error("CertPEM is not the public certificate alone")
	}
}

func TestConcurrentOpenMakesOneCA(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	certs := make([]*x509.Certificate, 8)
	for i := range certs {
		wg.Go(func() {
			a, _, err := Open(dir)
			if err != nil {
				t.Error(err)
				return
			}
			certs[i] = a.Certificate()
		})
	}
	wg.Wait()
	for _, c := range certs[1:] {
		if c != nil && certs[0] != nil && !c.Equal(certs[0]) {
			t.Fatal("concurrent Opens made different CAs")
		}
	}
}

func TestLeafVerifiesAgainstCA(t *testing.T) {
	a, _, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(a.CertPEM())
	for _, host := range []string{"api.openai.com", "127.0.0.1", "::1"} {
		c, err := a.Leaf(host)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		if err != nil {
			t.Errorf("%s: %v", host, err)
		}
		if again, _ := a.Leaf(strings.ToUpper(host)); again != c {
			t.Errorf("%s: leaf not cached", host)
		}
	}
	// Another name is refused by a client checking the name.
	c, _ := a.Leaf("api.openai.com")
	if _, err := c.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "api.anthropic.com"}); err == nil {
		t.Error("leaf for api.openai.com verified for api.anthropic.com")
	}
}

// TestTLSHandshake terminates TLS with a minted leaf and checks that a
// client trusting only the CA accepts it, with and without SNI.
func TestTLSHandshake(t *testing.T) {
	a, _, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(a.CertPEM())
	for _, name := range []string{"api.anthropic.com", "127.0.0.1"} {
		ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{GetCertificate: a.GetCertificate("127.0.0.1")})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			if s, err := ln.Accept(); err == nil {
				s.(*tls.Conn).Handshake()
				s.Close()
			}
		}()
		c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: roots, ServerName: name})
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else {
			c.Close()
		}
		ln.Close()
	}
}

func TestBrokenCAIsAnErrorNeverReplaced(t *testing.T) {
	for _, tc := range []struct {
		name    string
		breakIt func(dir string)
		want    string
	}{
		{"malformed cert", func(d string) { os.WriteFile(filepath.Join(d, CertFile), []byte("hello"), 0o644) }, "not a PEM certificate"},
		{"malformed key", func(d string) {
			os.WriteFile(filepath.Join(d, KeyFile), []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), 0o600)
		}, KeyFile},
		{"missing key", func(d string) { os.Remove(filepath.Join(d, KeyFile)) }, "is missing"},
		{"missing cert", func(d string) {
			os.Remove(filepath.Join(d, CertFile))
			old := time.Now().Add(-time.Hour) // not a CA being created right now
			os.Chtimes(filepath.Join(d, KeyFile), old, old)
		}, "is missing"},
		{"key readable by others", func(d string) { os.Chmod(filepath.Join(d, KeyFile), 0o644) }, "chmod 600"},
		{"key of another CA", func(d string) {
			other := t.TempDir()
			Open(other)
			b, _ := os.ReadFile(filepath.Join(other, KeyFile))
			os.WriteFile(filepath.Join(d, KeyFile), b, 0o600)
		}, "does not belong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, _, err := Open(dir); err != nil {
				t.Fatal(err)
			}
			tc.breakIt(dir)
			before := snapshot(dir)
			_, _, err := Open(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open = %v, want an error containing %q", err, tc.want)
			}
			if after := snapshot(dir); after != before {
				t.Error("Open changed the broken CA files")
			}
		})
	}
}

func TestUnreadableCA(t *testing.T) {
	// A directory where a file should be cannot be read, even by root
	// (who reads files whatever their mode).
	for _, tc := range []struct{ file, want string }{{CertFile, "read CA certificate"}, {KeyFile, "read CA key"}} {
		dir := t.TempDir()
		if _, _, err := Open(dir); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, tc.file)
		os.Remove(path)
		os.Mkdir(path, 0o700)
		if _, _, err := Open(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: Open = %v, want an error containing %q", tc.file, err, tc.want)
		}
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			t.Errorf("Open replaced the unreadable %s", tc.file)
		}
	}
}

func snapshot(dir string) string {
	var b strings.Builder
	for _, f := range []string{CertFile, KeyFile} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		b.WriteString(f + ":" + string(data))
		if err != nil {
			b.WriteString(err.Error())
		}
	}
	return b.String()
}
