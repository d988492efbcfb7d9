package gateway

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOwnLoopbackHost(t *testing.T) {
	s := &System{addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 18789}}
	for host, want := range map[string]bool{
		"localhost:18789":              true,
		"LOCALHOST:18789":              true,
		"localhost.:18789":             true,
		"127.0.0.1:18789":              true,
		"127.1.2.3:18789":              true,
		"[::1]:18789":                  true,
		"[::ffff:127.0.0.1]:18789":     true,
		"evil.example:18789":           false,
		"localhost.evil.example:18789": false,
		"127.0.0.1.nip.io:18789":       false,
		"localhost:18790":              false,
		"127.0.0.1":                    false, // port 80
		"localhost":                    false,
		"192.168.1.5:18789":            false,
		"[::1]":                        false,
		"":                             false,
		"localhost:x":                  false,
	} {
		if got := s.ownLoopbackHost(host); got != want {
			t.Errorf("%q: %v, want %v", host, got, want)
		}
	}
	if (&System{addr: &net.TCPAddr{Port: 80}}).ownLoopbackHost("localhost") != true {
		t.Errorf("localhost without a port on a gateway on port 80 refused")
	}
}

// TestLocalOnlyRefusesForeignHost performs DNS rebinding against the
// gateway's loopback-only HTTP endpoints: a page on evil.example,
// re-pointed at 127.0.0.1, has the browser send requests from loopback
// with Host: evil.example:<port>. The canvas pages (session state) and,
// with auth "none", the tools REST API must answer 421 and nothing of
// theirs; under the gateway's own names they still work.
func TestLocalOnlyRefusesForeignHost(t *testing.T) {
	dir := t.TempDir()
	cfg := `{ gateway: { mode: "local", auth: { mode: "none" } } }`
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, nil)
	base := strings.Replace(r.url, "ws://", "http://", 1)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	get := func(path, host string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(context.Background(), "GET", base+path, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/__openclaw__/canvas/", "/__openclaw__/canvas/state?session=main", "/api/v1/tools"} {
		for _, host := range []string{"evil.example:" + port, "localhost.evil.example:" + port, "127.0.0.1:1", "localhost"} {
			if code, body := get(path, host); code != http.StatusMisdirectedRequest {
				t.Errorf("GET %s with Host %s: %d %.100q, want 421", path, host, code, body)
			}
		}
		for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port} {
			if code, body := get(path, host); code == http.StatusMisdirectedRequest || code == http.StatusForbidden {
				t.Errorf("GET %s with Host %s: %d %.100q, want it served", path, host, code, body)
			}
		}
	}
	if code, body := get("/api/v1/tools", "localhost:"+port); code != http.StatusOK || !strings.Contains(body, `"name":"read"`) {
		t.Errorf("tools API under localhost: %d %.200q", code, body)
	}
}
