package client_test

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func mustIdentity(t *testing.T) *client.DeviceIdentity {
	t.Helper()
	id, err := client.NewDeviceIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestSignatureVerifies checks the device block against a payload rebuilt
// independently from the connect frame the client sent.
func TestSignatureVerifies(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts client.Options
	}{
		{"operator with token", client.Options{Token: "T", Scopes: []string{"operator.admin", "operator.read"}}},
		{"node without scopes", client.Options{Token: "T", Role: protocol.RoleNode, ClientID: "node-host", ClientMode: "node"}},
		{"device token only", client.Options{DeviceToken: "dt", Platform: "macos", DeviceFamily: "Mac"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := clienttest.NewServer(t, clienttest.Config{})
			id := mustIdentity(t)
			tc.opts.Identity = id
			dial(t, srv, tc.opts)
			got, _ := srv.LastConnect()

			var frame struct {
				Params struct {
					Client struct{ ID, Mode, Platform, DeviceFamily string }
					Role   string
					Scopes []string
					Auth   struct{ Token, DeviceToken, BootstrapToken string }
					Device struct {
						ID, PublicKey, Signature, Nonce string
						SignedAt                        int64
					}
				}
			}
			if err := json.Unmarshal(got.Raw, &frame); err != nil {
				t.Fatal(err)
			}
			p, d := frame.Params, frame.Params.Device
			if d.SignedAt != got.Ts || d.Nonce != got.Nonce {
				t.Errorf("signedAt/nonce = %d/%s, want challenge %d/%s", d.SignedAt, d.Nonce, got.Ts, got.Nonce)
			}
			if d.ID != id.ID || d.ID != protocol.DeviceID(id.PublicKey) {
				t.Errorf("device id = %s, want %s", d.ID, id.ID)
			}
			token := p.Auth.Token
			if token == "" {
				token = p.Auth.DeviceToken
			}
			payload := strings.Join([]string{"v3", d.ID, p.Client.ID, p.Client.Mode, p.Role,
				strings.Join(p.Scopes, ","), itoa(d.SignedAt), token, d.Nonce,
				strings.ToLower(p.Client.Platform), strings.ToLower(p.Client.DeviceFamily)}, "|")
			pub, err := protocol.DecodePublicKey(d.PublicKey)
			if err != nil {
				t.Fatal(err)
			}
			sig, err := protocol.DecodeSignature(d.Signature)
			if err != nil {
				t.Fatal(err)
			}
			if !ed25519.Verify(pub, []byte(payload), sig) {
				t.Errorf("signature does not verify over %q", payload)
			}
		})
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestIdentityFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "identity", "device.json")

	if _, err := client.LoadDeviceIdentity(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("load missing: %v", err)
	}
	created, err := client.LoadOrCreateDeviceIdentity(path)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := client.LoadOrCreateDeviceIdentity(path)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != created.ID || !loaded.PrivateKey.Equal(created.PrivateKey) {
		t.Error("reloaded identity differs")
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
		}
	}
	var f map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if f["version"] != float64(1) || f["deviceId"] != created.ID || f["publicKey"] != protocol.EncodeKey(created.PublicKey) {
		t.Errorf("file = %s", data)
	}

	for _, tc := range []struct {
		name, content, want string
	}{
		{"bad version", `{"version":2,"privateKey":"AAAA"}`, "unsupported version"},
		{"short seed", `{"version":1,"privateKey":"AAAA"}`, "want 32 bytes"},
		{"wrong public key", `{"version":1,"privateKey":"` + protocol.EncodeKey(created.PrivateKey.Seed()) +
			`","publicKey":"` + protocol.EncodeKey(make([]byte, 32)) + `"}`, "does not match"},
		{"wrong device id", `{"version":1,"privateKey":"` + protocol.EncodeKey(created.PrivateKey.Seed()) +
			`","deviceId":"abc"}`, "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name+".json")
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := client.LoadDeviceIdentity(p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestIdentityLogValue(t *testing.T) {
	id := mustIdentity(t)
	if s := id.LogValue().String(); strings.Contains(s, protocol.EncodeKey(id.PrivateKey.Seed())) || !strings.Contains(s, id.ID) {
		t.Errorf("LogValue = %s", s)
	}
}
