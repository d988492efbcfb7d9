package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Resolver looks up a host's addresses; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a guarded client.
type Options struct {
	Policy
	// Resolver resolves host names. Default: net.DefaultResolver.
	Resolver Resolver
	// Timeout bounds a whole request including redirects. Default: none
	// (the caller's context bounds it).
	Timeout time.Duration
	// MaxRedirects is how many redirects are followed; negative follows
	// none. Default (0): 5.
	MaxRedirects int
	// Dial dials an already checked "ip:port". Tests use it to see which
	// address was dialled. Default: a net.Dialer that checks the address
	// once more just before connecting.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// DefaultMaxRedirects is how many redirects a client follows unless
// Options.MaxRedirects says otherwise.
const DefaultMaxRedirects = 5

// NewClient returns an HTTP client whose every connection and redirect
// is checked against o.Policy. It never uses a proxy.
func NewClient(o Options) *http.Client {
	g := newGuard(o)
	tr := &http.Transport{
		Proxy:                 nil, // env proxies would dial by name and skip the pin
		DialContext:           g.dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport:     &schemeCheck{next: tr},
		CheckRedirect: g.checkRedirect,
		Timeout:       o.Timeout,
	}
}

// CheckURL refuses URLs that a guarded client will not fetch for reasons
// visible without resolving: a scheme other than http or https, no host,
// a blocked host name, or an IP literal the policy blocks.
func (p Policy) CheckURL(u *url.URL) error {
	if u == nil {
		return fmt.Errorf("no URL: %w", ErrBlocked)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return fmt.Errorf("scheme %q is not http or https: %w", u.Scheme, ErrBlocked)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("URL %q has no host: %w", u.Redacted(), ErrBlocked)
	}
	if p.hostBlocked(host) {
		return fmt.Errorf("host %s is on the blocked host names: %w", host, ErrBlocked)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return p.CheckAddr(host, ip)
	}
	return nil
}

type guard struct {
	opts Options
}

// newGuard fills o's defaults.
func newGuard(o Options) *guard {
	g := &guard{opts: o}
	if g.opts.Resolver == nil {
		g.opts.Resolver = net.DefaultResolver
	}
	if g.opts.MaxRedirects == 0 {
		g.opts.MaxRedirects = DefaultMaxRedirects
	}
	if g.opts.Dial == nil {
		d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
		d.ControlContext = g.control
		g.opts.Dial = d.DialContext
	}
	return g
}

// dial resolves the host once, checks every answer, and dials the
// checked addresses themselves, never the name.
func (g *guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("netguard: address %q: %w", addr, err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("netguard: port %q: %w", portStr, err)
	}
	if g.opts.hostBlocked(host) {
		return nil, fmt.Errorf("netguard: host %s is on the blocked host names: %w", host, ErrBlocked)
	}
	ips, err := g.resolve(ctx, network, host)
	if err != nil {
		return nil, err
	}
	for _, ip := range ips {
		if err := g.opts.CheckAddr(host, ip); err != nil {
			return nil, fmt.Errorf("netguard: %s: %w", host, err)
		}
	}
	var firstErr error
	for _, ip := range ips {
		conn, err := g.opts.Dial(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

func (g *guard) resolve(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	ipNet := "ip"
	switch network {
	case "tcp4":
		ipNet = "ip4"
	case "tcp6":
		ipNet = "ip6"
	}
	ips, err := g.opts.Resolver.LookupNetIP(ctx, ipNet, host)
	if err != nil {
		return nil, fmt.Errorf("netguard: resolve %s: %w", host, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("netguard: resolve %s: no addresses", host)
	}
	return ips, nil
}

// control checks the address the socket is about to connect to, as a
// second line behind dial.
func (g *guard) control(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: connect %q: %w", address, ErrBlocked)
	}
	if err := g.opts.CheckAddr("", ap.Addr()); err != nil {
		// The allowlist by host name was applied in dial; here only
		// addresses are known, so accept what dial already accepted.
		if len(g.opts.AllowHosts) == 0 {
			return fmt.Errorf("netguard: connect: %w", err)
		}
	}
	return nil
}

func (g *guard) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > max(0, g.opts.MaxRedirects) {
		return fmt.Errorf("netguard: stopped after %d redirects", max(0, g.opts.MaxRedirects))
	}
	if err := g.opts.CheckURL(req.URL); err != nil {
		return fmt.Errorf("netguard: redirect to %s: %w", req.URL.Redacted(), err)
	}
	first := Origin(via[0].URL)
	crossed := Origin(req.URL) != first
	for _, v := range via {
		crossed = crossed || Origin(v.URL) != first
	}
	if crossed {
		for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2"} {
			req.Header.Del(h)
		}
		if req.Body != nil && req.Body != http.NoBody {
			req.Body.Close()
		}
		req.Body = http.NoBody
		req.GetBody = nil
		req.ContentLength = 0
		req.Header.Del("Content-Type")
		req.Header.Del("Content-Length")
	}
	return nil
}

// Origin is u's scheme, host and port, the default port filled in: two
// URLs with the same Origin are the same origin.
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// schemeCheck refuses non-http(s) requests before the transport sees
// them, for the first request as well as for redirects.
type schemeCheck struct{ next http.RoundTripper }

func (s *schemeCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	switch strings.ToLower(req.URL.Scheme) {
	case "http", "https":
		return s.next.RoundTrip(req)
	}
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, fmt.Errorf("netguard: scheme %q is not http or https: %w", req.URL.Scheme, ErrBlocked)
}

// IsBlocked reports whether err is a refusal by a guard.
func IsBlocked(err error) bool { return errors.Is(err, ErrBlocked) }
