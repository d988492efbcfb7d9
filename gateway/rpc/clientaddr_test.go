package rpc

import (
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func TestClientIP(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name, remote  string
		hdr           http.Header
		want          string
		wantForwarded bool
		wantOK        bool
	}{
		{"plain v4", "203.0.113.7:5000", nil, "203.0.113.7", false, true},
		{"mapped v6 shares the v4 bucket", "[::ffff:203.0.113.7]:5000", nil, "203.0.113.7", false, true},
		{"zone dropped", "[fe80::1%eth0]:5000", nil, "fe80::1", false, true},
		{"loopback", "127.0.0.1:1", nil, "127.0.0.1", false, true},
		{"trusted proxy forwards", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"198.51.100.4"}}, "198.51.100.4", true, true},
		{"client-chosen left entry ignored", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"192.0.2.66, 198.51.100.4"}}, "198.51.100.4", true, true},
		{"trusted hops skipped from the right", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"192.0.2.66, 198.51.100.4, 10.9.9.9"}}, "198.51.100.4", true, true},
		{"header lines read in order", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"192.0.2.66", "198.51.100.4, 10.9.9.9"}}, "198.51.100.4", true, true},
		{"junk left of the client skipped", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"junk, 198.51.100.4"}}, "198.51.100.4", true, true},
		{"hop with port", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"[2001:db8::1]:443"}}, "2001:db8::1", true, true},
		{"every hop trusted: the farthest", "10.1.2.3:80", http.Header{"X-Forwarded-For": {"10.7.7.7, 10.8.8.8"}}, "10.7.7.7", true, true},
		{"trusted proxy without XFF is the client", "10.1.2.3:80", http.Header{"X-Real-Ip": {"198.51.100.4"}}, "10.1.2.3", true, true},
		{"untrusted remote proxy header ignored", "203.0.113.7:5000", http.Header{"X-Forwarded-For": {"198.51.100.4"}}, "203.0.113.7", true, true},
		{"untrusted remote X-Real-IP ignored", "203.0.113.7:5000", http.Header{"X-Real-Ip": {"198.51.100.4"}}, "203.0.113.7", true, true},
		{"untrusted loopback proxy refused", "127.0.0.1:1", http.Header{"X-Forwarded-For": {"198.51.100.4"}}, "", false, false},
		{"untrusted loopback X-Real-IP refused", "127.0.0.1:1", http.Header{"X-Real-Ip": {"198.51.100.4"}}, "", false, false},
		{"untrusted loopback Forwarded refused", "127.0.0.1:1", http.Header{"Forwarded": {"for=198.51.100.4"}}, "", false, false},
		{"untrusted loopback X-Forwarded-Host refused", "[::1]:1", http.Header{"X-Forwarded-Host": {"gw.example"}}, "", false, false},
		{"untrusted loopback X-Forwarded-Proto refused", "127.0.0.1:1", http.Header{"X-Forwarded-Proto": {"https"}}, "", false, false},
		{"garbage remote", "nonsense", nil, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tt.remote, Header: tt.hdr}
			if r.Header == nil {
				r.Header = http.Header{}
			}
			ip, fwd, ok := clientIP(r, trusted)
			if ok != tt.wantOK || (ok && (ip.String() != tt.want || fwd != tt.wantForwarded)) {
				t.Fatalf("clientIP = %v %v %v; want %s %v %v", ip, fwd, ok, tt.want, tt.wantForwarded, tt.wantOK)
			}
		})
	}
}

func TestHasForwardingHeaders(t *testing.T) {
	for name, want := range map[string]bool{
		"X-Forwarded-For": true, "X-Real-Ip": true, "Forwarded": true, "X-Forwarded-Host": true,
		"X-Forwarded-Proto": true, "x-forwarded-port": true, "X-Forwarder": false, "Via": false, "Origin": false,
	} {
		if got := HasForwardingHeaders(http.Header{name: {"x"}}); got != want {
			t.Errorf("HasForwardingHeaders(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestForwardingHeadersOnLoopbackAreRefused: a process on this host that
// relays other machines (a reverse proxy nobody listed in
// gateway.trustedProxies) forwards an attacker's upgrade with X-Real-IP,
// Forwarded or X-Forwarded-Host but no X-Forwarded-For. Its socket is
// loopback, so had only X-Forwarded-For counted, the attacker would be a
// direct local client: exempt from the rate limit and auto-paired. Every
// forwarding header must get the 403 X-Forwarded-For gets.
func TestForwardingHeadersOnLoopbackAreRefused(t *testing.T) {
	g := startTestServer(t, nil)
	for _, h := range []http.Header{
		{"X-Forwarded-For": {"203.0.113.9"}},
		{"X-Real-Ip": {"203.0.113.9"}},
		{"Forwarded": {"for=203.0.113.9;proto=https"}},
		{"X-Forwarded-Host": {"gateway.example.com"}},
		{"X-Forwarded-Proto": {"https"}},
	} {
		_, resp, err := websocket.DefaultDialer.Dial(g.url, h)
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%v from an untrusted loopback proxy: %v %v", h, resp, err)
		}
	}
}

// TestForwardedLoopbackIsNotLocal: behind a trusted proxy on this host,
// a request relayed with only X-Real-IP (no X-Forwarded-For to attribute
// it by) comes from the proxy's loopback address. It is still not a
// direct local client: it must not be exempt from the failed-auth limit,
// and the pairing decision must not see it as local (which would approve
// its device silently).
func TestForwardedLoopbackIsNotLocal(t *testing.T) {
	locals := make(chan bool, 4)
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		a.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		a.RateLimit = RateLimitConfig{MaxAttempts: 3, Window: time.Minute, Lockout: time.Hour, ExemptLoopback: true}
		o.OnConnect = func(c *Conn) { locals <- c.Local() }
	})
	relayed := http.Header{"X-Real-Ip": {"203.0.113.9"}}

	if res := g.attempt(t, relayed, cliConnect("operator.read")); !res.OK {
		t.Fatalf("connect through the trusted proxy: %+v", res.Error)
	}
	if <-locals {
		t.Fatal("a relayed loopback connection counts as direct local")
	}

	bad := cliConnect("operator.read")
	bad["params"].(map[string]any)["auth"] = map[string]any{"token": "wrong"}
	for i := 0; i < 3; i++ {
		g.attempt(t, relayed, bad)
	}
	res := g.attempt(t, relayed, cliConnect("operator.read"))
	if res.OK || detail(res.Error) != protocol.DetailAuthRateLimited {
		t.Fatalf("relayed loopback client after 3 failures: ok=%v %+v; want AUTH_RATE_LIMITED", res.OK, res.Error)
	}
	// The local CLI itself keeps its exemption.
	g.connected(t, "operator.read")
}

// TestForwardedForSpoofBehindTrustedProxy: behind a trusted proxy that
// appends the address it saw, an attacker writes its own X-Forwarded-For
// entry. Picking a new left-most address per try must not give it a new
// bucket per try, and naming a victim's address must not lock the victim
// out.
func TestForwardedForSpoofBehindTrustedProxy(t *testing.T) {
	g := startTestServer(t, func(o *Options, a *AuthConfig) {
		a.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		a.RateLimit = RateLimitConfig{MaxAttempts: 3, Window: time.Minute, Lockout: time.Hour, ExemptLoopback: true}
	})
	const attacker, victim = "203.0.113.66", "198.51.100.7"
	bad := cliConnect("operator.read")
	bad["params"].(map[string]any)["auth"] = map[string]any{"token": "wrong"}
	for i := 0; i < 3; i++ {
		// The attacker claims the victim's address; the proxy appends the
		// attacker's real one.
		res := g.attempt(t, http.Header{"X-Forwarded-For": {victim + ", " + attacker}}, bad)
		if detail(res.Error) != protocol.DetailAuthTokenMismatch {
			t.Fatalf("attempt %d: %+v", i, res.Error)
		}
	}
	res := g.attempt(t, http.Header{"X-Forwarded-For": {"192.0.2.1, " + attacker}}, cliConnect("operator.read"))
	if res.OK || detail(res.Error) != protocol.DetailAuthRateLimited {
		t.Fatalf("attacker with a fresh spoofed entry: ok=%v %+v; want AUTH_RATE_LIMITED", res.OK, res.Error)
	}
	res = g.attempt(t, http.Header{"X-Forwarded-For": {victim}}, cliConnect("operator.read"))
	if !res.OK {
		t.Fatalf("the victim the attacker named is locked out: %+v", res.Error)
	}
}

// attempt opens a socket with hdr, sends one connect frame and returns
// the answer.
func (g *testGateway) attempt(t *testing.T, hdr http.Header, connect map[string]any) response {
	t.Helper()
	ws, _ := g.dial(t, hdr)
	send(t, ws, connect)
	var res response
	readInto(t, ws, &res)
	return res
}

// TestRateLimitKey: one client, one bucket. An IPv6 host picks any
// address of its /64 per try, a page is one origin however it is spelled,
// and a remote client's Origin is not its bucket.
func TestRateLimitKey(t *testing.T) {
	tests := []struct {
		ip, origin, want string
	}{
		{"203.0.113.7", "", "203.0.113.7"},
		{"2001:db8:1:2::1", "", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "", "2001:db8:1:3::/64"},
		{"::1", "", "::1"},
		{"127.0.0.1", "", "127.0.0.1"},
		{"203.0.113.7", "https://evil.example", "203.0.113.7"},
		{"127.0.0.1", "https://evil.example", "browser-origin:https://evil.example"},
		{"127.0.0.1", "http://127.0.0.2:18789", "browser-origin:http://loopback:18789"},
		{"::1", "http://localhost:18789", "browser-origin:http://loopback:18789"},
		{"127.0.0.1", "http://[::1]:18789", "browser-origin:http://loopback:18789"},
		{"127.0.0.1", "http://localhost:3000", "browser-origin:http://loopback:3000"},
	}
	for _, tt := range tests {
		if got := rateLimitKey(netip.MustParseAddr(tt.ip), tt.origin); got != tt.want {
			t.Errorf("rateLimitKey(%s, %q) = %q, want %q", tt.ip, tt.origin, got, tt.want)
		}
	}
}
