package client

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// parseFingerprint reads a SHA-256 certificate fingerprint written as hex,
// with or without colons, optionally prefixed "sha256:".
func parseFingerprint(s string) ([]byte, error) {
	h := strings.ToLower(strings.TrimSpace(s))
	h = strings.TrimPrefix(h, "sha256:")
	h = strings.ReplaceAll(h, ":", "")
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("TLS fingerprint %q is not a SHA-256 hex digest (64 hex digits)", s)
	}
	return b, nil
}

// pinnedTLS accepts exactly the certificate whose SHA-256 is pin. The
// chain is not checked against system roots: the pin is the trust, which
// is what makes a gateway's self-signed certificate usable safely.
func pinnedTLS(pin []byte) *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // replaced by the pin check below
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("gateway sent no certificate")
			}
			sum := sha256.Sum256(cs.PeerCertificates[0].Raw)
			if !bytes.Equal(sum[:], pin) {
				return fmt.Errorf("gateway certificate fingerprint %x does not match the pinned one", sum)
			}
			return nil
		},
	}
}
