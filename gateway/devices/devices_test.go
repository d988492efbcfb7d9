package devices_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/devices"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/rpc/rpctest"
	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

const token = rpctest.Token

type env struct {
	url    string
	reg    *devices.Registry
	policy devices.Policy
}

func newEnv(t *testing.T, autoLocal bool) *env {
	t.Helper()
	st := storetest.Open(t, devices.Migrations())
	e := &env{policy: devices.Policy{AutoApproveLocal: autoLocal}}
	srv := rpctest.NewServer(rpc.Options{})
	e.reg = devices.New(st.DB, slog.New(slog.DiscardHandler), func() devices.Policy { return e.policy }, srv)
	srv.SetPairing(e.reg, e.reg.RecordAuthFailure)
	e.reg.Register(srv)
	srv.Handle("health", rpc.Route{Scope: protocol.ScopeNone, Handler: func(ctx context.Context, r *rpc.Request) (any, error) { return "ok", nil }})
	e.url = rpctest.Serve(t, srv)
	return e
}

func (e *env) dial(t *testing.T, o client.Options) (*client.Client, error) {
	t.Helper()
	o.URL = e.url
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, o)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func detailOf(err error) map[string]any {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		m, _ := pe.Details.(map[string]any)
		return m
	}
	return nil
}

func TestLocalDeviceIsPairedAutomatically(t *testing.T) {
	e := newEnv(t, true)
	id, _ := client.NewDeviceIdentity()
	c, err := e.dial(t, client.Options{Token: token, Identity: id, ClientID: "openclaw-tui", ClientMode: "ui", Scopes: []string{"operator.read", "operator.pairing"}})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	h := c.Hello()
	if h.Auth.DeviceToken == "" || strings.Join(h.Auth.Scopes, ",") != "operator.read,operator.pairing" {
		t.Fatalf("hello auth = %+v", h.Auth)
	}
	var list devices.ListResult
	if err := c.Call(context.Background(), "device.pair.list", nil, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Paired) != 1 || list.Paired[0].DeviceID != id.ID || !list.Paired[0].Connected || len(list.Pending) != 0 {
		t.Fatalf("list = %+v", list)
	}

	// The device token alone lets it back in, within the token's scopes.
	c2, err := e.dial(t, client.Options{DeviceToken: h.Auth.DeviceToken, Identity: id, ClientID: "openclaw-tui", ClientMode: "ui",
		Scopes: []string{"operator.read", "operator.admin"}})
	if err != nil {
		t.Fatalf("reconnect with device token: %v", err)
	}
	if got := strings.Join(c2.Hello().Auth.Scopes, ","); got != "operator.read" {
		t.Fatalf("device-token scopes = %q, want operator.read (admin was never granted)", got)
	}
	_, err = e.dial(t, client.Options{DeviceToken: "forged", Identity: id, ClientID: "openclaw-tui", ClientMode: "ui"})
	if detailOf(err)["code"] != protocol.DetailAuthDeviceTokenMismatch {
		t.Fatalf("forged device token: %v", err)
	}
}

func TestRemotePairingFlow(t *testing.T) {
	e := newEnv(t, false) // as if the node were on another machine
	admin, err := e.dial(t, client.Options{Token: token, Scopes: []string{"operator.admin", "operator.pairing"}})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := client.NewDeviceIdentity()
	nodeOpts := client.Options{Token: token, Identity: id, Role: protocol.RoleNode, ClientID: "node-host", ClientMode: "node", DisplayName: "vm"}
	_, err = e.dial(t, nodeOpts)
	d := detailOf(err)
	if d["code"] != protocol.DetailPairingRequired || d["reason"] != "not-paired" || d["recommendedNextStep"] != "wait_then_retry" || d["pauseReconnect"] != false {
		t.Fatalf("unpaired node: %v (%v)", err, d)
	}
	reqID, _ := d["requestId"].(string)
	// Retrying keeps one request.
	_, err = e.dial(t, nodeOpts)
	if detailOf(err)["requestId"] != reqID {
		t.Fatalf("retry made a new request: %v", detailOf(err))
	}
	// The operator saw the request on the bus.
	if ev := waitEvent(t, admin, protocol.EventDevicePairRequested); !strings.Contains(string(ev.Payload), reqID) {
		t.Fatalf("event payload %s", ev.Payload)
	}
	if err := admin.Call(context.Background(), "device.pair.approve", map[string]any{"requestId": reqID}, nil); err != nil {
		t.Fatalf("approve: %v", err)
	}
	node, err := e.dial(t, nodeOpts)
	if err != nil {
		t.Fatalf("approved node: %v", err)
	}
	if h := node.Hello(); h.Auth.Role != "node" || len(h.Auth.Scopes) != 0 || h.Auth.DeviceToken == "" {
		t.Fatalf("node hello auth = %+v", h.Auth)
	}
	// Revoking the node's token closes its socket.
	if err := admin.Call(context.Background(), "device.token.revoke", map[string]any{"deviceId": id.ID, "role": "node"}, nil); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	select {
	case <-node.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("revoked node still connected")
	}
}

func TestScopeUpgradeNeedsApproval(t *testing.T) {
	e := newEnv(t, true)
	id, _ := client.NewDeviceIdentity()
	if _, err := e.dial(t, client.Options{Token: token, Identity: id, Scopes: []string{"operator.read"}}); err != nil {
		t.Fatal(err)
	}
	e.policy.AutoApproveLocal = false
	_, err := e.dial(t, client.Options{Token: token, Identity: id, Scopes: []string{"operator.read", "operator.admin"}})
	if d := detailOf(err); d["code"] != protocol.DetailPairingRequired || d["reason"] != "scope-upgrade" {
		t.Fatalf("scope upgrade: %v", err)
	}
}

func TestRotateNeverWidens(t *testing.T) {
	e := newEnv(t, true)
	id, _ := client.NewDeviceIdentity()
	if _, err := e.dial(t, client.Options{Token: token, Identity: id, Scopes: []string{"operator.read"}}); err != nil {
		t.Fatal(err)
	}
	pairer, err := e.dial(t, client.Options{Token: token, Scopes: []string{"operator.pairing", "operator.admin"}})
	if err != nil {
		t.Fatal(err)
	}
	err = pairer.Call(context.Background(), "device.token.rotate", map[string]any{"deviceId": id.ID, "role": "operator", "scopes": []string{"operator.admin"}}, nil)
	if detailOf(err)["code"] != protocol.DetailAuthScopeMismatch {
		t.Fatalf("widening rotate: %v", err)
	}
	var out map[string]any
	if err := pairer.Call(context.Background(), "device.token.rotate", map[string]any{"deviceId": id.ID, "role": "operator", "scopes": []string{"operator.read"}}, &out); err != nil {
		t.Fatalf("rotate: %v", err)
	}
	if out["tokenDelivery"] != "withheld-cross-device" || out["token"] != nil {
		t.Fatalf("rotate for another device handed out the token: %v", out)
	}
	// A caller with only pairing may not manage someone else's device.
	onlyPairing, err := e.dial(t, client.Options{Token: token, Scopes: []string{"operator.pairing"}})
	if err != nil {
		t.Fatal(err)
	}
	err = onlyPairing.Call(context.Background(), "device.pair.remove", map[string]any{"deviceId": id.ID}, nil)
	if detailOf(err)["code"] != protocol.DetailMissingScope {
		t.Fatalf("remove by non-admin: %v", err)
	}
}

func waitEvent(t *testing.T, c *client.Client, name string) protocol.Inbound {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-c.Events():
			if ev.Event == name {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event", name)
		}
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }
