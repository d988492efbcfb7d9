package rpc

import (
	"net/http"
)

// ServeHTTP upgrades a request to the RPC socket. Before the upgrade it
// refuses browser origins that are malformed or not allowed (a literal
// "null" origin included), requests forwarded by a proxy that is not
// trusted, and sockets over the pre-auth budget.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := s.opts.Auth()
	ip, forwarded, ok := clientIP(r, auth.TrustedProxies)
	if !ok {
		http.Error(w, "proxy_attribution_required", http.StatusForbidden)
		return
	}
	origin, err := browserOrigin(r, auth.AllowedOrigins)
	if err != nil {
		s.log.Warn("refused websocket origin", "origin", r.Header.Get("Origin"), "remote", ip, "err", err)
		http.Error(w, err.Error(), http.StatusForbidden)
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
	if auth.Mode == "trusted-proxy" {
		// Read at the upgrade: the headers are gone once the socket is open.
		id := authorizeTrustedProxy(r, auth.TrustedProxies, auth.TrustedProxy, s.opts.LocalAddrs)
		c.proxy = &id
	}
	c.preauth = slot
	s.preauth.attach(slot, ws)
	go func() {
		defer s.wg.Done()
		c.serve()
	}()
}
