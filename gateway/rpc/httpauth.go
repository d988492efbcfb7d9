package rpc

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"time"
)

// HTTPAuthThrottle puts the handshake's failed-auth limiter
// (gateway.auth.rateLimit: maxAttempts failures in window lock the client
// out for lockout) in front of a secret checked over plain HTTP, so a
// bearer token or a webhook secret cannot be guessed at wire speed where
// the socket's handshake would stop the same guesses.
//
// A handler calls Admit before it looks at the secret and Failed when the
// secret was wrong or missing. While a client is locked out even the right
// secret is refused, as in the handshake: an answer that told a right
// guess from a wrong one would let the guessing go on.
type HTTPAuthThrottle struct {
	srv *Server
	// webhook is the path of a webhook with its own secret, or "" for
	// the gateway's token or password.
	webhook string
}

// SharedSecretThrottle is the throttle for the gateway's own token or
// password over HTTP (the tools REST API). It shares the handshake's
// buckets, since it is the same secret: guesses over HTTP and over the
// socket add up. A direct local client is exempt when
// gateway.auth.rateLimit.exemptLoopback is on, as it is on the socket; a
// request forwarded by an untrusted loopback proxy is refused, as the
// socket refuses it.
func (s *Server) SharedSecretThrottle() *HTTPAuthThrottle { return &HTTPAuthThrottle{srv: s} }

// WebhookThrottle is the throttle for a channel webhook mounted at path
// (Telegram's secret token, Slack's signing secret). Each webhook has its
// own buckets per client address. No client is exempt, loopback included:
// a tunnel on this host delivers the internet's requests from loopback.
// Forwarding headers are believed only from a trusted proxy; from anyone
// else they are ignored rather than refused, since the webhook's caller
// (Telegram, Slack) cannot be asked to change its path.
func (s *Server) WebhookThrottle(path string) *HTTPAuthThrottle {
	return &HTTPAuthThrottle{srv: s, webhook: path}
}

// Admit reports whether r's secret may be checked. When it may not,
// Admit has answered r: 429 with Retry-After (whole seconds) while r's
// client is locked out, or 403 proxy_attribution_required for a request
// relayed by an untrusted loopback proxy (shared secret only).
func (t *HTTPAuthThrottle) Admit(w http.ResponseWriter, r *http.Request) bool {
	key, limited, ok := t.bucket(r)
	if !ok {
		writeHTTPAuthError(w, http.StatusForbidden, "proxy_attribution_required")
		return false
	}
	if !limited {
		return true
	}
	wait, locked := t.srv.limiter.locked(key)
	if !locked {
		return true
	}
	// Debug, not Warn: the lockout itself was logged once, and a
	// guesser that keeps knocking must not fill the log.
	t.srv.log.Debug("refused locked-out HTTP client", "bucket", key, "path", r.URL.Path)
	w.Header().Set("Retry-After", strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
	writeHTTPAuthError(w, http.StatusTooManyRequests, "too many failed authentication attempts (retry later)")
	return false
}

// Failed records a wrong or missing secret from r's client.
func (t *HTTPAuthThrottle) Failed(r *http.Request) {
	key, limited, ok := t.bucket(r)
	if !ok || !limited {
		return
	}
	if t.srv.limiter.fail(key, t.srv.opts.Auth().RateLimit) {
		t.srv.log.Warn("locking out HTTP client after failed authentication", "bucket", key, "path", r.URL.Path)
	}
}

// bucket names r's rate-limit bucket and whether r is counted at all; ok
// is false for a request no client address can be believed for.
func (t *HTTPAuthThrottle) bucket(r *http.Request) (key string, limited, ok bool) {
	auth := t.srv.opts.Auth()
	if t.webhook != "" {
		ip, ok := webhookClientIP(r, auth.TrustedProxies)
		if !ok {
			return "", false, false
		}
		return "webhook:" + t.webhook + ":" + addrBucket(ip), true, true
	}
	ip, forwarded, ok := clientIP(r, auth.TrustedProxies)
	if !ok {
		return "", false, false
	}
	raw := r.Header.Get("Origin")
	origin, err := normalizeOrigin(raw)
	if err != nil {
		origin = ""
	}
	// Direct local as on the socket, and the Host a local client dials:
	// a page that rebound its own name to 127.0.0.1 sends no Origin on a
	// same-origin GET, but its Host still names the page's site.
	local := ip.IsLoopback() && !forwarded && raw == "" && isLoopbackHost(hostOnly(r.Host))
	return rateLimitKey(ip, origin), !(auth.RateLimit.ExemptLoopback && local), true
}

// hostOnly strips the port from a Host header value.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

func writeHTTPAuthError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": msg})
}
