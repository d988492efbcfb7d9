package netguard

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ProxyOptions configure a guarded forward proxy.
type ProxyOptions struct {
	// Policy is read for every connection, so a reload applies at once.
	Policy func() Policy
	// Resolver resolves host names. Default: net.DefaultResolver.
	Resolver Resolver
	// Dial dials an already checked "ip:port" (see Options.Dial).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Log receives refused connections. Default: discarded.
	Log *slog.Logger
}

// Proxy is a forward HTTP proxy (CONNECT tunnels and absolute-URI
// requests) whose every connection is dialled like a guarded client's:
// the name is resolved once, every answer checked, and the checked
// address itself dialled. Put in front of a browser, it pins what it
// checked, so a name whose answer changes between two lookups (DNS
// rebinding) cannot reach a blocked address through it.
type Proxy struct {
	opts ProxyOptions
	log  *slog.Logger
	tr   *http.Transport
}

// NewProxy returns a proxy; serve it on a loopback listener.
func NewProxy(o ProxyOptions) *Proxy {
	if o.Policy == nil {
		o.Policy = func() Policy { return Policy{} }
	}
	p := &Proxy{opts: o, log: o.Log}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.tr = &http.Transport{
		Proxy:                 nil,
		DialContext:           p.dial,
		MaxIdleConns:          16,
		IdleConnTimeout:       60 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		DisableCompression:    true, // pass the browser's encoding through untouched
	}
	return p
}

// dial is a guarded dial under the policy of this moment.
func (p *Proxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return newGuard(Options{Policy: p.opts.Policy(), Resolver: p.opts.Resolver, Dial: p.opts.Dial}).dial(ctx, network, addr)
}

// ServeHTTP tunnels CONNECT and forwards absolute http:// requests;
// anything else is a bad request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		p.tunnel(w, r)
	case r.URL.IsAbs() && strings.EqualFold(r.URL.Scheme, "http"):
		p.forward(w, r)
	default:
		http.Error(w, "this proxy takes CONNECT or absolute http:// requests", http.StatusBadRequest)
	}
}

func (p *Proxy) refuse(w http.ResponseWriter, target string, err error) {
	if errors.Is(err, ErrBlocked) {
		p.log.Info("proxy connection blocked", "target", target, "err", err)
		http.Error(w, "blocked by the network guard: "+err.Error(), http.StatusForbidden)
		return
	}
	http.Error(w, err.Error(), http.StatusBadGateway)
}

func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	upstream, err := p.dial(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		p.refuse(w, r.Host, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "cannot tunnel over this connection", http.StatusInternalServerError)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		client.Close()
		upstream.Close()
		return
	}
	// Bytes the client sent after its CONNECT line may sit in buf.
	var once sync.Once
	closeBoth := func() {
		once.Do(func() {
			client.Close()
			upstream.Close()
		})
	}
	go func() {
		io.Copy(upstream, buf)
		closeBoth()
	}()
	io.Copy(client, upstream)
	closeBoth()
}

// hopHeaders are for one hop only and are not passed on.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func dropHop(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			h.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	dropHop(out.Header)
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		p.refuse(w, r.URL.Host, err)
		return
	}
	defer resp.Body.Close()
	dropHop(resp.Header)
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// Close drops the proxy's idle upstream connections.
func (p *Proxy) Close() {
	p.tr.CloseIdleConnections()
}
