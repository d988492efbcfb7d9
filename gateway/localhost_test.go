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
