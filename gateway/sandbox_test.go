package gateway

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
)

// TestSandboxWiring: agents.defaults.sandbox reaches the tools through
// the running gateway. Under mode non-main a group session's exec runs in
// the local sandbox and the sandbox tool policy refuses what it denies by
// default (automations); the main session runs on the host with the full
// policy; a reload that turns sandboxing off applies to the next call.
func TestSandboxWiring(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the local sandbox is Linux only")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed (Debian: apt-get install bubblewrap)")
	}
	dir := t.TempDir()
	cfg := func(mode string) string {
		return fmt.Sprintf(`{
  gateway: { mode: "local", auth: { token: "t0k3n-sandbox" } },
  agents: { defaults: { sandbox: { mode: %q, workspaceAccess: "rw" } } },
  tools: { exec: { mode: "full" } },
}`, mode)
	}
	config := filepath.Join(dir, "openclaw.json")
	if err := os.WriteFile(config, []byte(cfg("non-main")), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, nil)
	c, err := r.dial(t, "t0k3n-sandbox", "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	const group = "agent:main:telegram:group:42"
	invoke := func(c *client.Client, session, tool string, args map[string]any) (bool, string) {
		t.Helper()
		out := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": tool, "sessionKey": session, "args": args})
		return out["ok"] == true, fmt.Sprint(out["output"], out["error"])
	}
	for _, tc := range []struct {
		name, session, tool string
		args                map[string]any
		ok                  bool
		want                string
	}{
		{"group exec is sandboxed", group, "exec", map[string]any{"command": "pwd; cat " + config + " || echo hidden"}, true, `"host":"sandbox"`},
		{"group cannot read the config", group, "exec", map[string]any{"command": "cat " + config + " || echo hidden"}, true, "hidden"},
		{"group exec cannot pick the host", group, "exec", map[string]any{"command": "pwd", "host": "gateway"}, false, "this session is sandboxed"},
		{"the sandbox policy denies automations", group, "automations", map[string]any{"action": "status"}, false, "sandbox"},
		{"main exec runs on the host", "agent:main:main", "exec", map[string]any{"command": "cat " + config}, true, "t0k3n-sandbox"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, out := invoke(c, tc.session, tc.tool, tc.args)
			if ok != tc.ok || !strings.Contains(out, tc.want) {
				t.Fatalf("ok %v, %q; want ok %v with %q", ok, out, tc.ok, tc.want)
			}
			if tc.session == group && strings.Contains(out, "t0k3n-sandbox") {
				t.Fatalf("the sandbox read the token: %s", out)
			}
		})
	}

	if err := os.WriteFile(config, []byte(cfg("off")), 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, out := invoke(c, group, "exec", map[string]any{"command": "pwd"})
		if ok && !strings.Contains(out, `"host":"sandbox"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the reload to mode off the group still runs sandboxed: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
