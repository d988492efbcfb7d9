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

// TestRealNodeHostCommandApproval: the second pairing layer. With local
// auto-approval off, the real node host first needs its device approved;
// once connected, its declared commands wait in a node.pair request:
// node.invoke of system.which is refused until the real CLI approves the
// request (`openclaw nodes approve` → node.pair.approve), then it runs on
// the live connection.
func TestRealNodeHostCommandApproval(t *testing.T) {
	cli := needRealCLI(t)
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{Config: `{
  gateway: { mode: "local", nodes: { pairing: { autoApproveLocal: false } } },
}
`})
	dir := t.TempDir()
	env, _, _ := isolatedEnv(t, dir)
	env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	node := startProc(t, "real node host", env, dir, cli, "node", "run",
		"--host", "127.0.0.1", "--port", strconv.Itoa(g.Port), "--no-tls", "--display-name", "e2e-pair-node")

	c := realClient(t, g)
	call := func(method string, params any) result {
		b, _ := json.Marshal(params)
		return c.run(t, append([]string{"gateway", "call", method, "--json", "--params", string(b)}, g.remote(g.Token)...)...)
	}
	object := func(r result) map[string]any {
		r.mustSucceed(t)
		m, _ := decodeJSON(t, r).(map[string]any)
		return m
	}

	// Layer one: the device.
	var deviceRequest string
	if !poll(60*time.Second, func() bool {
		for _, p := range asList(object(call("device.pair.list", map[string]any{}))["pending"]) {
			if p["clientId"] == "node-host" && p["role"] == "node" {
				deviceRequest, _ = p["requestId"].(string)
				return deviceRequest != ""
			}
		}
		return false
	}) {
		t.Fatalf("no pending device pairing request from the node host\n%s", node.report())
	}
	c.run(t, append([]string{"devices", "approve", deviceRequest, "--json"}, g.remote(g.Token)...)...).mustSucceed(t)

	// Layer two: the node's commands.
	var pending map[string]any
	if !poll(60*time.Second, func() bool {
		for _, p := range asList(object(call("node.pair.list", map[string]any{}))["pending"]) {
			if p["displayName"] == "e2e-pair-node" {
				pending = p
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no pending node.pair request after the device was approved\n%s", node.report())
	}
	requestID, _ := pending["requestId"].(string)
	nodeID, _ := pending["nodeId"].(string)
	if requestID == "" || nodeID == "" || pending["platform"] != "linux" || !slices.Contains(strList(pending["commands"]), "system.which") {
		t.Fatalf("pending node.pair request: %v", pending)
	}
	entry := func() map[string]any {
		for _, n := range asList(object(call("node.list", map[string]any{}))["nodes"]) {
			if n["nodeId"] == nodeID {
				return n
			}
		}
		t.Fatalf("node %s not in node.list", nodeID)
		return nil
	}
	if n := entry(); n["connected"] != true || n["approvalState"] != "pending" || slices.Contains(strList(n["commands"]), "system.which") {
		t.Fatalf("node.list while pending: %v", n)
	}

	which := func(key string) result {
		return call("node.invoke", map[string]any{"nodeId": nodeID, "command": "system.which",
			"params": map[string]any{"bins": []string{"sh"}}, "timeoutMs": 30000, "idempotencyKey": key})
	}
	if r := which("e2e-pair-which-1"); r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "not approved") {
		t.Fatalf("node.invoke system.which before approval was not refused as unapproved:\n%s", r)
	}

	// `gateway call` asks for operator.pairing only; a request for
	// system.which also needs operator.admin, which `nodes approve` asks for.
	if r := call("node.pair.approve", map[string]any{"requestId": requestID}); r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "missing scope: operator.admin") {
		t.Fatalf("node.pair.approve with operator.pairing only was not refused:\n%s", r)
	}
	r := c.run(t, append([]string{"nodes", "approve", requestID, "--json"}, g.remote(g.Token)...)...)
	r.mustSucceed(t)
	if !strings.Contains(r.Stdout, requestID) {
		t.Fatalf("nodes approve output does not name the request:\n%s", r)
	}

	r = which("e2e-pair-which-2")
	out := object(r)
	payload, _ := out["payload"].(map[string]any)
	bins, _ := payload["bins"].(map[string]any)
	if sh, _ := bins["sh"].(string); out["ok"] != true || !strings.HasSuffix(sh, "/sh") {
		t.Fatalf("node.invoke system.which after approval: %v\n%s", out, r)
	}
	if n := entry(); n["approvalState"] != "approved" || !slices.Contains(strList(n["commands"]), "system.which") {
		t.Fatalf("node.list after approval: %v", n)
	}
	list := object(call("node.pair.list", map[string]any{}))
	if p := asList(list["pending"]); len(p) != 0 {
		t.Fatalf("pending after approval: %v", p)
	}
	paired := asList(list["paired"])
	if len(paired) != 1 || paired[0]["nodeId"] != nodeID || paired[0]["connected"] != true {
		t.Fatalf("paired after approval: %v", paired)
	}
	if r := call("node.pair.reject", map[string]any{"requestId": requestID}); r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "unknown requestId") {
		t.Fatalf("node.pair.reject of a resolved request:\n%s", r)
	}
	// The real CLI looks the id up in node.pair.list before it asks.
	if r := c.run(t, append([]string{"nodes", "approve", requestID}, g.remote(g.Token)...)...); r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "Unknown node pairing requestId") {
		t.Fatalf("second approve of the same request:\n%s", r)
	}
}

func strList(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, e := range l {
		out = append(out, fmt.Sprint(e))
	}
	return out
}
