package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestCanvasQuickTest runs OpenClaw's documented quick test against our
// binary: an A2UI push with --text renders on the built-in canvas, shows
// in its page and comes back as a PNG snapshot.
func TestCanvasQuickTest(t *testing.T) {
	needOurGateway(t)
	needChromium(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := ourClient(t, g)
	c.run(t, "nodes", "canvas", "a2ui", "push", "--text", "Hello from A2UI").mustSucceed(t)
	text := c.run(t, "nodes", "canvas", "eval", "document.body.innerText")
	text.mustSucceed(t)
	if !strings.Contains(text.Stdout, "Hello from A2UI") {
		t.Fatalf("canvas text:\n%s", text)
	}
	snap := c.run(t, "nodes", "canvas", "snapshot")
	snap.mustSucceed(t)
	if !regexp.MustCompile(`MEDIA:\S+\.png`).MatchString(snap.Stdout) {
		t.Fatalf("snapshot:\n%s", snap)
	}
	bad := c.run(t, "nodes", "canvas", "a2ui", "push", "--jsonl", "-")
	if bad.Code == 0 {
		t.Fatalf("push of nothing succeeded:\n%s", bad)
	}
}
