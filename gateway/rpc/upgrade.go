package rpc

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// ServeHTTP upgrades a request to the RPC socket. Before the upgrade it
// refuses browser origins that are not allowed (a literal "null" origin
// included), requests forwarded by a proxy that is not trusted, and
// sockets over the pre-auth budget.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := s.opts.Auth()
	ip, forwarded, ok := clientIP(r, auth.TrustedProxies)
	if !ok {
		http.Error(w, "proxy_attribution_required", http.StatusForbidden)
		return
	}
	origin := r.Header.Get("Origin")
	if origin != "" && !originAllowed(origin, r.Host, auth.AllowedOrigins) {
		s.log.Warn("refused websocket origin", "origin", origin, "remote", ip)
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	// Count the connection before upgrading, and not at all once
	// Shutdown has begun waiting.
	s.mu.RLock()
	if s.closing {
		s.mu.RUnlock()
		http.Error(w, "gateway shutting down", http.StatusServiceUnavailable)
		return
	}
	s.wg.Add(1)
	s.mu.RUnlock()
	slot, ok := s.preauth.admit(ip, forwarded, origin)
	if !ok {
		s.wg.Done()
		// OpenClaw's refusal, word for word.
		http.Error(w, "Too many unauthenticated sockets", http.StatusServiceUnavailable)
		return
	}
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		s.preauth.release(slot)
		s.wg.Done()
		return // Upgrade already wrote the HTTP error
	}
	c := newConn(s, ws, ip, origin, forwarded)
	c.preauth = slot
	s.preauth.attach(slot, ws)
	go func() {
		defer s.wg.Done()
		c.serve()
	}()
}

// clientIP returns the normalised client address. A forwarded address is
// used only from a trusted proxy; a loopback peer that carries forwarding
// headers without being trusted is refused, since it would otherwise pass
// as local.
func clientIP(r *http.Request, trusted []netip.Prefix) (ip netip.Addr, forwarded bool, ok bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false, false
	}
	peer = peer.Unmap()
	xff := r.Header.Get("X-Forwarded-For")
	if xff == "" {
		return peer, false, true
	}
	for _, p := range trusted {
		if p.Contains(peer) {
			first := strings.TrimSpace(strings.Split(xff, ",")[0])
			if a, err := netip.ParseAddr(first); err == nil {
				return a.Unmap(), true, true
			}
			return peer, true, true
		}
	}
	if peer.IsLoopback() {
		return netip.Addr{}, false, false
	}
	return peer, false, true
}

// originAllowed admits configured origins and the gateway's own loopback
// origin (the Control UI served by this port). Any other page, loopback
// ones included, must be listed in gateway.controlUi.allowedOrigins.
func originAllowed(origin, host string, allowed []string) bool {
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(strings.TrimRight(a, "/"), origin) {
			return true
		}
	}
	if origin == "null" {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return strings.EqualFold(u.Host, host) && isLoopbackHost(u.Hostname())
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && a.Unmap().IsLoopback()
}
