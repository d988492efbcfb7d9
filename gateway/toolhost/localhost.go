package toolhost

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// localOnly serves next only to a browser or client on this machine that
// addressed the gateway by one of its loopback names: the peer is a
// loopback address, no proxy forwarded the request, and Host is
// localhost or a loopback IP with the port the gateway listens on.
//
// The peer alone is not enough. A page on evil.example whose name the
// attacker re-points at 127.0.0.1 (DNS rebinding) makes the visitor's
// browser send its requests to the gateway from loopback, and the browser
// lets that page read the answers, since to it they come from the page's
// own origin. Such a request still carries Host: evil.example:<port>,
// which is how it is told apart; it is answered 421 Misdirected Request.
func (h *Host) localOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackPeer(r) {
			http.Error(w, "served to this machine only", http.StatusForbidden)
			return
		}
		if !ownLoopbackHost(r.Host, h.listenPort()) {
			http.Error(w, "served only as localhost or a loopback address on the gateway's port", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossSitePage reports whether a browser sent r for a page of another
// site: Sec-Fetch-Site says so, or Origin names another host than r's.
func crossSitePage(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return true
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	return err != nil || !strings.EqualFold(u.Host, r.Host)
}

// loopbackPeer reports whether r came from this machine and was not
// forwarded by a proxy there on someone else's behalf.
func loopbackPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback() && !rpc.HasForwardingHeaders(r.Header)
}

// ownLoopbackHost reports whether a Host header names this gateway by a
// loopback name: localhost (with or without the final dot) or a loopback
// IP literal, and the port it listens on (80 when Host has none).
func ownLoopbackHost(hostport string, listenPort int) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: the default one of http.
		host, port = hostport, "80"
	}
	if p, err := strconv.Atoi(port); err != nil || p != listenPort {
		return false
	}
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// listenPort is the port the gateway listens on, 0 before it does.
func (h *Host) listenPort() int {
	if a, ok := h.opts.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}
