package tlsca

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// The files of a CA directory.
const (
	// CertFile holds the CA certificate (public): the file clients trust.
	CertFile = "seam-ca.pem"
	// KeyFile holds the CA private key (secret, mode 0600).
	KeyFile = "seam-ca-key.pem"
)

// caValidity is how long a new CA is valid: a year. The key sits on a
// developer's disk and can impersonate any host to whoever trusts the CA,
// so a copy of it (a backup, an old laptop) should stop being useful
// within a year; re-trusting once a year (seam ca --rotate prints how, per
// client) is the cost. backdate is how far its and every leaf's validity
// starts in the past, for clients whose clock is behind.
const (
	caValidity = 365 * 24 * time.Hour
	backdate   = 48 * time.Hour
)

// Authority is a loaded CA. Its methods are safe for concurrent use.
type Authority struct {
	dir     string
	cert    *x509.Certificate
	certPEM []byte
	key     crypto.Signer
	leaves  leafCache
}

// Dir is where seam's CA lives: dir (--ca-dir) when given, else
// $SEAM_CA_DIR (read with getenv), else seam/ in the user's config
// directory.
func Dir(dir string, getenv func(string) string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	if d := getenv("SEAM_CA_DIR"); d != "" {
		return d, nil
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the CA directory: %w (set SEAM_CA_DIR or --ca-dir)", err)
	}
	return filepath.Join(cfg, "seam"), nil
}

// Open loads the CA in dir, creating dir (0700) and a new CA when neither
// file exists yet. created says whether it made a new one. A CA that is
// only half there, unreadable, malformed, expired or whose key is readable
// by other users is an error naming the file; it is never replaced.
func Open(dir string) (a *Authority, created bool, err error) {
	if err := checkDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	_, certErr := os.Stat(filepath.Join(dir, CertFile))
	_, keyErr := os.Stat(filepath.Join(dir, KeyFile))
	if errors.Is(certErr, fs.ErrNotExist) && errors.Is(keyErr, fs.ErrNotExist) {
		if err := create(dir); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, false, err
		} else if err == nil {
			created = true
		}
		// fs.ErrExist: another seam created it meanwhile; load theirs.
	}
	// A CA being created by another seam has its key before its
	// certificate: give it a moment to finish.
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		a, err = Load(dir)
		if !errors.Is(err, errIncomplete) || time.Now().After(deadline) || !recent(filepath.Join(dir, KeyFile)) {
			return a, created, err
		}
	}
}

// errIncomplete marks a CA directory with a key and no certificate.
var errIncomplete = errors.New("CA incomplete")

// recent reports whether path was modified in the last few seconds.
func recent(path string) bool {
	st, err := os.Stat(path)
	return err == nil && time.Since(st.ModTime()) < 5*time.Second
}

// Load loads the CA in dir; it never creates one.
func Load(dir string) (*Authority, error) {
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	if err := checkDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no CA in %s (run seam ca to create one): %w", dir, err)
		}
		return nil, err
	}
	certPEM, err := readCert(certPath)
	if errors.Is(err, fs.ErrNotExist) {
		if _, kerr := os.Stat(keyPath); kerr == nil {
			return nil, fmt.Errorf("%w: CA certificate %s is missing but its key %s exists; restore it, or delete the key to make a new CA (clients must then trust the new one)", errIncomplete, certPath, keyPath)
		}
		return nil, fmt.Errorf("no CA in %s (run seam ca to create one): %w", dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read CA certificate: %w", err)
	}
	cert, err := parseCert(certPEM)
	if err != nil {
		return nil, fmt.Errorf("CA certificate %s: %w%s", certPath, err, fixHint(dir))
	}
	keyPEM, err := readKey(keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("CA key %s is missing (the certificate %s is there)%s", keyPath, certPath, fixHint(dir))
	}
	if err != nil {
		return nil, err
	}
	key, err := parseKey(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("CA key %s: %w%s", keyPath, err, fixHint(dir))
	}
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(cert.PublicKey) {
		return nil, fmt.Errorf("CA key %s does not belong to the certificate %s%s", keyPath, certPath, fixHint(dir))
	}
	if now := time.Now(); now.After(cert.NotAfter) {
		return nil, fmt.Errorf("CA certificate %s expired on %s%s", certPath, cert.NotAfter.Format(time.DateOnly), fixHint(dir))
	}
	return &Authority{dir: dir, cert: cert, certPEM: certPEM, key: key, leaves: newLeafCache()}, nil
}

func fixHint(dir string) string {
	return fmt.Sprintf("; to start over, run seam ca --rotate for this CA directory: it moves %s and %s aside and makes a new CA (clients must then trust the new CA)",
		filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile))
}

func parseCert(b []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("not a PEM certificate (want a -----BEGIN CERTIFICATE----- block)")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, err
	}
	if !cert.BasicConstraintsValid || !cert.IsCA || cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, errors.New("not a CA certificate (no CA basic constraint or no certificate-signing key usage)")
	}
	return cert, nil
}

func parseKey(b []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, errors.New("not a PEM private key")
	}
	var k any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		k, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		k, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("PEM block %q is not a private key", block.Type)
	}
	if err != nil {
		return nil, err
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("unsupported private key type %T", k)
	}
	return s, nil
}

// create makes a new CA in dir. The key is written first and linked into
// place without replacing anything, so two seams starting at once cannot
// both create one: the loser gets fs.ErrExist.
func create(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create CA directory: %w", err)
	}
	// It may have been there already, made by someone else meanwhile.
	if err := checkDir(dir); err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate CA key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode CA key: %w", err)
	}
	spki, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return fmt.Errorf("encode CA public key: %w", err)
	}
	ski := sha256.Sum256(spki)
	now := time.Now()
	name := "seam local CA " + hex.EncodeToString(ski[:4])
	if host, err := os.Hostname(); err == nil && host != "" {
		name += " (" + host + ")"
	}
	tmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"seam"}},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(caValidity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		SubjectKeyId:          ski[:20],
	}
	certDER, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return fmt.Errorf("sign CA certificate: %w", err)
	}
	keyPath, certPath := filepath.Join(dir, KeyFile), filepath.Join(dir, CertFile)
	if err := writeNew(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return err
	}
	if err := writeNew(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: certDER}), 0o644); err != nil {
		os.Remove(keyPath)
		return err
	}
	return nil
}

// writeNew writes data to path with mode perm, failing with fs.ErrExist if
// path exists. The file appears whole or not at all, and is on disk before
// it appears: a crash cannot leave an empty CA file that Load then refuses.
func writeNew(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n.Add(n, big.NewInt(1))
}

// CertPath is the path of the CA certificate, the file clients trust.
func (a *Authority) CertPath() string { return filepath.Join(a.dir, CertFile) }

// CertPEM returns the CA certificate in PEM.
func (a *Authority) CertPEM() []byte { return a.certPEM }

// Certificate returns the parsed CA certificate.
func (a *Authority) Certificate() *x509.Certificate { return a.cert }

// Fingerprint is the SHA-256 of the CA certificate, in hex with colons, as
// certificate viewers show it.
func (a *Authority) Fingerprint() string { return CertFingerprint(a.cert) }

// CertFingerprint is the SHA-256 of cert, in hex with colons, as
// certificate viewers show it.
func CertFingerprint(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.Raw)
	b := make([]byte, 0, len(sum)*3)
	for i, c := range sum {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&0xf])
	}
	return string(b)
}
