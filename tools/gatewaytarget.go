package tools

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// GatewayTarget holds the parameters OpenClaw's gateway-backed tools
// (nodes, automations, canvas) share: gatewayUrl and gatewayToken point
// the call at another gateway, timeoutMs bounds it. Embedded in a tool's
// arguments, its fields sit beside the tool's own.
//
// An override URL needs its own token: the call never lends this
// gateway's token (from its config or environment) to another address,
// where a prompt-injected model could have it sent.
type GatewayTarget struct {
	GatewayURL   string `json:"gatewayUrl,omitempty" jsonschema:"description=Act on another gateway at this ws:// or wss:// address (default: this gateway); needs gatewayToken"`
	GatewayToken string `json:"gatewayToken,omitempty" jsonschema:"description=The token of the gateway at gatewayUrl; required with it (this gateway's own credentials are never used for an override)"`
	TimeoutMs    int    `json:"timeoutMs,omitempty" jsonschema:"minimum=0,description=How long the call may take, in milliseconds"`
}

// MaxGatewayTimeout caps timeoutMs.
const MaxGatewayTimeout = 10 * time.Minute

// Remote reports whether the call is for another gateway, refusing an
// override without its own token, a token without an override, an
// address that is not a WebSocket URL, and a negative timeout.
func (g GatewayTarget) Remote() (bool, error) {
	if g.TimeoutMs < 0 {
		return false, errors.New("timeoutMs must not be negative")
	}
	u, tok := strings.TrimSpace(g.GatewayURL), strings.TrimSpace(g.GatewayToken)
	switch {
	case u == "" && tok == "":
		return false, nil
	case u == "":
		return false, errors.New("gatewayToken is only for a gatewayUrl override; leave both out to act on this gateway")
	case tok == "":
		return false, errors.New("gatewayUrl needs gatewayToken: an override never borrows this gateway's credentials")
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "ws" && p.Scheme != "wss") || p.Host == "" {
		return false, fmt.Errorf("gatewayUrl %q: want a ws:// or wss:// address", u)
	}
	if p.User != nil {
		return false, errors.New("gatewayUrl must not carry credentials; give the token as gatewayToken")
	}
	return true, nil
}

// WithTimeout bounds ctx by timeoutMs (capped at MaxGatewayTimeout), or
// leaves it as it is when timeoutMs is 0.
func (g GatewayTarget) WithTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if g.TimeoutMs <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, min(time.Duration(g.TimeoutMs)*time.Millisecond, MaxGatewayTimeout))
}

// GatewayDialer connects to another gateway as an operator. The gateway
// implements it over its RPC client.
type GatewayDialer interface {
	DialGateway(ctx context.Context, url, token string) (GatewayConn, error)
}

// GatewayConn is one connection to another gateway.
type GatewayConn interface {
	// Call sends one request and decodes the payload into out (nil to
	// drop it).
	Call(ctx context.Context, method string, params, out any) error
	Close() error
}
