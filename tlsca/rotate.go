package tlsca

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RenewWithin is how long before its CA certificate expires a caller
// should warn that it is time to rotate it ([Authority.ExpiresWithin]):
// enough to re-trust a new CA everywhere before the old one stops working.
const RenewWithin = 30 * 24 * time.Hour

// ExpiresWithin reports whether the CA certificate expires less than d
// after now.
func (a *Authority) ExpiresWithin(now time.Time, d time.Duration) bool {
	return now.Add(d).After(a.cert.NotAfter)
}

// Rotation is what [Rotate] did: the CA it retired, where it moved its
// files, and the new CA.
type Rotation struct {
	// Old is the retired CA certificate, nil when it was missing or did
	// not parse (a damaged CA is rotated all the same).
	Old *x509.Certificate
	// RetiredCert and RetiredKey are where the old files were moved, ""
	// for one that was missing.
	RetiredCert, RetiredKey string
	// New is the CA that replaces it, in the same files as before.
	New *Authority
}

// Rotate replaces the CA in dir with a new one, valid for a year from now:
// the old certificate and key are moved aside in dir, not deleted, as
// seam-ca-retired-<UTC time>.pem and seam-ca-key-retired-<UTC time>.pem
// (the key keeps its mode 0600), and a new CA is made in their place. It
// rotates an expired or damaged CA too, and makes one when dir has none.
// The directory must pass the checks Open makes. Clients that trusted the
// old CA must trust the new one: its certificate is at the same path.
func Rotate(dir string, now time.Time) (*Rotation, error) {
	if err := checkDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	r := &Rotation{}
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	if b, err := readCert(certPath); err == nil {
		r.Old, _ = parseCert(b)
	}
	stamp := now.UTC().Format("20060102T150405Z")
	var err error
	// The certificate goes first: a key without its certificate is what a
	// CA being made looks like to another seam (see Open), which waits.
	if r.RetiredCert, err = retire(certPath, stamp); err != nil {
		return nil, err
	}
	if r.RetiredKey, err = retire(keyPath, stamp); err != nil {
		return nil, err
	}
	if err := create(dir); err != nil {
		return nil, fmt.Errorf("rotate CA: %w", err)
	}
	if r.New, err = Load(dir); err != nil {
		return nil, fmt.Errorf("rotate CA: %w", err)
	}
	return r, nil
}

// retire moves the CA file at path aside, to a name with "-retired-" and
// stamp before its extension, without replacing anything there; a file
// that does not exist is left out ("").
func retire(path, stamp string) (string, error) {
	to := strings.TrimSuffix(path, ".pem") + "-retired-" + stamp + ".pem"
	if err := os.Link(path, to); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Lstat(path); errors.Is(serr, fs.ErrNotExist) {
				return "", nil
			}
		}
		return "", fmt.Errorf("retire %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil {
		return "", fmt.Errorf("retire %s: %w", path, err)
	}
	return to, nil
}
