package e2e

import (
	"strconv"
	"testing"
	"time"
)

// TestRealNodeHostPairing: with local auto-approval off, the real node
// host is refused with PAIRING_REQUIRED and keeps retrying; the real CLI
// sees the request, approves it, and the node host connects.
func TestRealNodeHostPairing(t *testing.T) {
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
		"--host", "127.0.0.1", "--port", strconv.Itoa(g.Port), "--no-tls", "--display-name", "e2e-node")

	c := realClient(t, g)
	devices := func() map[string]any {
		r := c.run(t, append([]string{"devices", "list", "--json"}, g.remote(g.Token)...)...)
		r.mustSucceed(t)
		m, _ := decodeJSON(t, r).(map[string]any)
		return m
	}
	var requestID string
	if !poll(60*time.Second, func() bool {
		for _, p := range asList(devices()["pending"]) {
			if p["clientId"] == "node-host" && p["role"] == "node" {
				requestID, _ = p["requestId"].(string)
				return requestID != ""
			}
		}
		return false
	}) {
		t.Fatalf("no pending pairing request from the node host\n%s", node.report())
	}

	r := c.run(t, append([]string{"devices", "approve", requestID, "--json"}, g.remote(g.Token)...)...)
	r.mustSucceed(t)

	if !poll(60*time.Second, func() bool {
		r := c.run(t, append([]string{"system", "presence", "--json"}, g.remote(g.Token)...)...)
		if r.Code != 0 {
			return false
		}
		list, _ := decodeJSON(t, r).([]any)
		for _, e := range list {
			if m, ok := e.(map[string]any); ok && m["mode"] == "node" {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("approved node host never connected\n%s", node.report())
	}
	paired := asList(devices()["paired"])
	if len(paired) != 1 || paired[0]["clientId"] != "node-host" || paired[0]["connected"] != true {
		t.Fatalf("paired devices after approval: %v", paired)
	}
}

func asList(v any) []map[string]any {
	var out []map[string]any
	list, _ := v.([]any)
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
