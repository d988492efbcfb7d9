package rpc

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// HasForwardingHeaders reports whether a request carries any header a
// proxy adds to say whom it forwards for: Forwarded, X-Real-IP or any
// X-Forwarded-*. All count alike: a loopback request carrying one of them
// came through something on this host that relays other machines, so it
// is not a direct local client, whichever header that relay happens to
// write.
func HasForwardingHeaders(h http.Header) bool {
	for name := range h {
		// Header keys are canonical when they come off the wire; fold
		// anyway, for handlers that build requests by hand.
		switch n := strings.ToLower(name); {
		case n == "forwarded", n == "x-real-ip", strings.HasPrefix(n, "x-forwarded-"):
			return true
		}
	}
	return false
}

// clientIP returns the normalised client address of a request to a
// gateway-authenticated route, and whether it came through a proxy.
//
//   - No forwarding headers: the socket peer.
//   - From a trusted proxy: the right-most X-Forwarded-For hop that is not
//     itself a trusted proxy. Entries left of it were written by the
//     client and prove nothing; taking the left-most one would let any
//     client pick its own rate-limit bucket, or lock out someone else's.
//   - From an untrusted loopback peer: refused (ok false). It would pass as
//     local otherwise, and the address it claims cannot be believed.
//   - From an untrusted remote peer: the peer; its claims are ignored.
func clientIP(r *http.Request, trusted []netip.Prefix) (ip netip.Addr, forwarded bool, ok bool) {
	peer, ok := peerIP(r)
	if !ok {
		return netip.Addr{}, false, false
	}
	if !HasForwardingHeaders(r.Header) {
		return peer, false, true
	}
	if isTrusted(peer, trusted) {
		if hop, ok := forwardedClient(r.Header.Values("X-Forwarded-For"), trusted); ok {
			return hop, true, true
		}
		return peer, true, true
	}
	if peer.IsLoopback() {
		return netip.Addr{}, false, false
	}
	return peer, true, true
}

// webhookClientIP attributes a request to a webhook, whose own secret or
// signature is its authentication: never refused, forwarded claims believed
// only from a trusted proxy, otherwise the socket peer.
func webhookClientIP(r *http.Request, trusted []netip.Prefix) (netip.Addr, bool) {
	peer, ok := peerIP(r)
	if !ok {
		return netip.Addr{}, false
	}
	if isTrusted(peer, trusted) {
		if hop, ok := forwardedClient(r.Header.Values("X-Forwarded-For"), trusted); ok {
			return hop, true
		}
	}
	return peer, true
}

// peerIP is the socket's remote address, unmapped and without a zone so
// that one host has one spelling.
func peerIP(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

// forwardedClient walks X-Forwarded-For from the right (each proxy appends
// the address it received from), skipping trusted proxies, and returns the
// first hop that is not one. Entries that are not addresses are skipped:
// trusted proxies only append addresses, so junk can only be the client's
// own. When every hop is trusted the left-most is the client (a trusted
// host talking through another trusted proxy).
func forwardedClient(values []string, trusted []netip.Prefix) (netip.Addr, bool) {
	var hops []netip.Addr
	for _, v := range values {
		for _, entry := range strings.Split(v, ",") {
			if a, ok := parseHop(entry); ok {
				hops = append(hops, a)
			}
		}
	}
	for i := len(hops) - 1; i >= 0; i-- {
		if !isTrusted(hops[i], trusted) {
			return hops[i], true
		}
	}
	if len(hops) > 0 {
		return hops[0], true
	}
	return netip.Addr{}, false
}

// parseHop reads one X-Forwarded-For entry: an address, optionally with a
// port ("198.51.100.4:5000", "[2001:db8::1]:443").
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
