package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// fakeResolver answers from a table; a host with several answers gets
// them in turn, one per lookup, the last one repeating (a rebinding DNS
// server).
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][]string
	lookups map[string]int
}

func newResolver(answers map[string][]string) *fakeResolver {
	return &fakeResolver{answers: answers, lookups: map[string]int{}}
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	n := r.lookups[host]
	r.lookups[host]++
	if n >= len(seq) {
		n = len(seq) - 1
	}
	var out []netip.Addr
	for _, s := range strings.Split(seq[n], ",") {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

func (r *fakeResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lookups[host]
}

func TestNetGuard(t *testing.T) {
	cases := []struct {
		name    string
		addr    string
		policy  Policy
		blocked bool
	}{
		{"public v4", "93.184.215.14", Policy{}, false},
		{"public v6", "2606:4700::1111", Policy{}, false},
		{"loopback", "127.0.0.1", Policy{}, true},
		{"loopback other", "127.8.9.10", Policy{}, true},
		{"loopback v6", "::1", Policy{}, true},
		{"rfc1918 10", "10.1.2.3", Policy{}, true},
		{"rfc1918 172", "172.31.255.1", Policy{}, true},
		{"rfc1918 192", "192.168.1.1", Policy{}, true},
		{"cgnat", "100.64.0.1", Policy{}, true},
		{"cgnat top", "100.127.255.254", Policy{}, true},
		{"not cgnat", "100.128.0.1", Policy{}, false},
		{"metadata", "169.254.169.254", Policy{}, true},
		{"link-local v6", "fe80::1", Policy{}, true},
		{"unique local v6", "fd00::1", Policy{}, true},
		{"unspecified v4", "0.0.0.0", Policy{}, true},
		{"unspecified v6", "::", Policy{}, true},
		{"this network", "0.1.2.3", Policy{}, true},
		{"mapped loopback", "::ffff:127.0.0.1", Policy{}, true},
		{"mapped metadata", "::ffff:169.254.169.254", Policy{}, true},
		{"mapped public", "::ffff:93.184.215.14", Policy{}, false},
		{"nat64 private", "64:ff9b::10.0.0.1", Policy{}, true},
		{"nat64 loopback", "64:ff9b::7f00:1", Policy{}, true},
		{"nat64 public", "64:ff9b::93.184.215.14", Policy{}, false},
		{"6to4 private", "2002:c0a8:101::1", Policy{}, true},
		{"ipv4-compatible", "::127.0.0.1", Policy{}, true},
		{"fake-ip", "198.18.0.1", Policy{}, true},
		{"fake-ip top", "198.19.255.255", Policy{}, true},
		{"fake-ip opted in", "198.18.0.1", Policy{AllowFakeIP: true}, false},
		{"multicast v4", "224.0.0.1", Policy{}, true},
		{"multicast v6", "ff02::1", Policy{}, true},
		{"broadcast", "255.255.255.255", Policy{}, true},
		{"loopback allowlisted", "127.0.0.1", Policy{Allow: loopback}, false},
		{"mapped loopback allowlisted", "::ffff:127.0.0.1", Policy{Allow: loopback}, false},
		{"other loopback not allowlisted", "127.0.0.2", Policy{Allow: loopback}, true},
		{"unspecified despite allowlist", "0.0.0.0", Policy{Allow: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}}, true},
		{"unspecified despite host allowlist", "::", Policy{AllowHosts: []string{"example.test"}}, true},
		{"host allowlisted", "10.0.0.1", Policy{AllowHosts: []string{"Example.Test"}}, false},
		{"host allowlisted, trailing dot", "192.168.1.1", Policy{AllowHosts: []string{"example.test."}}, false},
		{"allowlisted host resolving to loopback", "127.0.0.1", Policy{AllowHosts: []string{"example.test"}}, true},
		{"allowlisted host resolving to mapped loopback", "::ffff:127.0.0.1", Policy{AllowHosts: []string{"example.test"}}, true},
		{"allowlisted host resolving to metadata", "169.254.169.254", Policy{AllowHosts: []string{"example.test"}}, true},
		{"allowlisted host resolving to link-local v6", "fe80::1", Policy{AllowHosts: []string{"example.test"}}, true},
		{"other host not allowlisted", "10.0.0.1", Policy{AllowHosts: []string{"intranet.test"}}, true},
		{"range allowlist beats the trusted-host limits", "127.0.0.1", Policy{AllowHosts: []string{"example.test"}, Allow: loopback}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.policy.CheckAddr("example.test", netip.MustParseAddr(tc.addr))
			if got := err != nil; got != tc.blocked {
				t.Fatalf("CheckAddr(%s) = %v, want blocked=%v", tc.addr, err, tc.blocked)
			}
			if err != nil && !errors.Is(err, ErrBlocked) {
				t.Fatalf("error %v does not wrap ErrBlocked", err)
			}
		})
	}
}

// An allowed host name is a loopback name only when it says so: a
// localhost allowlist reaches loopback, an intranet name does not.
func TestAllowHostsLoopbackName(t *testing.T) {
	lo := netip.MustParseAddr("127.0.0.1")
	p := Policy{AllowHosts: []string{"localhost", "127.0.0.1", "intranet.test"}}
	for _, tc := range []struct {
		host    string
		blocked bool
	}{{"localhost", false}, {"LOCALHOST.", false}, {"127.0.0.1", false}, {"intranet.test", true}} {
		if err := p.CheckAddr(tc.host, lo); (err != nil) != tc.blocked {
			t.Errorf("CheckAddr(%s, %s) = %v, want blocked=%v", tc.host, lo, err, tc.blocked)
		}
	}
}

func TestBlockHosts(t *testing.T) {
	all := []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	p := Policy{BlockHosts: []string{"Tracker.Example.", "*.ads.example"}, Allow: all, AllowHosts: []string{"tracker.example"}}
	for _, tc := range []struct {
		url     string
		blocked bool
	}{
		{"https://tracker.example/x", true},
		{"https://TRACKER.example./x", true},
		{"https://a.tracker.example/x", false}, // exact names do not cover subdomains
		{"https://x.ads.example/", true},
		{"https://deep.x.ads.example/", true},
		{"https://ads.example/", false}, // a wildcard does not cover the apex
		{"https://badads.example/", false},
		{"https://example.com/", false},
	} {
		if err := p.CheckURL(mustParse(t, tc.url)); (err != nil) != tc.blocked {
			t.Errorf("CheckURL(%s) = %v, want blocked=%v", tc.url, err, tc.blocked)
		}
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestCheckURL(t *testing.T) {
	cases := []struct {
		url     string
		blocked bool
	}{
		{"https://example.com/", false},
		{"HTTP://example.com/", false},
		{"file:///etc/passwd", true},
		{"ftp://example.com/", true},
		{"gopher://example.com/", true},
		{"javascript:alert(1)", true},
		{"data:text/plain,hi", true},
		{"http:///nohost", true},
		{"http://127.0.0.1/", true},
		{"http://[::ffff:127.0.0.1]/", true},
		{"http://169.254.169.254/latest/meta-data/", true},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			u, err := url.Parse(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			err = Policy{}.CheckURL(u)
			if got := err != nil; got != tc.blocked {
				t.Fatalf("CheckURL = %v, want blocked=%v", err, tc.blocked)
			}
		})
	}
}

func get(t *testing.T, c *http.Client, u string) (string, error) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func okServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientLoopback(t *testing.T) {
	srv := okServer(t)
	if _, err := get(t, NewClient(Options{}), srv.URL); !IsBlocked(err) {
		t.Fatalf("default client reached %s: err = %v", srv.URL, err)
	}
	body, err := get(t, NewClient(Options{Policy: Policy{Allow: loopback}}), srv.URL)
	if err != nil || body != "ok" {
		t.Fatalf("allowlisted loopback: %q, %v", body, err)
	}
}

func TestClientSchemes(t *testing.T) {
	c := NewClient(Options{})
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x"} {
		if _, err := get(t, c, u); !IsBlocked(err) {
			t.Errorf("%s: err = %v, want blocked", u, err)
		}
	}
}

// TestClientRebinding: the name is resolved once per connection and the
// checked address is the one dialled, so an answer that flips to
// loopback after the check never reaches the dial.
func TestClientRebinding(t *testing.T) {
	srv := okServer(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res := newResolver(map[string][]string{"rebind.test": {"93.184.215.14", "127.0.0.1"}})
	var mu sync.Mutex
	var dialed []string
	c := NewClient(Options{
		Resolver: res,
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, addr)
			mu.Unlock()
			var d net.Dialer // stands in for the public host
			return d.DialContext(ctx, network, srv.Listener.Addr().String())
		},
	})
	c.Transport.(*schemeCheck).next.(*http.Transport).DisableKeepAlives = true

	u := "http://rebind.test:" + port + "/"
	if body, err := get(t, c, u); err != nil || body != "ok" {
		t.Fatalf("first fetch: %q, %v", body, err)
	}
	if _, err := get(t, c, u); !IsBlocked(err) {
		t.Fatalf("second fetch after rebinding to loopback: err = %v, want blocked", err)
	}
	if n := res.count("rebind.test"); n != 2 {
		t.Errorf("lookups = %d, want one per connection (2)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"93.184.215.14:" + port}; strings.Join(dialed, " ") != strings.Join(want, " ") {
		t.Errorf("dialled %v, want only the checked address %v", dialed, want)
	}
}

func TestClientRedirects(t *testing.T) {
	var hops atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/private-name":
			http.Redirect(w, r, "http://intranet.test:"+r.URL.Query().Get("port")+"/", http.StatusFound)
		case "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/loop":
			hops.Add(1)
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/chain":
			n := hops.Add(1)
			if n <= 5 {
				http.Redirect(w, r, "/chain", http.StatusFound)
				return
			}
			io.WriteString(w, "end")
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res := newResolver(map[string][]string{"intranet.test": {"10.0.0.7"}})
	c := NewClient(Options{Policy: Policy{Allow: loopback}, Resolver: res})

	for _, path := range []string{"/metadata", "/private-name?port=" + port, "/file"} {
		if _, err := get(t, c, srv.URL+path); !IsBlocked(err) {
			t.Errorf("%s: err = %v, want blocked", path, err)
		}
	}

	hops.Store(0)
	if body, err := get(t, c, srv.URL+"/chain"); err != nil || body != "end" {
		t.Errorf("five redirects: %q, %v", body, err)
	}
	hops.Store(0)
	if _, err := get(t, c, srv.URL+"/loop"); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("endless redirects: err = %v", err)
	}
	if n := hops.Load(); n != 6 {
		t.Errorf("redirect loop made %d requests, want 6 (first + 5 redirects)", n)
	}
}

type seen struct {
	auth, cookie, body string
}

func TestClientCrossOriginRedirect(t *testing.T) {
	var mu sync.Mutex
	got := map[string]seen{}
	record := func(name string, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[name] = seen{r.Header.Get("Authorization"), r.Header.Get("Cookie"), string(b)}
		mu.Unlock()
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("other", r)
	}))
	defer other.Close()
	_, otherPort, _ := net.SplitHostPort(other.Listener.Addr().String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/landing", http.StatusTemporaryRedirect)
		case "/cross":
			http.Redirect(w, r, "http://elsewhere.test:"+otherPort+"/", http.StatusTemporaryRedirect)
		case "/landing":
			record("same", r)
		}
	}))
	defer srv.Close()
	res := newResolver(map[string][]string{"elsewhere.test": {"127.0.0.1"}})
	c := NewClient(Options{Policy: Policy{Allow: loopback}, Resolver: res})

	post := func(path string) {
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader("secret-body"))
		req.Header.Set("Authorization", "Bearer tok")
		req.Header.Set("Cookie", "sid=1")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		resp.Body.Close()
	}
	post("/same")
	post("/cross")
	mu.Lock()
	defer mu.Unlock()
	if s := got["same"]; s != (seen{"Bearer tok", "sid=1", "secret-body"}) {
		t.Errorf("same-origin redirect lost data: %+v", s)
	}
	if s := got["other"]; s != (seen{}) {
		t.Errorf("cross-origin redirect leaked: %+v", s)
	}
}

func TestClientIgnoresEnvProxy(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		io.WriteString(w, "via proxy")
	}))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	srv := okServer(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res := newResolver(map[string][]string{"site.test": {"127.0.0.1"}})
	c := NewClient(Options{Policy: Policy{Allow: loopback}, Resolver: res})
	body, err := get(t, c, "http://site.test:"+port+"/")
	if err != nil || body != "ok" || proxied.Load() != 0 {
		t.Fatalf("body %q, err %v, proxied %d: want direct", body, err, proxied.Load())
	}
}
