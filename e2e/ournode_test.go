package e2e

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOurNodeHostOnOurGateway runs our own `openclaw node run` against our
// gateway: `openclaw nodes status` shows it connected, `nodes invoke`
// runs system.which on it and refuses system.run, the agents' nodes tool
// (through tools.invoke) lists and describes it, and once the node
// process is killed it shows as disconnected and invokes fail clearly.
func TestOurNodeHostOnOurGateway(t *testing.T) {
	needOurGateway(t)
	bin := needOurBin(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := ourClient(t, g)

	dir := t.TempDir()
	env, _, _ := isolatedEnv(t, dir)
	env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	node := startProc(t, "our node host", env, dir, bin, "node", "run",
		"--host", "127.0.0.1", "--port", strconv.Itoa(g.Port), "--no-tls", "--display-name", "go-e2e-ournode")

	// status: find our node by its display name, connected.
	entry := func() map[string]any {
		r := c.run(t, "nodes", "status", "--json")
		r.mustSucceed(t)
		m, _ := decodeJSON(t, r).(map[string]any)
		for _, n := range asList(m["nodes"]) {
			if n["displayName"] == "go-e2e-ournode" {
				return n
			}
		}
		return nil
	}
	var nodeID string
	if !poll(60*time.Second, func() bool {
		n := entry()
		if n != nil && n["connected"] == true {
			nodeID, _ = n["nodeId"].(string)
			return true
		}
		return node.exited()
	}) || nodeID == "" {
		t.Fatalf("our node host never showed up connected in nodes status\n%s", node.report())
	}
	r := c.run(t, "nodes", "status")
	r.mustSucceed(t)
	if line := lineWith(r.Stdout, nodeID); !strings.Contains(line, "go-e2e-ournode") || !strings.Contains(line, " yes ") {
		t.Fatalf("nodes status table does not show the node connected:\n%s", r)
	}

	r = c.run(t, "nodes", "describe", "go-e2e-ournode")
	r.mustSucceed(t)
	if !strings.Contains(r.Stdout, nodeID) || !strings.Contains(r.Stdout, "system.which") {
		t.Fatalf("nodes describe by name:\n%s", r)
	}

	// invoke (the node named by its display name): system.which answers
	// with the path; system.run is refused before anything is sent.
	r = c.run(t, "nodes", "invoke", "go-e2e-ournode", "system.which", "--params", `{"bins":["sh"]}`)
	r.mustSucceed(t)
	if !strings.Contains(r.Stdout, `"sh": "/`) || !strings.Contains(r.Stdout, "/sh\"") {
		t.Fatalf("nodes invoke system.which:\n%s", r)
	}
	r = c.run(t, "nodes", "invoke", nodeID, "system.run", "--params", `{"command":["id"]}`)
	if r.Code == 0 || !strings.Contains(r.Stderr, "exec approvals") {
		t.Fatalf("nodes invoke system.run was not refused:\n%s", r)
	}

	// The agents' nodes tool sees the same node.
	ok, text := invokeTool(t, c, "nodes", `{"action":"status"}`)
	if !ok || !strings.Contains(text, `"nodeId":"`+nodeID+`"`) || !strings.Contains(text, `"connected":true`) {
		t.Fatalf("nodes tool status: ok=%v %s", ok, text)
	}
	ok, text = invokeTool(t, c, "nodes", `{"action":"describe","node":"`+nodeID+`"}`)
	if !ok || !strings.Contains(text, `"displayName":"go-e2e-ournode"`) || !strings.Contains(text, `"system.which"`) {
		t.Fatalf("nodes tool describe: ok=%v %s", ok, text)
	}
	// run takes exec host=node's path: the node's default approvals ask
	// a person, and with nobody answering inside timeoutMs nothing runs.
	ok, text = invokeTool(t, c, "nodes", `{"action":"run","node":"`+nodeID+`","command":["id"],"timeoutMs":2000}`)
	if ok || !strings.Contains(text, "not approved") || strings.Contains(text, "uid=") {
		t.Fatalf("nodes tool run without an approval: ok=%v %s", ok, text)
	}

	// The node process dies without a goodbye.
	if err := node.signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !poll(30*time.Second, func() bool {
		n := entry()
		return n != nil && n["connected"] == false
	}) {
		t.Fatalf("node still connected after its process was killed")
	}
	r = c.run(t, "nodes", "status")
	r.mustSucceed(t)
	if line := lineWith(r.Stdout, nodeID); !strings.Contains(line, " no ") {
		t.Fatalf("nodes status table does not show the node disconnected:\n%s", r)
	}
	r = c.run(t, "nodes", "invoke", nodeID, "system.which", "--params", `{"bins":["sh"]}`)
	if r.Code == 0 || !strings.Contains(r.Stderr, "NOT_CONNECTED") || !strings.Contains(r.Stderr, "node not connected") {
		t.Fatalf("invoke on a killed node:\n%s", r)
	}
}

// lineWith returns the first line of s containing sub, or "".
func lineWith(s, sub string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			return line
		}
	}
	return ""
}
