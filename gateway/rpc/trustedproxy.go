package rpc

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TrustedProxyAuth is gateway.auth.trustedProxy with identityScopes: how
// auth mode "trusted-proxy" reads the user an identity-aware reverse proxy
// authenticated.
type TrustedProxyAuth struct {
	UserHeader      string
	RequiredHeaders []string
	AllowUsers      []string
	AllowLoopback   bool
	// IdentityScopes are scopes a user gets for the connection, on top of
	// its grant; they are never written into a device's pairing.
	IdentityScopes map[string][]string
	// AutoApprove, when non-nil, is the most a new browser device of a
	// proxy user is paired with, without asking (deviceAutoApprove).
	AutoApprove []string
}

// DefaultProxyAutoApproveScopes is deviceAutoApprove.scopes when unset.
var DefaultProxyAutoApproveScopes = []string{
	string(protocol.ScopeRead), string(protocol.ScopeWrite), string(protocol.ScopeApprovals), "operator.questions",
}

// ScopesCapHeader is the header a trusted proxy may send to narrow the
// scopes of the session it opens: it limits, never grants.
const ScopesCapHeader = "X-Openclaw-Scopes"

// proxyIdentity is what the upgrade request said through a trusted proxy:
// the user, or why none is believed (OpenClaw's authReason strings).
type proxyIdentity struct {
	user   string
	reason string
	// scopeCap narrows the session when hasCap (a present but empty
	// header leaves no scope).
	scopeCap []string
	hasCap   bool
}

// authorizeTrustedProxy checks an upgrade request against the
// trusted-proxy rules, in OpenClaw's order: the socket's peer (never a
// forwarded address) must be a trusted proxy; a loopback peer only with
// allowLoopback; a peer that is one of this host's own interface
// addresses is refused (a client on this host could pick it as source);
// then the required headers and the user header must be non-empty, and
// the user allowed. Anything else is refused: the header alone is worth
// nothing, since any client can write it.
func authorizeTrustedProxy(r *http.Request, trusted []netip.Prefix, tp TrustedProxyAuth, localAddrs func() ([]netip.Addr, error)) proxyIdentity {
	switch {
	case len(trusted) == 0:
		return proxyIdentity{reason: "trusted_proxy_no_proxies_configured"}
	case strings.TrimSpace(tp.UserHeader) == "":
		return proxyIdentity{reason: "trusted_proxy_config_missing"}
	}
	peer, ok := peerIP(r)
	if !ok {
		return proxyIdentity{reason: "trusted_proxy_no_request"}
	}
	if !isTrusted(peer, trusted) {
		return proxyIdentity{reason: "trusted_proxy_untrusted_source"}
	}
	if peer.IsLoopback() {
		if !tp.AllowLoopback {
			return proxyIdentity{reason: "trusted_proxy_loopback_source"}
		}
	} else {
		own, err := localAddrs()
		if err != nil {
			return proxyIdentity{reason: "trusted_proxy_local_interface_check_failed"}
		}
		if slices.Contains(own, peer) {
			return proxyIdentity{reason: "trusted_proxy_local_interface_source"}
		}
	}
	for _, h := range tp.RequiredHeaders {
		if strings.TrimSpace(r.Header.Get(h)) == "" {
			return proxyIdentity{reason: "trusted_proxy_missing_header_" + strings.ToLower(strings.TrimSpace(h))}
		}
	}
	user := strings.TrimSpace(r.Header.Get(tp.UserHeader))
	if user == "" {
		return proxyIdentity{reason: "trusted_proxy_user_missing"}
	}
	if len(tp.AllowUsers) > 0 && !slices.Contains(tp.AllowUsers, user) {
		return proxyIdentity{reason: "trusted_proxy_user_not_allowed"}
	}
	id := proxyIdentity{user: user}
	if vals, ok := r.Header[ScopesCapHeader]; ok {
		id.hasCap = true
		id.scopeCap = []string{}
		for _, v := range vals {
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					id.scopeCap = append(id.scopeCap, s)
				}
			}
		}
	}
	return id
}

// interfaceAddrs lists this host's own addresses.
func interfaceAddrs() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, ip.Unmap())
			}
		}
	}
	return out, nil
}

// proxyScopes are a trusted-proxy user's scopes for one connection: the
// grant plus the user's identityScopes, within the proxy's cap.
func proxyScopes(grant []string, id *proxyIdentity, tp TrustedProxyAuth) []string {
	out := slices.Clone(grant)
	for _, s := range tp.IdentityScopes[id.user] {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if id.hasCap {
		out = slices.DeleteFunc(out, func(s string) bool { return !slices.Contains(id.scopeCap, s) })
	}
	return protocol.NormalizeScopes(out)
}
