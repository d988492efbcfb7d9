package client

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// identityFileVersion is the version field of the identity file.
const identityFileVersion = 1

// DeviceIdentity is an Ed25519 device key. Its ID is the lowercase hex
// SHA-256 of the raw public key, as the gateway derives it.
type DeviceIdentity struct {
	ID         string
	PublicKey  ed25519.PublicKey
	PrivateKey ed25519.PrivateKey
}

// identityFile is the on-disk form: keys are unpadded base64url of the raw
// 32-byte public key and of the 32-byte private seed.
type identityFile struct {
	Version    int    `json:"version"`
	DeviceID   string `json:"deviceId"`
	PublicKey  string `json:"publicKey"`
	PrivateKey string `json:"privateKey"`
}

// NewDeviceIdentity generates a fresh key.
func NewDeviceIdentity() (*DeviceIdentity, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate device key: %w", err)
	}
	return &DeviceIdentity{ID: protocol.DeviceID(pub), PublicKey: pub, PrivateKey: priv}, nil
}

// IdentityFromSeed rebuilds an identity from a 32-byte private seed.
func IdentityFromSeed(seed []byte) (*DeviceIdentity, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("device key seed: want %d bytes, got %d", ed25519.SeedSize, len(seed))
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	return &DeviceIdentity{ID: protocol.DeviceID(pub), PublicKey: pub, PrivateKey: priv}, nil
}

// LoadDeviceIdentity reads an identity file and checks that its public key
// and device id match the private seed.
func LoadDeviceIdentity(path string) (*DeviceIdentity, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load device identity: %w", err)
	}
	var f identityFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("load device identity %s: %w", path, err)
	}
	if f.Version != identityFileVersion {
		return nil, fmt.Errorf("load device identity %s: unsupported version %d", path, f.Version)
	}
	seed, err := base64.RawURLEncoding.DecodeString(f.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("load device identity %s: private key: %w", path, err)
	}
	id, err := IdentityFromSeed(seed)
	if err != nil {
		return nil, fmt.Errorf("load device identity %s: %w", path, err)
	}
	if f.PublicKey != "" && f.PublicKey != protocol.EncodeKey(id.PublicKey) {
		return nil, fmt.Errorf("load device identity %s: public key does not match private key", path)
	}
	if f.DeviceID != "" && f.DeviceID != id.ID {
		return nil, fmt.Errorf("load device identity %s: device id does not match key", path)
	}
	return id, nil
}

// LoadOrCreateDeviceIdentity loads the identity at path, or generates one
// and saves it there when the file does not exist.
func LoadOrCreateDeviceIdentity(path string) (*DeviceIdentity, error) {
	id, err := LoadDeviceIdentity(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return id, err
	}
	id, err = NewDeviceIdentity()
	if err != nil {
		return nil, err
	}
	if err := id.Save(path); err != nil {
		return nil, err
	}
	return id, nil
}

// Save writes the identity to path with mode 0600 (directory 0700),
// replacing any file there atomically.
func (d *DeviceIdentity) Save(path string) error {
	data, err := json.MarshalIndent(identityFile{
		Version:    identityFileVersion,
		DeviceID:   d.ID,
		PublicKey:  protocol.EncodeKey(d.PublicKey),
		PrivateKey: protocol.EncodeKey(d.PrivateKey.Seed()),
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("save device identity: %w", err)
	}
	data = append(data, '\n')
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save device identity: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".device-*.tmp")
	if err != nil {
		return fmt.Errorf("save device identity: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("save device identity: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("save device identity: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save device identity: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save device identity: %w", err)
	}
	return nil
}

// Proof signs f (whose DeviceID is replaced by d.ID) and returns the
// connect device block. It signs the v3 payload.
func (d *DeviceIdentity) Proof(f protocol.SignedFields) *protocol.DeviceProof {
	f.DeviceID = d.ID
	sig := ed25519.Sign(d.PrivateKey, []byte(f.PayloadV3()))
	return &protocol.DeviceProof{
		ID:        d.ID,
		PublicKey: protocol.EncodeKey(d.PublicKey),
		Signature: protocol.EncodeKey(sig),
		SignedAt:  f.SignedAtMs,
		Nonce:     f.Nonce,
	}
}

// LogValue keeps the private key out of logs.
func (d *DeviceIdentity) LogValue() slog.Value {
	return slog.GroupValue(slog.String("deviceId", d.ID))
}

var _ slog.LogValuer = (*DeviceIdentity)(nil)
