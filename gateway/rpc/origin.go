package rpc

import (
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

var (
	errOriginMalformed  = errors.New("origin is not scheme://host[:port]")
	errOriginNotAllowed = errors.New("origin not allowed")
)

// normalizeOrigin returns an Origin header as the one spelling of its
// origin: scheme://host[:port], lower case, without the scheme's default
// port. A browser sends exactly that serialisation; a value with
// userinfo, a path, a query or a fragment, or one that does not parse,
// was made by hand and is refused. Without one spelling per origin, each
// variant of a page's origin (a path, a port written out, upper case)
// would get its own rate-limit bucket.
func normalizeOrigin(raw string) (string, error) {
	if raw == "" || strings.ContainsAny(raw, "#\\ \t") {
		return "", errOriginMalformed
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Opaque != "" || u.User != nil || u.Host == "" ||
		u.Path != "" || u.RawQuery != "" || u.ForceQuery {
		return "", errOriginMalformed
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", errOriginMalformed
	}
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil || a.Zone() != "" {
			return "", errOriginMalformed
		}
		host = "[" + a.String() + "]"
	} else if strings.IndexFunc(host, notHostChar) >= 0 {
		// Browsers serialise names in ASCII (IDNs as punycode), never
		// percent-encoded.
		return "", errOriginMalformed
	}
	port := u.Port()
	if strings.HasSuffix(u.Host, ":") {
		return "", errOriginMalformed // "host:" with an empty port
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", errOriginMalformed
		}
		port = strconv.Itoa(n) // "08080" is 8080
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = ""
		}
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// browserOrigin runs the Origin gate on an upgrade request: it returns ""
// for a native client (no Origin), the normalised origin of an allowed
// page, or an error for a malformed, repeated or not allowed one. A literal
// "null" origin (sandboxed frames, file pages) is never allowed.
func browserOrigin(r *http.Request, allowed []string) (string, error) {
	values := r.Header.Values("Origin")
	switch {
	case len(values) == 0:
		return "", nil
	case len(values) > 1:
		return "", errOriginMalformed
	case values[0] == "null":
		return "", errOriginNotAllowed
	}
	origin, err := normalizeOrigin(values[0])
	if err != nil {
		return "", err
	}
	if !originAllowed(origin, r.Host, allowed) {
		return "", errOriginNotAllowed
	}
	return origin, nil
}

// originAllowed admits configured origins and the gateway's own loopback
// origin (the Control UI served by this port). Any other page, loopback
// ones included, must be listed in gateway.controlUi.allowedOrigins.
// origin is normalised; configured entries are normalised here (a trailing
// slash or an upper-case host in the config still matches).
func originAllowed(origin, host string, allowed []string) bool {
	for _, a := range allowed {
		if a == "*" {
			return true
		}
		if n, err := normalizeOrigin(strings.TrimRight(a, "/")); err == nil && n == origin {
			return true
		}
	}
	scheme, _, _ := strings.Cut(origin, "://")
	if scheme != "http" && scheme != "https" {
		return false
	}
	self, err := normalizeOrigin(scheme + "://" + host)
	if err != nil || self != origin {
		return false
	}
	u, _ := url.Parse(origin)
	return isLoopbackHost(u.Hostname())
}

// originBucket is the rate-limit bucket of a browser page: its origin,
// with every loopback spelling of the host (127.0.0.2, localhost, [::1])
// folded into one, since they are one machine's pages and a client that
// sets Host and Origin itself could otherwise mint a bucket per spelling.
func originBucket(origin string) string {
	u, err := url.Parse(origin)
	if err != nil || !isLoopbackHost(u.Hostname()) {
		return "browser-origin:" + origin
	}
	key := "browser-origin:" + u.Scheme + "://loopback"
	if p := u.Port(); p != "" {
		key += ":" + p
	}
	return key
}

func notHostChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_')
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && a.Unmap().IsLoopback()
}
