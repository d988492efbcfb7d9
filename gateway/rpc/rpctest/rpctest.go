// Package rpctest runs an in-process bus for the tests of parts that
// register methods on it (agents, nodes, devices): token auth with Token,
// served by httptest, stopped when the test ends.
package rpctest

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Token is the shared token the bus accepts.
const Token = "rpctest-shared-token"

// GrantAsked pairs every device with the scopes it asks for and knows no
// device tokens: enough for tests whose subject is not pairing.
type GrantAsked struct{}

// AuthorizeDevice grants what the device asks for.
func (GrantAsked) AuthorizeDevice(ctx context.Context, d rpc.DeviceConnect) (rpc.DeviceGrant, error) {
	return rpc.DeviceGrant{Scopes: d.Scopes}, nil
}

// VerifyDeviceToken refuses every device token.
func (GrantAsked) VerifyDeviceToken(ctx context.Context, id, role, token string) ([]string, error) {
	return nil, errors.New("no device tokens here")
}

// NewServer builds a bus from opts, with token auth (Token, loopback
// exempt from rate limits) unless opts.Auth is set, and no ticks to wait
// for unless opts.TickInterval is set.
func NewServer(opts rpc.Options) *rpc.Server {
	if opts.Auth == nil {
		opts.Auth = func() rpc.AuthConfig {
			return rpc.AuthConfig{Mode: "token", Token: Token, RateLimit: rpc.RateLimitConfig{ExemptLoopback: true}}
		}
	}
	if opts.TickInterval == 0 {
		opts.TickInterval = time.Hour
	}
	return rpc.NewServer(opts)
}

// Serve starts srv behind an httptest server and returns its ws:// URL;
// both stop when the test ends.
func Serve(t testing.TB, srv *rpc.Server) string {
	t.Helper()
	srv.Start()
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx, "test over", 0)
		hs.Close()
	})
	return "ws" + strings.TrimPrefix(hs.URL, "http")
}
