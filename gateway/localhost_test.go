package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
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

// TestNoAuthAPIRefusesWebPages performs the page attack on the tools
// REST API with auth "none": a page on another site, in the user's
// browser on this machine, toggles a tool. The loopback peer and Host
// pass; the page's Origin or Sec-Fetch-Site gives it away, and the tool
// stays as it was. A local program (no Origin) still may.
func TestNoAuthAPIRefusesWebPages(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(`{ gateway: { mode: "local", auth: { mode: "none" } } }`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, nil)
	base := strings.Replace(r.url, "ws://", "http://", 1)
	toggle := func(hdr map[string]string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(context.Background(), "PUT", base+"/api/v1/tools/read/toggle?enabled=false", nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, hdr := range []map[string]string{{"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}} {
		if code := toggle(hdr); code != http.StatusForbidden {
			t.Errorf("toggle with %v: %d, want 403", hdr, code)
		}
	}
	resp, err := http.Get(base + "/api/v1/tools")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Name    string
		Enabled bool
	}
	err = json.NewDecoder(resp.Body).Decode(&rows)
	resp.Body.Close()
	if err != nil || !slices.ContainsFunc(rows, func(r struct {
		Name    string
		Enabled bool
	}) bool {
		return r.Name == "read" && r.Enabled
	}) {
		t.Fatalf("a refused toggle changed the tool (or the list did not read: %v)", err)
	}
	if code := toggle(nil); code != http.StatusOK {
		t.Errorf("a local program's toggle: %d, want 200", code)
	}
}
