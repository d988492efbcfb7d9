package toolhost

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// gatewayDialer lets the gateway-backed tools act on another gateway
// named by gatewayUrl: an operator connection with the call's own token
// and nothing of this gateway's credentials or device identity.
type gatewayDialer struct{}

var _ tools.GatewayDialer = gatewayDialer{}

func (gatewayDialer) DialGateway(ctx context.Context, url, token string) (tools.GatewayConn, error) {
	c, err := client.Dial(ctx, client.Options{
		URL:   url,
		Token: token,
		Role:  protocol.RoleOperator,
		Scopes: []string{string(protocol.ScopeAdmin), string(protocol.ScopeRead), string(protocol.ScopeWrite),
			string(protocol.ScopePairing), string(protocol.ScopeApprovals)},
		DisplayName: "openclaw tool",
		Logger:      slog.New(slog.DiscardHandler),
	})
	if err != nil {
		// The URL is the model's own argument; the token is not repeated.
		return nil, fmt.Errorf("connect to the gateway at %s: %w", url, err)
	}
	return c, nil
}
