package web

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
)

// reservedHeaders are the names web_fetch sets itself or that frame the
// request: an operator header under one of them is dropped rather than
// let it change what is fetched or how (User-Agent has its own setting).
var reservedHeaders = []string{
	"Accept", "Accept-Language", "User-Agent",
	"Host", "Content-Length", "Transfer-Encoding", "Connection", "Upgrade",
	"Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Expect",
}

// crossOriginSafeHeaders are the operator headers kept when a redirect
// leaves the first origin; any other, a routing or credential header
// meant for the first host, is not sent to the next.
var crossOriginSafeHeaders = []string{"Cache-Control", "Content-Type", "Range", "Pragma"}

// operatorHeaders checks tools.web.fetch.headers entry by entry and
// returns the usable ones in canonical form. An unusable entry is
// dropped and logged by name, never by value (values may be secrets):
// one typo must not switch the whole setting off. Names that differ only
// in case are all dropped, since the config object's order is not kept
// and sending either could be the wrong one.
func operatorHeaders(in map[string]string, log *slog.Logger) http.Header {
	if len(in) == 0 {
		return nil
	}
	byName := map[string][]string{}
	for name := range in {
		byName[http.CanonicalHeaderKey(name)] = append(byName[http.CanonicalHeaderKey(name)], name)
	}
	out := http.Header{}
	for canon, names := range byName {
		name := names[0]
		switch {
		case len(names) > 1:
			slices.Sort(names)
			log.Warn("tools.web.fetch.headers: names differ only in case; none of them is sent", "names", strings.Join(names, ", "))
		case !validHeaderName(name):
			log.Warn("tools.web.fetch.headers: not a valid header name; dropped", "name", name)
		case slices.Contains(reservedHeaders, canon):
			log.Warn("tools.web.fetch.headers: web_fetch sets or frames this header itself; dropped", "name", name)
		case !validHeaderValue(in[name]):
			log.Warn("tools.web.fetch.headers: value holds CR, LF, NUL or a character above U+00FF; dropped", "name", name)
		default:
			out[canon] = []string{in[name]}
		}
	}
	return out
}

// validHeaderName reports whether s is an HTTP token (RFC 9110 5.6.2).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}

// validHeaderValue reports whether a request can carry s: no CR, LF or
// NUL, nothing above U+00FF.
func validHeaderValue(s string) bool {
	for _, r := range s {
		if r == '\r' || r == '\n' || r == 0 || r > 0xFF {
			return false
		}
	}
	return true
}

// headerCacheKey folds the headers actually sent into the cache key, so
// a page fetched with one routing header is not served for another.
func headerCacheKey(h http.Header) string {
	if len(h) == 0 {
		return ""
	}
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString("\x00" + n + ":" + h.Get(n))
	}
	return b.String()
}
