package protocol

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"strconv"
	"strings"
)

// DeviceID is the lowercase hex SHA-256 of a raw Ed25519 public key.
func DeviceID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:])
}

// EncodeKey encodes raw bytes as unpadded base64url, the wire form of
// device public keys and signatures.
func EncodeKey(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// DecodePublicKey accepts a raw 32-byte key as base64url (padded or not),
// standard base64, or a PEM SPKI block.
func DecodePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-----BEGIN") {
		blk, _ := pem.Decode([]byte(s))
		if blk == nil {
			return nil, errors.New("public key: bad PEM")
		}
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, err
		}
		pk, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, errors.New("public key: not ed25519")
		}
		return pk, nil
	}
	b, err := decodeB64(s)
	if err != nil {
		return nil, err
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, errors.New("public key: want 32 bytes")
	}
	return ed25519.PublicKey(b), nil
}

// DecodeSignature decodes a base64url (or standard base64) signature.
func DecodeSignature(s string) ([]byte, error) {
	b, err := decodeB64(strings.TrimSpace(s))
	if err != nil {
		return nil, err
	}
	if len(b) != ed25519.SignatureSize {
		return nil, errors.New("signature: want 64 bytes")
	}
	return b, nil
}

func decodeB64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "+/") {
		return base64.RawStdEncoding.DecodeString(s)
	}
	return base64.RawURLEncoding.DecodeString(s)
}

// SignedFields are the values a device signs during connect.
type SignedFields struct {
	DeviceID     string
	ClientID     string
	ClientMode   string
	Role         string
	Scopes       []string
	SignedAtMs   int64
	Token        string // auth.token, else auth.deviceToken, else auth.bootstrapToken
	Nonce        string
	Platform     string
	DeviceFamily string
}

// PayloadV3 is the string current clients sign.
func (f SignedFields) PayloadV3() string {
	return "v3" + f.PayloadV2()[len("v2"):] + "|" + lowerASCII(f.Platform) + "|" + lowerASCII(f.DeviceFamily)
}

// PayloadV2 is the legacy signed string, still accepted.
func (f SignedFields) PayloadV2() string {
	return strings.Join([]string{"v2", f.DeviceID, f.ClientID, f.ClientMode, f.Role,
		strings.Join(f.Scopes, ","), strconv.FormatInt(f.SignedAtMs, 10), f.Token, f.Nonce}, "|")
}

func lowerASCII(s string) string {
	s = strings.TrimSpace(s)
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// SignedToken picks the token a client put into its signed payload.
func (a *ConnectAuth) SignedToken() string {
	switch {
	case a == nil:
		return ""
	case a.Token != "":
		return a.Token
	case a.DeviceToken != "":
		return a.DeviceToken
	default:
		return a.BootstrapToken
	}
}
