package rpc

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// secretEndpoint serves 200 to requests with header X-Secret: right, 401
// to others, behind throttle, as a handler with a shared secret would.
func secretEndpoint(t *testing.T, throttle *HTTPAuthThrottle) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !throttle.Admit(w, r) {
			return
		}
		if r.Header.Get("X-Secret") != "right" {
			throttle.Failed(r)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func try(t *testing.T, url string, hdr http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, nil)
	for k, v := range hdr {
		req.Header[k] = v
	}
	if h := hdr.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func lockedOut(t *testing.T, resp *http.Response) {
	t.Helper()
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != http.StatusTooManyRequests || err != nil || secs < 1 {
		t.Fatalf("status %d Retry-After %q; want 429 with a positive Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestHTTPAuthThrottle(t *testing.T) {
	limits := RateLimitConfig{MaxAttempts: 3, Window: time.Minute, Lockout: time.Hour}
	wrong, right := http.Header{"X-Secret": {"wrong"}}, http.Header{"X-Secret": {"right"}}
	with := func(h http.Header, kv ...string) http.Header {
		out := h.Clone()
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}

	t.Run("shared secret: wrong guesses lock out, then even the right one", func(t *testing.T) {
		g := startTestServer(t, func(o *Options, a *AuthConfig) { a.RateLimit = limits })
		url := secretEndpoint(t, g.srv.SharedSecretThrottle())
		for i := 0; i < 3; i++ {
			if resp := try(t, url, wrong); resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("guess %d: %d", i, resp.StatusCode)
			}
		}
		lockedOut(t, try(t, url, right))
	})

	t.Run("shared secret: HTTP and socket failures add up", func(t *testing.T) {
		g := startTestServer(t, func(o *Options, a *AuthConfig) { a.RateLimit = limits })
		url := secretEndpoint(t, g.srv.SharedSecretThrottle())
		for i := 0; i < 3; i++ {
			try(t, url, wrong)
		}
		res := g.attempt(t, nil, cliConnect("operator.read"))
		if res.OK || detail(res.Error) != protocol.DetailAuthRateLimited {
			t.Fatalf("socket connect after 3 bad bearer tokens: ok=%v %+v", res.OK, res.Error)
		}
	})

	t.Run("shared secret: direct local client keeps its exemption, a rebound page does not", func(t *testing.T) {
		g := startTestServer(t, func(o *Options, a *AuthConfig) { a.RateLimit = limits; a.RateLimit.ExemptLoopback = true })
		url := secretEndpoint(t, g.srv.SharedSecretThrottle())
		// A page on evil.example rebound to 127.0.0.1: same-origin, so
		// no Origin header, but its own name in Host.
		rebound := with(wrong, "Host", "evil.example:18789")
		for i := 0; i < 3; i++ {
			try(t, url, rebound)
		}
		lockedOut(t, try(t, url, with(right, "Host", "evil.example:18789")))
		page := "http://localhost:18789"
		for i := 0; i < 3; i++ {
			try(t, url, with(wrong, "Origin", page))
		}
		lockedOut(t, try(t, url, with(right, "Origin", page)))
		for i := 0; i < 5; i++ {
			try(t, url, wrong)
		}
		if resp := try(t, url, right); resp.StatusCode != http.StatusOK {
			t.Fatalf("direct local client: %d", resp.StatusCode)
		}
	})

	t.Run("shared secret: untrusted loopback proxy refused before the secret", func(t *testing.T) {
		g := startTestServer(t, func(o *Options, a *AuthConfig) { a.RateLimit = limits })
		url := secretEndpoint(t, g.srv.SharedSecretThrottle())
		for _, h := range []string{"X-Forwarded-For", "X-Real-Ip", "Forwarded"} {
			if resp := try(t, url, with(right, h, "203.0.113.9")); resp.StatusCode != http.StatusForbidden {
				t.Fatalf("%s from an untrusted loopback proxy: %d", h, resp.StatusCode)
			}
		}
	})

	t.Run("webhook: loopback is not exempt and forged forwarding headers buy nothing", func(t *testing.T) {
		g := startTestServer(t, func(o *Options, a *AuthConfig) { a.RateLimit = limits; a.RateLimit.ExemptLoopback = true })
		url := secretEndpoint(t, g.srv.WebhookThrottle("/hook/a"))
		other := secretEndpoint(t, g.srv.WebhookThrottle("/hook/b"))
		for i := 0; i < 3; i++ {
			h := with(wrong, "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i), "X-Real-Ip", fmt.Sprintf("192.0.2.%d", i))
			if resp := try(t, url, h); resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("guess %d: %d", i, resp.StatusCode)
			}
		}
		lockedOut(t, try(t, url, with(right, "X-Forwarded-For", "198.51.100.200")))
		if resp := try(t, other, right); resp.StatusCode != http.StatusOK {
			t.Fatalf("another webhook shares the lockout: %d", resp.StatusCode)
		}
	})

	t.Run("webhook: behind a trusted proxy the real hop is the bucket", func(t *testing.T) {
		g := startTestServer(t, func(o *Options, a *AuthConfig) {
			a.RateLimit = limits
			a.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		})
		url := secretEndpoint(t, g.srv.WebhookThrottle("/hook/a"))
		for i := 0; i < 3; i++ {
			try(t, url, with(wrong, "X-Forwarded-For", fmt.Sprintf("192.0.2.%d, 203.0.113.66", i)))
		}
		lockedOut(t, try(t, url, with(right, "X-Forwarded-For", "192.0.2.99, 203.0.113.66")))
		if resp := try(t, url, with(right, "X-Forwarded-For", "149.154.167.220")); resp.StatusCode != http.StatusOK {
			t.Fatalf("another sender behind the proxy is locked out: %d", resp.StatusCode)
		}
	})
}
