package security

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/e2e/harness"
	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// throttled is a gateway that locks a client out after three failed
// authentications (the loopback exemption left at its default, on).
func throttled(extra string) string {
	return fmt.Sprintf(`{
  gateway: { mode: "local", auth: { rateLimit: { maxAttempts: 3, windowMs: 60000, lockoutMs: 600000 } } %s },
}
`, extra)
}

// dialWith connects with token and extra upgrade headers and returns the
// handshake's error.
func dialWith(g *harness.Gateway, token string, hdr http.Header) error {
	c, err := g.DialOpts(client.Options{Token: token, Scopes: []string{"operator.read"}, Header: hdr})
	if err == nil {
		c.Close()
	}
	return err
}

func detailCode(err error) string {
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		return ""
	}
	m, _ := pe.Details.(map[string]any)
	s, _ := m["code"].(string)
	return s
}

// TestOriginVariantsShareOneBucket: a web page in the user's browser, or
// a local process posing as one, guesses the gateway token over
// ws://127.0.0.1 and spells the gateway's own origin differently on each
// try (a path, a query, userinfo, upper case, localhost or 127.0.0.2 for
// 127.0.0.1), hoping each spelling is a fresh rate-limit bucket. Spellings
// no browser sends are refused before the upgrade; the rest are one
// origin: after three failures even the right token is refused with
// AUTH_RATE_LIMITED, while the local CLI (no Origin) still connects.
func TestOriginVariantsShareOneBucket(t *testing.T) {
	t.Parallel()
	g := harness.Start(t, harness.Opts{Config: throttled("")})
	port := strconv.Itoa(g.Port)
	for _, origin := range []string{
		"http://127.0.0.1:" + port + "/p1",
		"http://127.0.0.1:" + port + "?q=1",
		"http://user@127.0.0.1:" + port,
	} {
		err := dialWith(g, "guess", http.Header{"Origin": {origin}})
		if err == nil || !strings.Contains(err.Error(), "http 403") {
			t.Fatalf("origin %q reached the handshake: %v", origin, err)
		}
	}
	for _, v := range []struct{ host, origin string }{
		{"127.0.0.1:" + port, "HTTP://127.0.0.1:" + port},
		{"localhost:" + port, "http://LOCALHOST:" + port},
		{"127.0.0.2:" + port, "http://127.0.0.2:" + port},
	} {
		err := dialWith(g, "guess", http.Header{"Host": {v.host}, "Origin": {v.origin}})
		if detailCode(err) != protocol.DetailAuthTokenMismatch {
			t.Fatalf("guess from %s: %v", v.origin, err)
		}
	}
	err := dialWith(g, g.Token, http.Header{"Origin": {"http://127.0.0.1:" + port}})
	if detailCode(err) != protocol.DetailAuthRateLimited {
		t.Fatalf("right token after three guesses from origin variants: %v; want AUTH_RATE_LIMITED", err)
	}
	g.Dial(t, "operator.read")
}

// TestRelayedLoopbackIsNotLocal: a reverse proxy on the gateway's host
// relays an outsider and says so only with X-Real-IP or Forwarded (no
// X-Forwarded-For). The socket is loopback, so were those headers ignored
// the outsider would be a direct local client: its device paired as an
// operator without anyone approving, and no failed-auth limit. Unlisted
// in gateway.trustedProxies, the proxy's requests are refused before the
// upgrade; listed, they connect but are not local: the device must wait
// for approval.
func TestRelayedLoopbackIsNotLocal(t *testing.T) {
	t.Parallel()
	relayed := []http.Header{{"X-Real-Ip": {"203.0.113.9"}}, {"Forwarded": {"for=203.0.113.9"}}, {"X-Forwarded-Host": {"gw.example.com"}}}

	t.Run("untrusted proxy", func(t *testing.T) {
		t.Parallel()
		g := harness.Start(t, harness.Opts{Config: throttled("")})
		for _, h := range relayed {
			id, err := client.NewDeviceIdentity()
			if err != nil {
				t.Fatal(err)
			}
			c, err := g.DialOpts(client.Options{Token: g.Token, Identity: id, Scopes: []string{"operator.admin"}, Header: h})
			if err == nil {
				c.Close()
				t.Fatalf("a device relayed with %v connected", h)
			}
			if !strings.Contains(err.Error(), "http 403") {
				t.Fatalf("relayed with %v: %v; want 403 before the upgrade", h, err)
			}
		}
		if devices := harness.MustCall(t, g.Admin(t), "device.pair.list", map[string]any{}); len(devices["paired"].([]any)) != 0 {
			t.Fatalf("a relayed device was paired: %v", devices["paired"])
		}
	})

	t.Run("trusted proxy", func(t *testing.T) {
		t.Parallel()
		g := harness.Start(t, harness.Opts{Config: throttled(`, trustedProxies: ["127.0.0.1"]`)})
		id, err := client.NewDeviceIdentity()
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.DialOpts(client.Options{Token: g.Token, Identity: id, Scopes: []string{"operator.admin"}, Header: relayed[0]})
		if detailCode(err) != protocol.DetailPairingRequired {
			t.Fatalf("a device relayed with X-Real-IP by a trusted proxy: %v; want PAIRING_REQUIRED", err)
		}
		// The same device dialling directly on loopback is paired at
		// once: what the relayed one would have got.
		c, err := g.DialOpts(client.Options{Token: g.Token, Identity: id, Scopes: []string{"operator.admin"}})
		if err != nil {
			t.Fatalf("the same device on direct loopback: %v", err)
		}
		c.Close()
		// And the relayed client is counted by the failed-auth limit.
		for i := 0; i < 3; i++ {
			if err := dialWith(g, "guess", relayed[0]); detailCode(err) != protocol.DetailAuthTokenMismatch {
				t.Fatalf("relayed guess %d: %v", i, err)
			}
		}
		if err := dialWith(g, g.Token, relayed[0]); detailCode(err) != protocol.DetailAuthRateLimited {
			t.Fatalf("relayed client after three guesses: %v; want AUTH_RATE_LIMITED", err)
		}
	})
}

// TestToolsRESTBearerThrottled: someone who can reach the gateway's port
// guesses the gateway token as the bearer token of /api/v1/tools, where
// no connect handshake limits guesses: from another host (loopback's
// exemption off), or as a page on a name rebound to 127.0.0.1, whose Host
// is the page's own. After three wrong tokens the client gets 429 with
// Retry-After, even with the right token.
func TestToolsRESTBearerThrottled(t *testing.T) {
	t.Parallel()
	get := func(g *harness.Gateway, host, token string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, g.HTTP+"/api/v1/tools", nil)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, tc := range []struct {
		name, config, host string
	}{
		{"remote guesser", `{ gateway: { mode: "local", auth: { rateLimit: { maxAttempts: 3, exemptLoopback: false } } } }`, ""},
		{"rebound page", throttled(""), "attacker.example:18789"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := harness.Start(t, harness.Opts{Config: tc.config})
			for i := 0; i < 3; i++ {
				if resp := get(g, tc.host, fmt.Sprintf("guess-%d", i)); resp.StatusCode != http.StatusUnauthorized {
					t.Fatalf("guess %d: %d", i, resp.StatusCode)
				}
			}
			resp := get(g, tc.host, g.Token)
			if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); resp.StatusCode != http.StatusTooManyRequests || err != nil || secs < 1 {
				t.Fatalf("right token after three guesses: %d Retry-After %q; want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
		})
	}
}

// TestConfigGetForReadOnlyOperator: an operator holding operator.read
// alone (a dashboard; OpenClaw's own CLI asks for no more to call
// config.get) reads the config, as in OpenClaw, but never a credential in
// it, and may not change it: every write answers "missing scope:
// operator.admin".
func TestConfigGetForReadOnlyOperator(t *testing.T) {
	t.Parallel()
	const botToken, hookSecret = "123:TG-secret-bot-token", "tg_hook_Secret-value"
	g := harness.Start(t, harness.Opts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  channels: { telegram: { enabled: false, botToken: %q, webhookUrl: "https://bot.example.org/hook", webhookSecret: %q } },
}
`, botToken, hookSecret)})
	reader := g.Dial(t, "operator.read")
	snap := harness.MustCall(t, reader, "config.get", map[string]any{})
	if text := harness.JSON(t, snap); strings.Contains(text, botToken) || strings.Contains(text, hookSecret) || strings.Contains(text, g.Token) {
		t.Fatalf("config.get shows a reader a secret: %s", text)
	}
	if snap["raw"] != nil {
		t.Fatal("config.get gives a reader the raw file")
	}
	for _, m := range []string{"config.set", "config.apply", "config.patch"} {
		_, err := harness.Call(t, reader, m, map[string]any{"raw": `{ gateway: { auth: { mode: "none" } } }`})
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeForbidden || pe.Message != "missing scope: operator.admin" {
			t.Fatalf("%s by a reader: %v; want FORBIDDEN missing scope: operator.admin", m, err)
		}
	}
	if admin := harness.MustCall(t, g.Admin(t), "config.get", map[string]any{}); admin["raw"] == nil {
		t.Fatal("config.get gives an admin no raw text (the Control UI's Config view needs it)")
	}
}
