package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

// hopSite redirects /hops/N to /hops/N-1 and answers /hops/0; /echo
// answers with the X-Route and X-Gw-Auth headers it got; /away
// redirects to the URL in ?to.
func hopSite(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		switch {
		case strings.HasPrefix(r.URL.Path, "/hops/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hops/"))
			if n > 0 {
				http.Redirect(w, r, fmt.Sprintf("/hops/%d", n-1), http.StatusFound)
				return
			}
			io.WriteString(w, "arrived")
		case r.URL.Path == "/echo":
			fmt.Fprintf(w, "route=%q auth=%q ua=%q accept=%q cache=%q", r.Header.Get("X-Route"), r.Header.Get("X-Gw-Auth"),
				r.Header.Get("User-Agent"), r.Header.Get("Accept"), r.Header.Get("Cache-Control"))
		case r.URL.Path == "/away":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchMaxRedirects(t *testing.T) {
	srv := hopSite(t)
	cases := []struct {
		name    string
		max     int
		hops    int
		wantErr bool
	}{
		{"default follows 3", 0, 3, false},
		{"default stops at the 4th", 0, 4, true},
		{"configured 1 follows 1", 1, 1, false},
		{"configured 1 stops at the 2nd", 1, 2, true},
		{"none follows no redirect", -1, 1, true},
		{"none still fetches", -1, 0, false},
		{"configured 6 follows 6", 6, 6, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, FetchTool(FetchConfig{Network: loopbackOK, MaxRedirects: tc.max, CacheTTL: -1}),
				map[string]any{"url": fmt.Sprintf("%s/hops/%d", srv.URL, tc.hops)})
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "redirects") {
					t.Fatalf("err = %v, want a redirect limit; result %s", err, got)
				}
				return
			}
			if err != nil || !strings.Contains(got, "arrived") {
				t.Fatalf("got %q, %v", got, err)
			}
		})
	}
}

func TestFetchHeaders(t *testing.T) {
	srv := hopSite(t)
	other := hopSite(t) // another port: another origin
	cases := []struct {
		name    string
		headers map[string]string
		path    string
		want    []string
		logged  []string // names the log must mention
	}{
		{
			name:    "sent to the URL asked for",
			headers: map[string]string{"X-Route": "staging", "x-gw-auth": "s3cret"},
			path:    "/echo",
			want:    []string{`route="staging"`, `auth="s3cret"`},
		},
		{
			name:    "reserved names dropped, the rest kept",
			headers: map[string]string{"User-Agent": "evil", "Accept": "x/y", "Connection": "close", "X-Route": "staging"},
			path:    "/echo",
			want:    []string{`route="staging"`, `ua="` + DefaultUserAgent + `"`, `accept="text/html`},
			logged:  []string{"User-Agent", "Accept", "Connection"},
		},
		{
			name:    "bad name and bad value dropped",
			headers: map[string]string{"X Route": "val-one", "X-Gw-Auth": "val-two\r\nX-Injected: 1", "Cache-Control": "no-cache"},
			path:    "/echo",
			want:    []string{`route=""`, `auth=""`, `cache="no-cache"`},
			logged:  []string{"X Route", "X-Gw-Auth"},
		},
		{
			name:    "names differing in case: neither sent",
			headers: map[string]string{"X-Route": "val-one", "x-route": "val-two"},
			path:    "/echo",
			want:    []string{`route=""`},
			logged:  []string{"X-Route, x-route"},
		},
		{
			name:    "same-origin redirect keeps them",
			headers: map[string]string{"X-Route": "staging"},
			path:    "/away?to=/echo",
			want:    []string{`route="staging"`},
		},
		{
			name:    "cross-origin redirect drops them, safe ones kept",
			headers: map[string]string{"X-Route": "staging", "X-Gw-Auth": "s3cret", "Cache-Control": "no-cache"},
			path:    "/away?to=" + other.URL + "/echo",
			want:    []string{`route=""`, `auth=""`, `cache="no-cache"`},
		},
		{
			name:    "back on the first origin after leaving it: still dropped",
			headers: map[string]string{"X-Gw-Auth": "s3cret"},
			path:    "/away?to=" + other.URL + "/away?to=" + srv.URL + "/echo",
			want:    []string{`auth=""`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logBuf bytes.Buffer
			cfg := FetchConfig{Network: loopbackOK, Headers: tc.headers, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))}
			got, err := call(t, FetchTool(cfg), map[string]any{"url": srv.URL + tc.path})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %s:\n%s", w, got)
				}
			}
			for _, name := range tc.logged {
				if !strings.Contains(logBuf.String(), name) {
					t.Errorf("log does not name %q:\n%s", name, logBuf.String())
				}
			}
			for _, v := range tc.headers {
				if v != "" && strings.Contains(logBuf.String(), v) {
					t.Errorf("log holds the header value %q:\n%s", v, logBuf.String())
				}
			}
		})
	}
}

// The cache key holds the headers actually sent: another routing value
// is another page, a dropped entry changes nothing.
func TestFetchHeadersPartitionCache(t *testing.T) {
	key := func(h map[string]string) string {
		_, f := newFetchTool(FetchConfig{Network: loopbackOK, Headers: h})
		return headerCacheKey(f.headers)
	}
	a, b := key(map[string]string{"X-Route": "a"}), key(map[string]string{"X-Route": "b"})
	if a == b || a == key(nil) {
		t.Errorf("routing value not in the cache key: %q vs %q", a, b)
	}
	if a != key(map[string]string{"X-Route": "a", "X Bad": "dropped"}) {
		t.Error("a dropped header changed the cache key")
	}
}

// rebindResolver answers every name from a table.
type rebindResolver map[string][]string

func (r rebindResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, a := range r[host] {
		out = append(out, netip.MustParseAddr(a))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no such host %s", host)
	}
	return out, nil
}

// The attack: a name on tools.web.fetch.ssrfPolicy.allowedHostnames (or
// one that is not) whose DNS points at the gateway's own loopback or at
// cloud metadata. Allowing a host name lets it reach the private network,
// never those.
func TestFetchAllowedHostnameRebinding(t *testing.T) {
	srv := hopSite(t)
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	res := rebindResolver{
		"intranet.test": {"127.0.0.1"},
		"meta.test":     {"169.254.169.254"},
		"mixed.test":    {"10.0.0.5", "127.0.0.1"},
		"other.test":    {"10.0.0.5"},
		"localhost":     {"127.0.0.1"},
	}
	policy := FetchConfig{Resolver: res, CacheTTL: -1}
	policy.Network.AllowHosts = []string{"intranet.test", "meta.test", "mixed.test", "localhost"}
	cases := []struct {
		host    string
		wantErr string
	}{
		{"intranet.test", "loopback"},
		{"meta.test", "link-local"},
		{"mixed.test", "loopback"},
		{"other.test", "private"},
		{"localhost", ""}, // the name says loopback: allowed as asked
	}
	for _, tc := range cases {
		t.Run(tc.host, func(t *testing.T) {
			got, err := call(t, FetchTool(policy), map[string]any{"url": "http://" + tc.host + ":" + port + "/hops/0"})
			if tc.wantErr == "" {
				if err != nil || !strings.Contains(got, "arrived") {
					t.Fatalf("got %q, %v", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "blocked by network guard") {
				t.Fatalf("err = %v, want blocked (%s); result %s", err, tc.wantErr, got)
			}
		})
	}
}

// ssrfPolicy.blockedHostnames refuses a name before DNS, on the first
// request and on every redirect, whatever else the policy allows.
func TestFetchBlockedHostnames(t *testing.T) {
	srv := hopSite(t)
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	cfg := FetchConfig{Resolver: rebindResolver{"blocked.test": {"127.0.0.1"}, "x.ads.test": {"127.0.0.1"}, "ok.test": {"127.0.0.1"}}, CacheTTL: -1}
	cfg.Network.Allow = loopbackOK.Allow
	cfg.Network.AllowHosts = []string{"blocked.test", "localhost"}
	cfg.Network.BlockHosts = []string{"blocked.test", "*.ads.test"}
	cases := []struct {
		url     string
		blocked bool
	}{
		{"http://blocked.test:" + port + "/hops/0", true},
		{"http://x.ads.test:" + port + "/hops/0", true},
		{srv.URL + "/away?to=http://blocked.test:" + port + "/hops/0", true},
		{"http://ok.test:" + port + "/hops/0", false},
	}
	for _, tc := range cases {
		got, err := call(t, FetchTool(cfg), map[string]any{"url": tc.url})
		if tc.blocked {
			if err == nil || !strings.Contains(err.Error(), "blocked host names") {
				t.Errorf("%s: err = %v, want blocked; result %s", tc.url, err, got)
			}
			continue
		}
		if err != nil || !strings.Contains(got, "arrived") {
			t.Errorf("%s: got %q, %v", tc.url, got, err)
		}
	}
}
