package gateway

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func needChromium(t *testing.T) {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if _, err := exec.LookPath(name); err == nil {
			return
		}
	}
	t.Skip("no chromium on PATH (apt-get install -y chromium)")
}

// TestCanvasThroughToolsInvoke pushes A2UI to the built-in canvas and
// reads it back, as an agent's calls would.
func TestCanvasThroughToolsInvoke(t *testing.T) {
	needChromium(t)
	model := fakemodel.New(t)
	r, c := startWithConfig(t, model, "")
	canvasCall := func(args map[string]any) (string, bool) {
		t.Helper()
		res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "canvas", "sessionKey": "agent:main:main", "args": args})
		return fmt.Sprint(res["output"]), res["ok"] == true
	}
	if out, ok := canvasCall(map[string]any{"action": "a2ui_push", "text": "Hello from A2UI"}); !ok {
		t.Fatalf("a2ui_push: %s", out)
	}
	out, ok := canvasCall(map[string]any{"action": "eval", "javaScript": "document.body.innerText"})
	if !ok || !strings.Contains(out, "Hello from A2UI") {
		t.Fatalf("eval after push: %s", out)
	}
	out, ok = canvasCall(map[string]any{"action": "snapshot"})
	path := regexp.MustCompile(`MEDIA:(\S+)`).FindStringSubmatch(out)
	if !ok || path == nil {
		t.Fatalf("snapshot: %s", out)
	}
	png, err := os.ReadFile(path[1])
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("snapshot file %s: %v", path[1], err)
	}
	if !strings.HasPrefix(path[1], r.dir) {
		t.Fatalf("snapshot saved outside the state dir's workspace: %s", path[1])
	}
	if out, ok := canvasCall(map[string]any{"action": "a2ui_push", "jsonl": `{"createSurface":{"surfaceId":"s"}}`}); ok || !strings.Contains(out, "v0.9") {
		t.Fatalf("v0.9 accepted: %s", out)
	}
	if out, ok := canvasCall(map[string]any{"action": "navigate", "url": "http://127.0.0.1:1/"}); ok {
		t.Fatalf("the canvas opened a loopback page: %s", out)
	}
	if out, ok := canvasCall(map[string]any{"action": "a2ui_reset"}); !ok {
		t.Fatalf("reset: %s", out)
	}
	out, _ = canvasCall(map[string]any{"action": "eval", "javaScript": "document.body.innerText"})
	if strings.Contains(out, "Hello from A2UI") {
		t.Fatalf("reset left the text: %s", out)
	}

	// The canvas pages are this machine's only: a request that came
	// through a proxy is refused.
	req, _ := http.NewRequestWithContext(context.Background(), "GET", strings.Replace(r.url, "ws://", "http://", 1)+"/__openclaw__/canvas/", nil)
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("forwarded canvas request: %d", resp.StatusCode)
	}
}

// TestCanvasRefusesRelayedRequests: a proxy on this host relays an
// outsider's request for the canvas pages (what agents put there). It
// comes from loopback, but with any forwarding header, not only
// X-Forwarded-For, it is not this machine's and is refused.
func TestCanvasRefusesRelayedRequests(t *testing.T) {
	r := startGateway(t, nil)
	page := strings.Replace(r.url, "ws://", "http://", 1) + "/__openclaw__/canvas/"
	get := func(h, v string) int {
		req, _ := http.NewRequestWithContext(context.Background(), "GET", page, nil)
		if h != "" {
			req.Header.Set(h, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("", ""); code == http.StatusForbidden {
		t.Fatalf("a local request for the canvas: %d", code)
	}
	for _, h := range []string{"X-Forwarded-For", "X-Real-Ip", "Forwarded", "X-Forwarded-Host"} {
		if code := get(h, "203.0.113.9"); code != http.StatusForbidden {
			t.Errorf("canvas request relayed with %s: %d, want 403", h, code)
		}
	}
}
