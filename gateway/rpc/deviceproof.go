package rpc

import (
	"crypto/ed25519"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// DeviceSignatureSkew is how far signedAt may be from the server's clock.
const DeviceSignatureSkew = 120 * time.Second

// verifyDevice checks a device proof against this socket's challenge:
// the id is the key's fingerprint, the signature is fresh, the nonce is
// ours, and the signature covers the v3 (else v2) payload.
func verifyDevice(p *protocol.ConnectParams, role, nonce string, now time.Time) *protocol.Error {
	d := p.Device
	fail := func(code, reason string) *protocol.Error {
		return protocol.Errorf(protocol.CodeInvalidRequest, "device authentication failed: %s", reason).
			WithDetails(map[string]any{"code": code, "reason": reason})
	}
	pub, err := protocol.DecodePublicKey(d.PublicKey)
	if err != nil {
		return fail(protocol.DetailDeviceAuthKeyInvalid, "device-public-key")
	}
	if protocol.DeviceID(pub) != d.ID {
		return fail(protocol.DetailDeviceAuthIDMismatch, "device-id-mismatch")
	}
	skew := now.Sub(time.UnixMilli(d.SignedAt))
	if skew > DeviceSignatureSkew || skew < -DeviceSignatureSkew {
		return fail(protocol.DetailDeviceAuthExpired, "device-signature-stale")
	}
	if d.Nonce == "" {
		return fail(protocol.DetailDeviceAuthNonceRequired, "device-nonce-missing")
	}
	if d.Nonce != nonce {
		return fail(protocol.DetailDeviceAuthNonceMismatch, "device-nonce-mismatch")
	}
	sig, err := protocol.DecodeSignature(d.Signature)
	if err != nil {
		return fail(protocol.DetailDeviceAuthSigInvalid, "device-signature")
	}
	f := protocol.SignedFields{
		DeviceID: d.ID, ClientID: p.Client.ID, ClientMode: p.Client.Mode, Role: role,
		Scopes: p.Scopes, SignedAtMs: d.SignedAt, Token: p.Auth.SignedToken(), Nonce: d.Nonce,
		Platform: p.Client.Platform, DeviceFamily: p.Client.DeviceFamily,
	}
	if ed25519.Verify(pub, []byte(f.PayloadV3()), sig) || ed25519.Verify(pub, []byte(f.PayloadV2()), sig) {
		return nil
	}
	return fail(protocol.DetailDeviceAuthSigInvalid, "device-signature")
}
