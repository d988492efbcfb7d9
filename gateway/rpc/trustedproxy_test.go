package rpc

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func TestAuthorizeTrustedProxy(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("127.0.0.1/32")}
	base := TrustedProxyAuth{UserHeader: "x-auth-user", RequiredHeaders: []string{"x-forwarded-proto"}, AllowUsers: []string{"nick@example.com"}}
	own := func() ([]netip.Addr, error) { return []netip.Addr{netip.MustParseAddr("10.0.0.9")}, nil }
	broken := func() ([]netip.Addr, error) { return nil, errors.New("no interfaces") }
	good := map[string]string{"X-Auth-User": "nick@example.com", "X-Forwarded-Proto": "https"}
	cases := []struct {
		name    string
		remote  string
		headers map[string]string
		tp      func(*TrustedProxyAuth)
		proxies []netip.Prefix
		addrs   func() ([]netip.Addr, error)
		user    string
		reason  string
	}{
		{name: "through the proxy", remote: "10.0.0.1:5000", headers: good, user: "nick@example.com"},
		// The attack: a client reaching the gateway directly writes the
		// header itself.
		{name: "forged by a direct client", remote: "203.0.113.7:4000", headers: good, reason: "trusted_proxy_untrusted_source"},
		{name: "forged with a trusted address in X-Forwarded-For", remote: "203.0.113.7:4000",
			headers: map[string]string{"X-Auth-User": "nick@example.com", "X-Forwarded-Proto": "https", "X-Forwarded-For": "10.0.0.1"}, reason: "trusted_proxy_untrusted_source"},
		{name: "no proxies configured", remote: "10.0.0.1:5000", headers: good, proxies: []netip.Prefix{}, reason: "trusted_proxy_no_proxies_configured"},
		{name: "no user header configured", remote: "10.0.0.1:5000", headers: good, tp: func(a *TrustedProxyAuth) { a.UserHeader = "" }, reason: "trusted_proxy_config_missing"},
		{name: "loopback proxy without allowLoopback", remote: "127.0.0.1:5000", headers: good, reason: "trusted_proxy_loopback_source"},
		{name: "loopback proxy with allowLoopback", remote: "127.0.0.1:5000", headers: good, tp: func(a *TrustedProxyAuth) { a.AllowLoopback = true }, user: "nick@example.com"},
		{name: "loopback allowed but not a trusted proxy", remote: "[::1]:5000", headers: good, tp: func(a *TrustedProxyAuth) { a.AllowLoopback = true }, reason: "trusted_proxy_untrusted_source"},
		{name: "source is one of this host's addresses", remote: "10.0.0.9:5000", headers: good,
			proxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}, reason: "trusted_proxy_local_interface_source"},
		{name: "interfaces unreadable", remote: "10.0.0.1:5000", headers: good, addrs: broken, reason: "trusted_proxy_local_interface_check_failed"},
		{name: "required header missing", remote: "10.0.0.1:5000", headers: map[string]string{"X-Auth-User": "nick@example.com"}, reason: "trusted_proxy_missing_header_x-forwarded-proto"},
		{name: "user header blank", remote: "10.0.0.1:5000", headers: map[string]string{"X-Auth-User": "  ", "X-Forwarded-Proto": "https"}, reason: "trusted_proxy_user_missing"},
		{name: "user not allowed", remote: "10.0.0.1:5000", headers: map[string]string{"X-Auth-User": "eve@example.com", "X-Forwarded-Proto": "https"}, reason: "trusted_proxy_user_not_allowed"},
		{name: "empty allowUsers lets every user in", remote: "10.0.0.1:5000", headers: map[string]string{"X-Auth-User": "eve@example.com", "X-Forwarded-Proto": "https"},
			tp: func(a *TrustedProxyAuth) { a.AllowUsers = nil }, user: "eve@example.com"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			tp := base
			if tc.tp != nil {
				tc.tp(&tp)
			}
			p := proxies
			if tc.proxies != nil {
				p = tc.proxies
			}
			addrs := own
			if tc.addrs != nil {
				addrs = tc.addrs
			}
			got := authorizeTrustedProxy(r, p, tp, addrs)
			if got.user != tc.user || got.reason != tc.reason {
				t.Fatalf("got user %q reason %q, want %q %q", got.user, got.reason, tc.user, tc.reason)
			}
		})
	}
}

func TestProxyScopes(t *testing.T) {
	tp := TrustedProxyAuth{IdentityScopes: map[string][]string{"admin@example.com": {"operator.admin"}}}
	cases := []struct {
		name  string
		grant []string
		id    proxyIdentity
		want  []string
	}{
		{name: "identity scopes added", grant: []string{"operator.read"}, id: proxyIdentity{user: "admin@example.com"}, want: []string{"operator.read", "operator.admin"}},
		{name: "another user gets none of them", grant: []string{}, id: proxyIdentity{user: "eve@example.com"}, want: []string{}},
		{name: "the proxy's cap narrows", grant: []string{"operator.read", "operator.write"}, id: proxyIdentity{user: "admin@example.com", hasCap: true, scopeCap: []string{"operator.read"}}, want: []string{"operator.read"}},
		{name: "an empty cap leaves nothing", grant: []string{"operator.read"}, id: proxyIdentity{user: "admin@example.com", hasCap: true, scopeCap: []string{}}, want: []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := proxyScopes(tc.grant, &tc.id, tp); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// uiConnect is a device-less Control UI connect asking for scopes, with
// optional auth.
func uiConnect(auth map[string]any, scopes ...string) map[string]any {
	p := map[string]any{
		"minProtocol": 4, "maxProtocol": 4,
		"client": map[string]any{"id": "openclaw-control-ui", "version": "2026.9.6", "platform": "web", "mode": "ui"},
		"role":   "operator", "scopes": scopes,
	}
	if auth != nil {
		p["auth"] = auth
	}
	return map[string]any{"type": "req", "id": "c", "method": "connect", "params": p}
}

func TestTrustedProxyHandshake(t *testing.T) {
	loopbackProxy := func(allow bool) func(*Options, *AuthConfig) {
		return func(o *Options, a *AuthConfig) {
			*a = AuthConfig{Mode: "trusted-proxy", Password: "internal-pw",
				TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
				TrustedProxy: TrustedProxyAuth{UserHeader: "x-auth-request-email", AllowLoopback: allow,
					IdentityScopes: map[string][]string{"admin@example.com": {"operator.admin"}}},
			}
		}
	}
	remoteProxy := func(o *Options, a *AuthConfig) {
		*a = AuthConfig{Mode: "trusted-proxy", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")},
			TrustedProxy: TrustedProxyAuth{UserHeader: "x-auth-request-email"}}
	}
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	cases := []struct {
		name    string
		mutate  func(*Options, *AuthConfig)
		header  http.Header
		auth    map[string]any
		scopes  []string
		ok      bool
		method  string
		granted []string
		reason  string
	}{
		{name: "user through the proxy gets its identity scopes", mutate: loopbackProxy(true), header: hdr("X-Auth-Request-Email", "admin@example.com"),
			scopes: []string{"operator.read"}, ok: true, method: "trusted-proxy", granted: []string{"operator.admin"}},
		{name: "a device-less proxy user's own scopes are not believed", mutate: loopbackProxy(true), header: hdr("X-Auth-Request-Email", "bob@example.com"),
			scopes: []string{"operator.admin"}, ok: true, method: "trusted-proxy", granted: []string{}},
		{name: "the proxy's scope header caps identity scopes", mutate: loopbackProxy(true),
			header: hdr("X-Auth-Request-Email", "admin@example.com", "X-Openclaw-Scopes", "operator.read"), ok: true, method: "trusted-proxy", granted: []string{}},
		{name: "header forged by a client not from a trusted proxy", mutate: remoteProxy, header: hdr("X-Auth-Request-Email", "admin@example.com"),
			reason: "trusted_proxy_untrusted_source"},
		{name: "loopback proxy without allowLoopback", mutate: loopbackProxy(false), header: hdr("X-Auth-Request-Email", "admin@example.com"),
			reason: "trusted_proxy_loopback_source"},
		{name: "no user header", mutate: loopbackProxy(true), reason: "trusted_proxy_user_missing"},
		{name: "a direct local client may use the password", mutate: loopbackProxy(false), auth: map[string]any{"password": "internal-pw"},
			ok: true, method: "password"},
		{name: "a wrong password is refused", mutate: loopbackProxy(false), auth: map[string]any{"password": "guess"}, reason: "password_mismatch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := startTestServer(t, tc.mutate)
			ws, _ := g.dial(t, tc.header)
			send(t, ws, uiConnect(tc.auth, tc.scopes...))
			var res response
			readInto(t, ws, &res)
			if res.OK != tc.ok {
				t.Fatalf("connect ok=%v, want %v: %+v", res.OK, tc.ok, res.Error)
			}
			if !tc.ok {
				d, _ := res.Error.Details.(map[string]any)
				if d["authReason"] != tc.reason {
					t.Fatalf("authReason %v, want %s (%+v)", d["authReason"], tc.reason, res.Error)
				}
				return
			}
			var hello protocol.HelloOk
			if err := json.Unmarshal(res.Payload, &hello); err != nil {
				t.Fatal(err)
			}
			if hello.Auth.Method != tc.method {
				t.Fatalf("auth method %q, want %q", hello.Auth.Method, tc.method)
			}
			if tc.granted != nil && !slices.Equal(hello.Auth.Scopes, tc.granted) {
				t.Fatalf("scopes %v, want %v", hello.Auth.Scopes, tc.granted)
			}
			// A proxied user is never "local", even from a proxy on this
			// host that sends no forwarding header: local clients get
			// their asked-for scopes and auto-approvals.
			for _, c := range g.srv.Conns() {
				if c.authMethod == "trusted-proxy" && c.Local() {
					t.Fatal("a trusted-proxy connection counts as local")
				}
			}
		})
	}
}
