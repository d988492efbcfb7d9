package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// realNodeGatewayConfig is the real gateway's config for node tests:
// offline, and without silent local pairing so the device must be
// approved by an operator.
const realNodeGatewayConfig = `{
  gateway: { mode: "local", tailscale: { mode: "off" }, nodes: { pairing: { autoApproveLocal: false } } },
  update: { checkOnStart: false },
  telemetry: { enabled: false },
  discovery: { mdns: { mode: "off" } },
  agents: { defaults: { heartbeat: { every: "0m" } } },
  logging: { file: %q },
}
`

// startRealGateway starts the real OpenClaw gateway whatever the peer
// under test is: these tests check our node host against it.
func startRealGateway(t *testing.T, config string) *gateway {
	t.Helper()
	cli := needRealCLI(t)
	dir := t.TempDir()
	env, stateDir, configPath := isolatedEnv(t, dir)
	g := &gateway{Port: freePort(t), Token: randomToken(t), Dir: dir, StateDir: stateDir, ConfigPath: configPath}
	g.URL = fmt.Sprintf("ws://127.0.0.1:%d", g.Port)
	env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token, "OPENCLAW_GATEWAY_PORT="+strconv.Itoa(g.Port))
	g.Env = env
	writeFile(t, configPath, fmt.Sprintf(config, filepath.Join(dir, "gateway.log")))
	g.argv = []string{cli, "gateway", "run", "--port", strconv.Itoa(g.Port), "--bind", "loopback",
		"--auth", "token", "--token", g.Token, "--allow-unconfigured"}
	g.timeout = 120 * time.Second
	g.proc = startProc(t, "real gateway", env, dir, g.argv...)
	g.waitListening(t, g.timeout)
	g.waitReady(t, g.timeout)
	return g
}

var approveHint = regexp.MustCompile("approve with `openclaw devices approve ([0-9a-zA-Z-]+)`")

// TestOurNodeHostOnRealGateway runs `openclaw node run` (ours) against the
// real gateway: the device is refused until the real CLI approves it, its
// command surface is approved with `openclaw nodes approve`, and
// system.which is invoked through the real gateway's node.invoke.
func TestOurNodeHostOnRealGateway(t *testing.T) {
	needRealCLI(t)
	bin := needOurBin(t)
	t.Parallel()
	g := startRealGateway(t, realNodeGatewayConfig)

	dir := t.TempDir()
	env, _, _ := isolatedEnv(t, dir)
	env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	node := startProc(t, "our node host", env, dir, bin, "node", "run",
		"--host", "127.0.0.1", "--port", strconv.Itoa(g.Port), "--no-tls", "--display-name", "go-e2e-node")

	// 1. Device pairing: our node prints the request; the real CLI approves it.
	var requestID string
	if !poll(60*time.Second, func() bool {
		if m := approveHint.FindStringSubmatch(node.stdout.String()); m != nil {
			requestID = m[1]
			return true
		}
		return node.exited()
	}) || requestID == "" {
		t.Fatalf("no pairing request printed by the node host\n%s", node.report())
	}
	c := realClient(t, g)
	c.run(t, append([]string{"devices", "approve", requestID, "--json"}, g.remote(g.Token)...)...).mustSucceed(t)
	if !poll(60*time.Second, func() bool { return strings.Contains(node.stdout.String(), "node connected") }) {
		t.Fatalf("approved node host never connected\n%s", node.report())
	}

	// 2. Node capability approval of the declared commands.
	var nodeRequest string
	if !poll(60*time.Second, func() bool {
		r := c.run(t, append([]string{"nodes", "pending", "--json"}, g.remote(g.Token)...)...)
		if r.Code != 0 {
			return false
		}
		list, _ := decodeJSON(t, r).([]any)
		for _, m := range asList(list) {
			if m["displayName"] == "go-e2e-node" {
				nodeRequest, _ = m["requestId"].(string)
				cmds, _ := m["commands"].([]any)
				if !containsAny(cmds, "system.which") || containsAny(cmds, "camera.snap") {
					t.Errorf("declared commands %v", cmds)
				}
				return nodeRequest != ""
			}
		}
		return false
	}) {
		t.Fatalf("no pending node capability request\n%s", node.report())
	}
	c.run(t, append([]string{"nodes", "approve", nodeRequest, "--json"}, g.remote(g.Token)...)...).mustSucceed(t)

	// 3. system.which through the real gateway's node.invoke.
	var payload map[string]any
	if !poll(60*time.Second, func() bool {
		r := c.run(t, append([]string{"nodes", "invoke", "--node", "go-e2e-node", "--command", "system.which",
			"--params", `{"bins":["sh","no-such-bin-e2e"]}`, "--json"}, g.remote(g.Token)...)...)
		if r.Code != 0 {
			t.Logf("invoke not yet: %s", r)
			return false
		}
		m, _ := decodeJSON(t, r).(map[string]any)
		payload, _ = m["payload"].(map[string]any)
		return m["ok"] == true
	}) {
		t.Fatalf("node.invoke system.which never succeeded\n%s", node.report())
	}
	bins, _ := payload["bins"].(map[string]any)
	if sh, _ := bins["sh"].(string); !strings.HasSuffix(sh, "/sh") || len(bins) != 1 {
		t.Fatalf("system.which payload %v", payload)
	}
	if node.exited() {
		t.Fatalf("node host exited\n%s", node.report())
	}
}

func containsAny(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
