package rpc

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

var originCases = []struct {
	raw, want string // want "" means refused
}{
	{"https://ops.example.com", "https://ops.example.com"},
	{"HTTPS://OPS.Example.COM", "https://ops.example.com"},
	{"https://ops.example.com:443", "https://ops.example.com"},
	{"http://127.0.0.1:80", "http://127.0.0.1"},
	{"http://127.0.0.1:18789", "http://127.0.0.1:18789"},
	{"http://127.0.0.1:018789", "http://127.0.0.1:18789"},
	{"https://example.com:80", "https://example.com:80"},
	{"http://[::1]:18789", "http://[::1]:18789"},
	{"http://[0:0:0:0:0:0:0:1]:18789", "http://[::1]:18789"},
	{"chrome-extension://abcdefghijklmnop", "chrome-extension://abcdefghijklmnop"},
	{"http://127.0.0.1:18789/", ""},
	{"http://127.0.0.1:18789/p1", ""},
	{"http://127.0.0.1:18789?q=1", ""},
	{"http://127.0.0.1:18789/?q=1", ""},
	{"http://127.0.0.1:18789?", ""},
	{"http://127.0.0.1:18789#f", ""},
	{"http://user@127.0.0.1:18789", ""},
	{"http://user:pw@127.0.0.1:18789", ""},
	{"http://127.0.0.1:", ""},
	{"http://127.0.0.1:99999", ""},
	{"http://127.0.0.1:0", ""},
	{"http://[fe80::1%25eth0]:1", ""},
	{"127.0.0.1:18789", ""},
	{"//127.0.0.1:18789", ""},
	{"http://", ""},
	{"mailto:a@b", ""},
	{"http://a b", ""},
	{"", ""},
	{"null", ""},
}

func TestNormalizeOrigin(t *testing.T) {
	for _, tt := range originCases {
		t.Run(fmt.Sprintf("%q", tt.raw), func(t *testing.T) {
			got, err := normalizeOrigin(tt.raw)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("normalizeOrigin = %q, want refused", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("normalizeOrigin = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// FuzzNormalizeOrigin: the Origin header is the attacker's. Whatever it
// holds, an accepted value's normal form is a fixed point (one spelling
// per origin, hence one bucket) and carries no path, query or userinfo.
func FuzzNormalizeOrigin(f *testing.F) {
	for _, tt := range originCases {
		f.Add(tt.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := normalizeOrigin(raw)
		if err != nil {
			return
		}
		again, err := normalizeOrigin(got)
		if err != nil || again != got {
			t.Fatalf("normalizeOrigin(%q) = %q, which normalises to %q, %v", raw, got, again, err)
		}
		_, rest, _ := strings.Cut(got, "://")
		if strings.ContainsAny(rest, "/?#@") || got != strings.ToLower(got) {
			t.Fatalf("normalizeOrigin(%q) = %q", raw, got)
		}
	})
}

func TestOriginGateNormalises(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		a.AllowedOrigins = []string{"https://ops.example.com", "https://Admin.Example.com/"}
	})
	self := "http://" + g.http.Listener.Addr().String()
	tests := []struct {
		origin string
		want   int
	}{
		{"", http.StatusSwitchingProtocols},
		{"https://ops.example.com", http.StatusSwitchingProtocols},
		{"HTTPS://OPS.EXAMPLE.COM:443", http.StatusSwitchingProtocols},
		{"https://admin.example.com", http.StatusSwitchingProtocols}, // config spelling is normalised too
		{"https://evil.example.com", http.StatusForbidden},
		{"https://ops.example.com.evil.example", http.StatusForbidden},
		{"https://ops.example.com/path", http.StatusForbidden},
		{"https://user@ops.example.com", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"not an origin", http.StatusForbidden},
		{"http://localhost:3000", http.StatusForbidden}, // another local page is not the gateway's own
		{self, http.StatusSwitchingProtocols},
		{strings.ToUpper(self), http.StatusSwitchingProtocols},
		{self + "/p1", http.StatusForbidden},
		{self + "?q=1", http.StatusForbidden},
		{strings.Replace(self, "http://", "http://user@", 1), http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("origin %q", tt.origin), func(t *testing.T) {
			h := http.Header{}
			if tt.origin != "" {
				h.Set("Origin", tt.origin)
			}
			ws, resp, err := websocket.DefaultDialer.Dial(g.url, h)
			if ws != nil {
				ws.Close()
			}
			if resp == nil {
				t.Fatalf("no response: %v", err)
			}
			if resp.StatusCode != tt.want {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
	t.Run("two Origin headers", func(t *testing.T) {
		_, resp, _ := websocket.DefaultDialer.Dial(g.url, http.Header{"Origin": {"https://ops.example.com", self}})
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("two origins: %v", resp)
		}
	})
}

// TestOriginVariantsShareOneBucket: a page (or a local process posing as
// one) guesses the gateway token from loopback, spelling the gateway's own
// origin differently on each try (case, 127.0.0.2 or localhost for
// 127.0.0.1, a path or query, userinfo) so that each try lands in a fresh
// bucket. Variants a browser would never send are refused at the gate;
// the rest are one origin and one bucket, locked after maxAttempts, and
// the right token from the plain spelling is then refused too.
func TestOriginVariantsShareOneBucket(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		a.RateLimit = RateLimitConfig{MaxAttempts: 3, Window: time.Minute, Lockout: time.Hour, ExemptLoopback: true}
	})
	port := strconv.Itoa(g.http.Listener.Addr().(*net.TCPAddr).Port)
	bad := cliConnect("operator.read")
	bad["params"].(map[string]any)["auth"] = map[string]any{"token": "wrong"}

	for _, o := range []string{"/p1", "?q=1", "/?q=1"} {
		h := http.Header{"Origin": {"http://127.0.0.1:" + port + o}}
		if _, resp, _ := websocket.DefaultDialer.Dial(g.url, h); resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("origin variant %q reached the handshake: %v", o, resp)
		}
	}
	if _, resp, _ := websocket.DefaultDialer.Dial(g.url, http.Header{"Origin": {"http://user@127.0.0.1:" + port}}); resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("userinfo origin reached the handshake: %v", resp)
	}

	variants := []struct{ host, origin string }{
		{"127.0.0.1:" + port, "HTTP://127.0.0.1:" + port},
		{"localhost:" + port, "http://LOCALHOST:" + port},
		{"127.0.0.2:" + port, "http://127.0.0.2:" + port},
	}
	for i, v := range variants {
		res := g.attempt(t, http.Header{"Host": {v.host}, "Origin": {v.origin}}, bad)
		if detail(res.Error) != protocol.DetailAuthTokenMismatch {
			t.Fatalf("attempt %d (%s): %+v", i, v.origin, res.Error)
		}
	}
	res := g.attempt(t, http.Header{"Origin": {"http://127.0.0.1:" + port}}, cliConnect("operator.read"))
	if res.OK || detail(res.Error) != protocol.DetailAuthRateLimited {
		t.Fatalf("right token after 3 failures from origin variants: ok=%v %+v; want AUTH_RATE_LIMITED", res.OK, res.Error)
	}
	// The page's lockout is its own: the local CLI (no Origin) still connects.
	g.connected(t, "operator.read")
}

// TestRemoteBrowserOriginIsNotTheBucket: a remote client may send any
// Origin it likes (with allowedOrigins "*" every one passes the gate).
// Its failures are counted by its address, so a new Origin per try does
// not buy a new bucket.
func TestRemoteBrowserOriginIsNotTheBucket(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		a.AllowedOrigins = []string{"*"}
		// A trusted proxy on loopback lets the test speak as a remote host.
		a.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		a.RateLimit = RateLimitConfig{MaxAttempts: 3, Window: time.Minute, Lockout: time.Hour, ExemptLoopback: true}
	})
	bad := cliConnect("operator.read")
	bad["params"].(map[string]any)["auth"] = map[string]any{"token": "wrong"}
	for i := 0; i < 3; i++ {
		g.attempt(t, http.Header{"X-Forwarded-For": {"203.0.113.66"}, "Origin": {fmt.Sprintf("https://a%d.evil.example", i)}}, bad)
	}
	res := g.attempt(t, http.Header{"X-Forwarded-For": {"203.0.113.66"}, "Origin": {"https://fresh.evil.example"}}, cliConnect("operator.read"))
	if res.OK || detail(res.Error) != protocol.DetailAuthRateLimited {
		t.Fatalf("remote client with a fresh Origin: ok=%v %+v; want AUTH_RATE_LIMITED", res.OK, res.Error)
	}
}
