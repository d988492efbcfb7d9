package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRealNodeHostInvoke: the real OpenClaw node host connects to our
// gateway (auto-approved on loopback), the real CLI sees it in node.list
// with its commands, invokes system.which through it, and gets clear
// refusals for an undeclared command, for system.run over plain
// node.invoke, for an operator answering an invoke, and for a node that
// has gone away.
func TestRealNodeHostInvoke(t *testing.T) {
	cli := needRealCLI(t)
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	dir := t.TempDir()
	env, _, _ := isolatedEnv(t, dir)
	env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	node := startProc(t, "real node host", env, dir, cli, "node", "run",
		"--host", "127.0.0.1", "--port", strconv.Itoa(g.Port), "--no-tls", "--display-name", "e2e-node")

	c := realClient(t, g)
	call := func(method string, params any) result {
		b, _ := json.Marshal(params)
		return c.run(t, append([]string{"gateway", "call", method, "--json", "--params", string(b)}, g.remote(g.Token)...)...)
	}
	list := func() []map[string]any {
		r := call("node.list", map[string]any{})
		r.mustSucceed(t)
		m, _ := decodeJSON(t, r).(map[string]any)
		return asList(m["nodes"])
	}

	var entry map[string]any
	if !poll(90*time.Second, func() bool {
		for _, n := range list() {
			if n["clientId"] == "node-host" && n["connected"] == true {
				entry = n
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the node host never showed up connected in node.list\n%s", node.report())
	}
	nodeID, _ := entry["nodeId"].(string)
	var commands []string
	list0, _ := entry["commands"].([]any)
	for _, c := range list0 {
		commands = append(commands, fmt.Sprint(c))
	}
	if nodeID == "" || entry["displayName"] != "e2e-node" || entry["platform"] != "linux" || !slices.Contains(commands, "system.which") {
		t.Fatalf("node.list entry: %v", entry)
	}

	// system.which through the node host.
	r := call("node.invoke", map[string]any{"nodeId": nodeID, "command": "system.which",
		"params": map[string]any{"bins": []string{"sh"}}, "timeoutMs": 30000, "idempotencyKey": "e2e-which-1"})
	r.mustSucceed(t)
	res, _ := decodeJSON(t, r).(map[string]any)
	payload, _ := res["payload"].(map[string]any)
	bins, _ := payload["bins"].(map[string]any)
	if sh, _ := bins["sh"].(string); res["ok"] != true || res["nodeId"] != nodeID || !strings.HasSuffix(sh, "/sh") {
		t.Fatalf("node.invoke system.which: %v\n%s", res, r)
	}

	// The CLI's own command for it.
	r = c.run(t, append([]string{"nodes", "invoke", "--node", nodeID, "--command", "system.which",
		"--params", `{"bins":["sh"]}`, "--json"}, g.remote(g.Token)...)...)
	r.mustSucceed(t)
	if !strings.Contains(r.Stdout, "/sh") {
		t.Fatalf("nodes invoke system.which:\n%s", r)
	}

	refused := func(name string, r result, want ...string) {
		t.Helper()
		if r.Code == 0 {
			t.Fatalf("%s succeeded:\n%s", name, r)
		}
		for _, w := range want {
			if !strings.Contains(r.Stdout+r.Stderr, w) {
				t.Fatalf("%s: output does not mention %q:\n%s", name, w, r)
			}
		}
	}
	refused("undeclared command", call("node.invoke", map[string]any{"nodeId": nodeID, "command": "no.such.command",
		"params": map[string]any{}, "idempotencyKey": "e2e-undeclared"}), "did not declare command: no.such.command")
	refused("system.run over node.invoke", call("node.invoke", map[string]any{"nodeId": nodeID, "command": "system.run",
		"params": map[string]any{"command": []string{"true"}}, "idempotencyKey": "e2e-run"}), "exec approvals")
	refused("operator node.invoke.result", call("node.invoke.result", map[string]any{"id": "x", "nodeId": nodeID, "ok": true}),
		"unauthorized role: operator")

	// The node goes away: the gateway notices and says so on invoke.
	node.stop()
	if !poll(30*time.Second, func() bool {
		for _, n := range list() {
			if n["nodeId"] == nodeID {
				return n["connected"] == false
			}
		}
		return false
	}) {
		t.Fatalf("node still listed as connected after it stopped")
	}
	refused("invoke on a stopped node", call("node.invoke", map[string]any{"nodeId": nodeID, "command": "system.which",
		"params": map[string]any{"bins": []string{"sh"}}, "idempotencyKey": "e2e-which-2"}), "node not connected")
}
