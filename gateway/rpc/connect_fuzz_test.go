package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// FuzzConnectParams feeds arbitrary connect params through validation and
// device-proof checking: neither may panic, and a proof with a nonce other
// than ours is never accepted.
func FuzzConnectParams(f *testing.F) {
	for _, name := range []string{"node_connect.json", "tui_connect.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		var frame struct {
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal(data, &frame)
		f.Add([]byte(frame.Params))
	}
	f.Add([]byte(`{"minProtocol":4,"maxProtocol":4,"client":{"id":"cli","version":"1","platform":"linux","mode":"cli"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p protocol.ConnectParams
		if json.Unmarshal(data, &p) != nil {
			return
		}
		validateConnect(&p)
		protocolAccepted(&p)
		if p.Device == nil {
			return
		}
		if err := verifyDevice(&p, p.Role, "nonce-of-this-socket", time.UnixMilli(p.Device.SignedAt)); err == nil && p.Device.Nonce != "nonce-of-this-socket" {
			t.Fatalf("accepted a proof for another nonce: %s", data)
		}
	})
}
