package tlsca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// leafValidity is how long a minted leaf is valid, and renewBefore how long
// before it expires a cached leaf is minted again.
const (
	leafValidity = 30 * 24 * time.Hour
	renewBefore  = 24 * time.Hour
	// maxLeaves bounds the cache: with every host intercepted, a client
	// could name any number of hosts.
	maxLeaves = 4096
)

type leafCache struct {
	mu     sync.Mutex
	key    *ecdsa.PrivateKey // one key for every leaf, made on first use
	leaves map[string]*tls.Certificate
}

func newLeafCache() leafCache { return leafCache{leaves: make(map[string]*tls.Certificate)} }

// Leaf returns a certificate for host (a DNS name or an IP address, without
// a port), signed by the CA: cached, or minted now.
func (a *Authority) Leaf(host string) (*tls.Certificate, error) {
	host = normalHost(host)
	if host == "" {
		return nil, errors.New("mint certificate: no host name")
	}
	c := &a.leaves
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if l := c.leaves[host]; l != nil && now.Add(renewBefore).Before(l.Leaf.NotAfter) {
		return l, nil
	}
	if c.key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate leaf key: %w", err)
		}
		c.key = k
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: host, Organization: []string{"seam"}},
		NotBefore:    now.Add(-backdate),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if tmpl.NotAfter.After(a.cert.NotAfter) {
		tmpl.NotAfter = a.cert.NotAfter
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		tmpl.IPAddresses = []net.IP{ip.AsSlice()}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, c.key.Public(), a.key)
	if err != nil {
		return nil, fmt.Errorf("mint certificate for %s: %w", host, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("mint certificate for %s: %w", host, err)
	}
	cert := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: c.key, Leaf: leaf}
	if len(c.leaves) >= maxLeaves {
		clear(c.leaves)
	}
	c.leaves[host] = cert
	return cert, nil
}

// GetCertificate returns a tls.Config.GetCertificate function that answers
// each handshake with a leaf for the server name the client asked for
// (SNI), or for fallback (the host the client connected to) when it sent
// none, as clients do when they connect to an IP address.
func (a *Authority) GetCertificate(fallback string) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		name := hello.ServerName
		if name == "" {
			name = fallback
		}
		return a.Leaf(name)
	}
}

// normalHost lower-cases host and strips a trailing dot, IPv6 brackets and
// a zone.
func normalHost(host string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.WithZone("").String()
	}
	return host
}
