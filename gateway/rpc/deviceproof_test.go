package rpc

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func TestVerifyDevice(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	otherPub, _, _ := ed25519.GenerateKey(rand.Reader)
	now := time.UnixMilli(1796025972048)
	const nonce = "66b3ca67-9792-4c05-9c07-f165e940c215"
	build := func(mut func(p *protocol.ConnectParams, f *protocol.SignedFields), v2 bool) *protocol.ConnectParams {
		p := &protocol.ConnectParams{
			Client: protocol.ClientInfo{ID: "node-host", Mode: "node", Platform: "linux", DeviceFamily: "Linux"},
			Role:   "node", Scopes: []string{}, Auth: &protocol.ConnectAuth{Token: testToken},
			Device: &protocol.DeviceProof{ID: protocol.DeviceID(pub), PublicKey: protocol.EncodeKey(pub), SignedAt: now.UnixMilli(), Nonce: nonce},
		}
		f := protocol.SignedFields{DeviceID: p.Device.ID, ClientID: "node-host", ClientMode: "node", Role: "node",
			SignedAtMs: p.Device.SignedAt, Token: testToken, Nonce: nonce, Platform: "linux", DeviceFamily: "Linux"}
		if mut != nil {
			mut(p, &f)
		}
		msg := f.PayloadV3()
		if v2 {
			msg = f.PayloadV2()
		}
		p.Device.Signature = protocol.EncodeKey(ed25519.Sign(priv, []byte(msg)))
		return p
	}
	tests := []struct {
		name string
		p    *protocol.ConnectParams
		want string
	}{
		{"v3 signature", build(nil, false), ""},
		{"v2 signature", build(nil, true), ""},
		{"id is not the key fingerprint", build(func(p *protocol.ConnectParams, f *protocol.SignedFields) { p.Device.ID = protocol.DeviceID(otherPub) }, false), protocol.DetailDeviceAuthIDMismatch},
		{"signed too long ago", build(func(p *protocol.ConnectParams, f *protocol.SignedFields) {
			p.Device.SignedAt = now.Add(-3 * time.Minute).UnixMilli()
			f.SignedAtMs = p.Device.SignedAt
		}, false), protocol.DetailDeviceAuthExpired},
		{"nonce missing", build(func(p *protocol.ConnectParams, f *protocol.SignedFields) { p.Device.Nonce = ""; f.Nonce = "" }, false), protocol.DetailDeviceAuthNonceRequired},
		{"nonce of another socket", build(func(p *protocol.ConnectParams, f *protocol.SignedFields) {
			p.Device.Nonce = "replayed"
			f.Nonce = "replayed"
		}, false), protocol.DetailDeviceAuthNonceMismatch},
		{"signature over other scopes", build(func(p *protocol.ConnectParams, f *protocol.SignedFields) { f.Scopes = []string{"operator.admin"} }, false), protocol.DetailDeviceAuthSigInvalid},
		{"signature over another token", build(func(p *protocol.ConnectParams, f *protocol.SignedFields) { f.Token = "other" }, false), protocol.DetailDeviceAuthSigInvalid},
		{"bad public key", build(func(p *protocol.ConnectParams, f *protocol.SignedFields) { p.Device.PublicKey = "not-a-key" }, false), protocol.DetailDeviceAuthKeyInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verifyDevice(tt.p, "node", nonce, now)
			if got := detail(err); got != tt.want {
				t.Fatalf("detail = %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

// TestVerifyCapturedDevices checks the signatures of device connects
// captured from the real node host and TUI.
func TestVerifyCapturedDevices(t *testing.T) {
	for _, name := range []string{"node_connect.json", "tui_connect.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			var frame struct {
				Params protocol.ConnectParams `json:"params"`
			}
			if err := json.Unmarshal(data, &frame); err != nil {
				t.Fatal(err)
			}
			p := &frame.Params
			if err := verifyDevice(p, p.Role, p.Device.Nonce, time.UnixMilli(p.Device.SignedAt)); err != nil {
				t.Fatalf("captured device proof refused: %v", err)
			}
			if err := verifyDevice(p, p.Role, "another-nonce", time.UnixMilli(p.Device.SignedAt)); detail(err) != protocol.DetailDeviceAuthNonceMismatch {
				t.Fatalf("replay on another socket: %v", err)
			}
		})
	}
}
