package tools

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestGatewayTargetRemote(t *testing.T) {
	tests := []struct {
		name   string
		target GatewayTarget
		remote bool
		err    string
	}{
		{name: "this gateway", target: GatewayTarget{}},
		{name: "only a timeout", target: GatewayTarget{TimeoutMs: 5000}},
		{name: "override with its token", target: GatewayTarget{GatewayURL: "ws://10.0.0.5:18789", GatewayToken: "t"}, remote: true},
		{name: "wss", target: GatewayTarget{GatewayURL: "wss://gw.example.com", GatewayToken: "t"}, remote: true},
		// The rule the seed sets: an override never borrows credentials.
		{name: "override without a token", target: GatewayTarget{GatewayURL: "ws://evil.example:18789"}, err: "needs gatewayToken"},
		{name: "blank token", target: GatewayTarget{GatewayURL: "ws://evil.example:18789", GatewayToken: "  "}, err: "needs gatewayToken"},
		{name: "token without an override", target: GatewayTarget{GatewayToken: "t"}, err: "only for a gatewayUrl"},
		{name: "http is not a gateway", target: GatewayTarget{GatewayURL: "http://169.254.169.254/latest", GatewayToken: "t"}, err: "ws:// or wss://"},
		{name: "file", target: GatewayTarget{GatewayURL: "file:///etc/passwd", GatewayToken: "t"}, err: "ws:// or wss://"},
		{name: "no host", target: GatewayTarget{GatewayURL: "ws://", GatewayToken: "t"}, err: "ws:// or wss://"},
		{name: "credentials in the URL", target: GatewayTarget{GatewayURL: "ws://u:p@host:1", GatewayToken: "t"}, err: "must not carry credentials"},
		{name: "negative timeout", target: GatewayTarget{TimeoutMs: -1}, err: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remote, err := tt.target.Remote()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || remote {
					t.Fatalf("remote %v err %v, want %q", remote, err, tt.err)
				}
				return
			}
			if err != nil || remote != tt.remote {
				t.Fatalf("remote %v err %v, want %v", remote, err, tt.remote)
			}
		})
	}
}

func TestGatewayTargetTimeout(t *testing.T) {
	ctx, cancel := GatewayTarget{}.WithTimeout(context.Background())
	defer cancel()
	if _, ok := ctx.Deadline(); ok {
		t.Fatal("no timeoutMs set a deadline")
	}
	ctx, cancel = GatewayTarget{TimeoutMs: int((time.Hour).Milliseconds())}.WithTimeout(context.Background())
	defer cancel()
	dl, ok := ctx.Deadline()
	if !ok || time.Until(dl) > MaxGatewayTimeout {
		t.Fatalf("deadline %v: want at most %v away", dl, MaxGatewayTimeout)
	}
}
