package devices_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/devices"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TestRenameDevice: device.pair.rename {deviceId, label} sets the label
// device.pair.list shows as operatorLabel and announces device.pair.changed;
// a device may rename itself, but only an admin renames another device or
// one paired as a node.
func TestRenameDevice(t *testing.T) {
	e := newEnv(t, true)
	ctx := context.Background()
	laptopID, _ := client.NewDeviceIdentity()
	laptop, err := e.dial(t, client.Options{Token: token, Identity: laptopID, ClientID: "openclaw-control-ui", ClientMode: "ui",
		DisplayName: "Control UI", Scopes: []string{"operator.read", "operator.pairing"}})
	if err != nil {
		t.Fatal(err)
	}
	nodeID, _ := client.NewDeviceIdentity()
	if _, err := e.dial(t, client.Options{Token: token, Identity: nodeID, Role: protocol.RoleNode, ClientID: "node-host", ClientMode: "node"}); err != nil {
		t.Fatal(err)
	}
	admin, err := e.dial(t, client.Options{Token: token, Scopes: []string{"operator.admin"}})
	if err != nil {
		t.Fatal(err)
	}
	label := func(id string) string {
		t.Helper()
		var list devices.ListResult
		if err := admin.Call(ctx, "device.pair.list", nil, &list); err != nil {
			t.Fatal(err)
		}
		for _, d := range list.Paired {
			if d.DeviceID == id {
				return d.OperatorLabel
			}
		}
		t.Fatalf("device %s not paired", id)
		return ""
	}

	var out map[string]any
	if err := admin.Call(ctx, "device.pair.rename", map[string]any{"deviceId": nodeID.ID, "label": "  build box  "}, &out); err != nil {
		t.Fatalf("rename by admin: %v", err)
	}
	if out["deviceId"] != nodeID.ID || out["label"] != "build box" {
		t.Fatalf("rename result %v", out)
	}
	if ev := waitEvent(t, laptop, protocol.EventDevicePairChanged); !strings.Contains(string(ev.Payload), nodeID.ID) {
		t.Fatalf("device.pair.changed payload %s", ev.Payload)
	}
	if got := label(nodeID.ID); got != "build box" {
		t.Fatalf("operatorLabel = %q", got)
	}

	// Its own device, yes; another device or a node, only as admin.
	if err := laptop.Call(ctx, "device.pair.rename", map[string]any{"deviceId": laptopID.ID, "label": "my laptop"}, nil); err != nil {
		t.Fatalf("rename own device: %v", err)
	}
	if got := label(laptopID.ID); got != "my laptop" {
		t.Fatalf("own operatorLabel = %q", got)
	}
	err = laptop.Call(ctx, "device.pair.rename", map[string]any{"deviceId": nodeID.ID, "label": "mine now"}, nil)
	if detailOf(err)["code"] != protocol.DetailMissingScope {
		t.Fatalf("rename of another device without admin: %v", err)
	}

	for _, bad := range []map[string]any{
		{"deviceId": nodeID.ID, "label": "   "},
		{"deviceId": nodeID.ID, "label": strings.Repeat("x", devices.MaxLabelLen+1)},
		{"label": "no device"},
		{"deviceId": "no-such-device", "label": "ghost"},
	} {
		err := admin.Call(ctx, "device.pair.rename", bad, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidRequest {
			t.Errorf("rename %v: %v, want INVALID_REQUEST", bad, err)
		}
	}
	if got := label(nodeID.ID); got != "build box" {
		t.Fatalf("operatorLabel after refused renames = %q", got)
	}
}
