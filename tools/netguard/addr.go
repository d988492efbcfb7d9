// Package netguard makes HTTP clients that refuse to reach private,
// loopback, link-local, metadata and other internal addresses, so that a
// URL chosen by a model or a remote service cannot be used to probe the
// gateway's own network (SSRF).
//
// A guarded client resolves each host once, checks every answer against
// a Policy, and dials the checked IP itself: the name is never resolved a
// second time, so a DNS answer that flips between the check and the dial
// (rebinding) cannot slip through. Each redirect hop is checked again,
// credentials and bodies are dropped when a redirect leaves the origin,
// and proxy settings from the environment are ignored.
//
// All outbound fetches of URLs that did not come from the operator's own
// configuration should go through NewClient.
package netguard

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// ErrBlocked is wrapped by every refusal. The caller should report it
// and not retry: the same request will be refused again.
var ErrBlocked = errors.New("blocked by network guard")

// Policy says which otherwise-blocked destinations are allowed. The zero
// Policy allows only public unicast addresses.
type Policy struct {
	// Allow lists address ranges that may be reached even though they
	// are internal, e.g. 127.0.0.1/32 for a local service. Default: none.
	Allow []netip.Prefix
	// AllowHosts lists host names (exact, case-insensitive) whose
	// resolved addresses may be private. Even for these names, loopback
	// (unless the name itself is localhost or a loopback literal) and
	// link-local addresses, cloud metadata among them, stay refused: a
	// trusted intranet name whose DNS is turned against us must not
	// reach the gateway's own host or the metadata service. Default: none.
	AllowHosts []string
	// BlockHosts lists host names refused before any lookup or allow
	// rule, on every hop: "tracker.example" is that name exactly,
	// "*.ads.example" every name under ads.example but not ads.example
	// itself. Case and a trailing dot are ignored. Default: none.
	BlockHosts []string
	// AllowFakeIP permits 198.18.0.0/15, which fake-IP proxies hand out
	// for every name. Default: false (blocked).
	AllowFakeIP bool
}

type blockedRange struct {
	prefix netip.Prefix
	why    string
}

var blockedRanges = func() []blockedRange {
	table := []struct{ cidr, why string }{
		{"0.0.0.0/8", "\"this network\""},
		{"10.0.0.0/8", "private"},
		{"100.64.0.0/10", "carrier-grade NAT"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local (cloud metadata)"},
		{"172.16.0.0/12", "private"},
		{"192.0.0.0/24", "IETF protocol assignments"},
		{"192.0.2.0/24", "documentation"},
		{"192.88.99.0/24", "6to4 relay anycast"},
		{"192.168.0.0/16", "private"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved or broadcast"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible"},
		{"64:ff9b:1::/48", "local-use NAT64"},
		{"100::/64", "discard-only"},
		{"2001::/32", "Teredo"},
		{"2001:db8::/32", "documentation"},
		{"fc00::/7", "unique local (private)"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local"},
		{"ff00::/8", "multicast"},
	}
	out := make([]blockedRange, len(table))
	for i, r := range table {
		out[i] = blockedRange{netip.MustParsePrefix(r.cidr), r.why}
	}
	return out
}()

var (
	fakeIPRange = netip.MustParsePrefix("198.18.0.0/15")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// CheckAddr reports whether the policy lets a connection go to ip
// reached through host (the name as written in the URL, or "" when
// unknown). Unspecified addresses (0.0.0.0, ::) are refused whatever
// the allowlist says: many systems route them to the local host.
func (p Policy) CheckAddr(host string, ip netip.Addr) error {
	if !ip.IsValid() {
		return fmt.Errorf("invalid address: %w", ErrBlocked)
	}
	ip = ip.WithZone("")
	if ip.Unmap().IsUnspecified() {
		return fmt.Errorf("address %s is unspecified: %w", ip, ErrBlocked)
	}
	why := reason(ip, p.AllowFakeIP)
	if why == "" {
		return nil
	}
	for _, pre := range p.Allow {
		if pre.Contains(ip) || pre.Contains(ip.Unmap()) {
			return nil
		}
	}
	if p.hostAllowed(host) {
		if off := offLimitsForTrustedHost(host, ip); off != "" {
			return fmt.Errorf("address %s is %s, which allowed host names may not reach: %w", ip, off, ErrBlocked)
		}
		return nil
	}
	return fmt.Errorf("address %s is %s: %w", ip, why, ErrBlocked)
}

func (p Policy) hostAllowed(host string) bool {
	host = normalHost(host)
	for _, h := range p.AllowHosts {
		if host != "" && normalHost(h) == host {
			return true
		}
	}
	return false
}

// hostBlocked reports whether host is on BlockHosts.
func (p Policy) hostBlocked(host string) bool {
	host = normalHost(host)
	for _, pat := range p.BlockHosts {
		pat = normalHost(strings.TrimSpace(pat))
		if suffix, ok := strings.CutPrefix(pat, "*."); ok {
			if suffix != "" && strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if pat != "" && host == pat {
			return true
		}
	}
	return false
}

func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// offLimitsForTrustedHost says why ip may not be reached even through an
// allowlisted host name, or "" when it may: loopback unless the name
// itself says loopback, and link-local (cloud metadata lives there).
func offLimitsForTrustedHost(host string, ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback() && !explicitLoopbackName(host):
		return "loopback"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local (cloud metadata)"
	}
	return ""
}

func explicitLoopbackName(host string) bool {
	host = normalHost(host)
	if host == "localhost" || host == "localhost.localdomain" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// reason says why ip is internal, or "" when it is a public address.
// IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4) are
// judged by the address they embed.
func reason(ip netip.Addr, allowFakeIP bool) string {
	if ip.Is4In6() {
		if why := reason(ip.Unmap(), allowFakeIP); why != "" {
			return "IPv4-mapped " + why
		}
		return ""
	}
	if ip.Is6() && (nat64.Contains(ip) || sixToFour.Contains(ip)) {
		b := ip.As16()
		var v4 netip.Addr
		if nat64.Contains(ip) {
			v4 = netip.AddrFrom4([4]byte(b[12:16]))
		} else {
			v4 = netip.AddrFrom4([4]byte(b[2:6]))
		}
		if why := reason(v4, allowFakeIP); why != "" {
			return "IPv6-embedded " + why
		}
		return ""
	}
	if fakeIPRange.Contains(ip) && !allowFakeIP {
		return "fake-IP/benchmarking range"
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(ip) {
			return r.why
		}
	}
	return ""
}
