package e2e

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestExecOnRealNodeHost: exec host=node through our gateway runs on the
// REAL OpenClaw node host, whose own approvals file allows it, via its
// system.run.prepare and system.run.
func TestExecOnRealNodeHost(t *testing.T) {
	cli := needRealCLI(t)
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	dir := t.TempDir()
	env, stateDir, _ := isolatedEnv(t, dir)
	env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	writeFile(t, filepath.Join(stateDir, "exec-approvals.json"), `{"version":1,"defaults":{"security":"full","ask":"off","askFallback":"deny"}}`)
	node := startProc(t, "real node host", env, dir, cli, "node", "run",
		"--host", "127.0.0.1", "--port", strconv.Itoa(g.Port), "--no-tls", "--display-name", "real-exec-node")
	c := ourClient(t, g)
	if !poll(90*time.Second, func() bool {
		r := c.run(t, "gateway", "call", "node.list", "--params", "{}")
		var out struct {
			Nodes []struct {
				DisplayName string `json:"displayName"`
				Connected   bool   `json:"connected"`
			} `json:"nodes"`
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil {
			return false
		}
		for _, n := range out.Nodes {
			if n.DisplayName == "real-exec-node" && n.Connected {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the real node host never connected\n%s", node.report())
	}
	ok, text := invokeTool(t, c, "exec", `{"host":"node","command":"echo from-real-node"}`)
	var r struct {
		Status string `json:"status"`
		Stdout string `json:"stdout"`
		Host   string `json:"host"`
	}
	if err := json.Unmarshal([]byte(text), &r); err != nil || !ok || r.Stdout != "from-real-node\n" || r.Host != "node" {
		t.Fatalf("exec on the real node host: ok=%v %s\n%s", ok, text, node.report())
	}
}
