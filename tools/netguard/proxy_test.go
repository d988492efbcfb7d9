package netguard

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// serveProxy runs p on a loopback listener and returns a client that
// sends everything through it.
func serveProxy(t *testing.T, p *Proxy) *http.Client {
	t.Helper()
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	proxyURL, _ := url.Parse(srv.URL)
	return &http.Client{Transport: &http.Transport{
		Proxy:             http.ProxyURL(proxyURL),
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, // httptest's own certificate
		DisableKeepAlives: true,
	}}
}

func fetch(c *http.Client, u string) (int, string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func TestProxy(t *testing.T) {
	plain := okServer(t)
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	t.Cleanup(secure.Close)
	tests := []struct {
		name   string
		policy Policy
		url    string
		ok     bool // else refused by the guard
	}{
		{"http to loopback refused", Policy{}, plain.URL, false},
		{"https tunnel to loopback refused", Policy{}, secure.URL, false},
		{"http to allowed loopback", Policy{Allow: loopback}, plain.URL, true},
		{"https tunnel to allowed loopback", Policy{Allow: loopback}, secure.URL, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := serveProxy(t, NewProxy(ProxyOptions{Policy: func() Policy { return tc.policy }}))
			code, body, err := fetch(c, tc.url+"/")
			if tc.ok {
				if err != nil || code != 200 || body != "ok" {
					t.Fatalf("got %d %q %v, want ok", code, body, err)
				}
				return
			}
			// A refused plain request is a 403 from the proxy; a refused
			// tunnel fails the client's CONNECT.
			if err == nil && (code != http.StatusForbidden || !strings.Contains(body, "blocked by the network guard")) {
				t.Fatalf("got %d %q, want refused", code, body)
			}
			if err != nil && !strings.Contains(err.Error(), "Forbidden") {
				t.Fatalf("err = %v, want a refused CONNECT", err)
			}
		})
	}
}

// TestProxyRebinding: the proxy dials the address it checked, so a name
// that answers a public address and then loopback never reaches loopback.
func TestProxyRebinding(t *testing.T) {
	srv := okServer(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res := newResolver(map[string][]string{"rebind.test": {"93.184.215.14", "127.0.0.1"}})
	var dialed []string
	p := NewProxy(ProxyOptions{
		Resolver: res,
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dialed = append(dialed, addr)
			var d net.Dialer // stands in for the public host
			return d.DialContext(ctx, network, srv.Listener.Addr().String())
		},
	})
	c := serveProxy(t, p)
	u := "http://rebind.test:" + port + "/"
	if code, body, err := fetch(c, u); err != nil || code != 200 || body != "ok" {
		t.Fatalf("first request: %d %q %v", code, body, err)
	}
	p.Close() // no idle connection to reuse: the next request dials again
	if code, body, err := fetch(c, u); err != nil || code != http.StatusForbidden {
		t.Fatalf("second request after rebinding: %d %q %v, want 403", code, body, err)
	}
	if want := "93.184.215.14:" + port; strings.Join(dialed, " ") != want {
		t.Errorf("dialled %v, want only the checked address %s", dialed, want)
	}
}

func TestProxyRefusesOtherRequests(t *testing.T) {
	srv := httptest.NewServer(NewProxy(ProxyOptions{}))
	t.Cleanup(srv.Close)
	code, _, err := fetch(srv.Client(), srv.URL+"/not-a-proxy-request")
	if err != nil || code != http.StatusBadRequest {
		t.Fatalf("origin-form request: %d %v, want 400", code, err)
	}
}
