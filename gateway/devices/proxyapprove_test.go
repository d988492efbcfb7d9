package devices_test

import (
	"context"
	"net/netip"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Trusted-proxy deviceAutoApprove: only a new browser device of a proxy
// user is paired without asking, and with no more than the configured
// scopes, the proxy's cap and what it asked for.
func TestTrustedProxyDeviceAutoApprove(t *testing.T) {
	ui := protocol.ClientInfo{ID: "openclaw-control-ui", Mode: "ui", Platform: "web", Version: "1"}
	cli := protocol.ClientInfo{ID: "cli", Mode: "cli", Platform: "linux", Version: "1"}
	def := rpc.DefaultProxyAutoApproveScopes
	cases := []struct {
		name    string
		dc      rpc.DeviceConnect
		pairedB bool // pair the device first (as read-only)
		want    []string
		pending bool
	}{
		{name: "new browser device within the defaults", want: []string{"operator.read", "operator.write"},
			dc: rpc.DeviceConnect{Client: ui, Scopes: []string{"operator.read", "operator.write", "operator.admin"}, ProxyUser: "nick", ProxyAutoApprove: def}},
		{name: "asking for nothing gets the configured list", want: []string{"operator.read"},
			dc: rpc.DeviceConnect{Client: ui, ProxyUser: "nick", ProxyAutoApprove: []string{"operator.read"}}},
		{name: "the proxy's cap narrows the pairing", want: []string{"operator.read"},
			dc: rpc.DeviceConnect{Client: ui, Scopes: []string{"operator.read", "operator.write"}, ProxyUser: "nick", ProxyAutoApprove: def,
				ProxyHasCap: true, ProxyScopeCap: []string{"operator.read"}}},
		{name: "admin only when listed", want: []string{"operator.admin"},
			dc: rpc.DeviceConnect{Client: ui, Scopes: []string{"operator.admin"}, ProxyUser: "nick", ProxyAutoApprove: []string{"operator.admin"}}},
		{name: "off: the device waits", pending: true,
			dc: rpc.DeviceConnect{Client: ui, Scopes: []string{"operator.read"}, ProxyUser: "nick"}},
		{name: "not a browser client: the device waits", pending: true,
			dc: rpc.DeviceConnect{Client: cli, Scopes: []string{"operator.read"}, ProxyUser: "nick", ProxyAutoApprove: def}},
		{name: "a known device asking for more waits", pending: true, pairedB: true,
			dc: rpc.DeviceConnect{Client: ui, Scopes: []string{"operator.write"}, ProxyUser: "nick", ProxyAutoApprove: def}},
		// The proxy's own address may be loopback or in autoApproveCidrs:
		// that must not pair its users' devices.
		{name: "local auto-approval never applies to proxy users", pending: true,
			dc: rpc.DeviceConnect{Client: ui, Scopes: []string{"operator.read"}, ProxyUser: "nick", Local: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, true)
			ctx := context.Background()
			tc.dc.DeviceID, tc.dc.PublicKey, tc.dc.Role = "dev-1", "pk-1", protocol.RoleOperator
			tc.dc.SharedSecret, tc.dc.RemoteIP = true, netip.MustParseAddr("127.0.0.1")
			if tc.pairedB {
				first := tc.dc
				first.ProxyUser, first.Scopes, first.ProxyAutoApprove = "nick", []string{"operator.read"}, def
				if _, err := e.reg.AuthorizeDevice(ctx, first); err != nil {
					t.Fatal(err)
				}
			}
			g, err := e.reg.AuthorizeDevice(ctx, tc.dc)
			if tc.pending {
				if err == nil || detailOf(err)["code"] != protocol.DetailPairingRequired {
					t.Fatalf("want pairing required, got grant %v err %v", g.Scopes, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(g.Scopes, tc.want) || g.DeviceToken == "" {
				t.Fatalf("grant %v (token %q), want %v", g.Scopes, g.DeviceToken, tc.want)
			}
		})
	}
}
