package gateway

import (
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/devices"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/toolhost"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/tools"
)

// live is the part of the config that can change while running.
type live struct {
	snap       *config.Snapshot
	toolPolicy policy.Config
	guard      *policy.Guard
	hooks      *tools.ConfigHooks
	auth       rpc.AuthConfig
	pairing    devices.Policy
}

func (s *System) current() *live { return s.state.Load() }

// liveFrom derives the hot settings from a snapshot. It fails for tool
// policy or guard rules the policy package refuses.
func (s *System) liveFrom(snap *config.Snapshot) (*live, error) {
	tp, err := toolhost.PolicyConfig(snap.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", snap.Path, err)
	}
	guard, err := toolhost.NewGuard(snap.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", snap.Path, err)
	}
	hooks, err := toolhost.NewHooks(snap.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", snap.Path, err)
	}
	g := snap.Config.Gateway
	token := g.Auth.Token.Value
	if v := s.opts.Getenv("OPENCLAW_GATEWAY_TOKEN"); v != "" && token == "" {
		token = v
	}
	if s.opts.Token != "" {
		token = s.opts.Token
	}
	password := g.Auth.Password.Value
	if v := s.opts.Getenv("OPENCLAW_GATEWAY_PASSWORD"); v != "" && password == "" {
		password = v
	}
	rl := g.Auth.RateLimit
	a := rpc.AuthConfig{
		Mode: g.Auth.Mode, Token: token, Password: password, AllowedOrigins: g.ControlUI.AllowedOrigins,
		TrustedProxies: parsePrefixes(s.log, "gateway.trustedProxies", g.TrustedProxies),
		RateLimit: rpc.RateLimitConfig{
			MaxAttempts: rl.MaxAttempts, Window: time.Duration(rl.WindowMs) * time.Millisecond,
			Lockout: time.Duration(rl.LockoutMs) * time.Millisecond, ExemptLoopback: rl.ExemptLoopback == nil || *rl.ExemptLoopback,
		},
	}
	tpa := g.Auth.TrustedProxy
	a.TrustedProxy = rpc.TrustedProxyAuth{
		UserHeader: tpa.UserHeader, RequiredHeaders: tpa.RequiredHeaders, AllowUsers: tpa.AllowUsers,
		AllowLoopback: tpa.AllowLoopback, IdentityScopes: g.Auth.IdentityScopes,
	}
	if tpa.DeviceAutoApprove.Enabled {
		a.TrustedProxy.AutoApprove = rpc.DefaultProxyAutoApproveScopes
		if tpa.DeviceAutoApprove.Scopes != nil {
			a.TrustedProxy.AutoApprove = tpa.DeviceAutoApprove.Scopes
		}
	}
	if s.opts.AuthMode != "" {
		a.Mode = s.opts.AuthMode
	}
	if a.Mode == "" {
		a.Mode = "token"
	}
	np := g.Nodes.Pairing
	return &live{
		snap: snap, auth: a, toolPolicy: tp, guard: guard, hooks: hooks,
		pairing: devices.Policy{
			AutoApproveLocal: np.AutoApproveLocal == nil || *np.AutoApproveLocal,
			AutoApproveCIDRs: parsePrefixes(s.log, "gateway.nodes.pairing.autoApproveCidrs", np.AutoApproveCIDRs),
		},
	}, nil
}

func parsePrefixes(log *slog.Logger, key string, in []string) []netip.Prefix {
	var out []netip.Prefix
	for _, v := range in {
		if p, err := netip.ParsePrefix(v); err == nil {
			if p.Addr().Is4In6() && p.Bits() >= 96 {
				// Client addresses are unmapped before they are
				// compared, so ::ffff:10.0.0.0/104 must be 10.0.0.0/8.
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			out = append(out, p.Masked())
		} else if a, err := netip.ParseAddr(v); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		} else if log != nil {
			log.Warn("ignoring bad address in config", "key", key, "value", v)
		}
	}
	return out
}
