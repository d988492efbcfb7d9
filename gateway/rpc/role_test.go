package rpc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// grantAll pairs every device with what it asks for.
type grantAll struct{}

func (grantAll) AuthorizeDevice(ctx context.Context, d DeviceConnect) (DeviceGrant, error) {
	return DeviceGrant{Scopes: d.Scopes}, nil
}

func (grantAll) VerifyDeviceToken(ctx context.Context, id, role, token string) ([]string, error) {
	return nil, errors.New("no device tokens here")
}

func TestNodeRoleSeparation(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) { o.Pairing = grantAll{} })
	g.srv.Handle("node.event", Route{Scope: protocol.ScopeNode, Handler: func(ctx context.Context, r *Request) (any, error) {
		return map[string]any{"ok": true}, nil
	}})
	id, _ := client.NewDeviceIdentity()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	node, err := client.Dial(ctx, client.Options{URL: g.url, Token: testToken, Identity: id, Role: protocol.RoleNode,
		ClientID: "node-host", ClientMode: "node", Scopes: []string{"operator.admin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	if s := node.Hello().Auth.Scopes; len(s) != 0 {
		t.Fatalf("a node was granted operator scopes: %v", s)
	}
	tests := []struct {
		method  string
		wantErr string
	}{
		{"node.event", ""},
		{"health", ""},
		{"status", "unauthorized role: node"},
	}
	for _, tt := range tests {
		err := node.Call(ctx, tt.method, map[string]any{}, nil)
		var pe *protocol.Error
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s from node: %v", tt.method, err)
		case tt.wantErr != "" && (!errors.As(err, &pe) || pe.Message != tt.wantErr):
			t.Errorf("%s from node: %v, want %q", tt.method, err, tt.wantErr)
		}
	}
}
