package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestExecNode: exec with host "node" runs on our node host connected to
// our gateway. The node's own exec approvals decide: a command they allow
// runs at once; under ask=always the gateway raises an approval that an
// operator resolves with exec.approval.resolve (allow-once runs it, deny
// returns a denial); a node whose approvals deny everything refuses with
// SYSTEM_RUN_DENIED, which comes back as a denied result.
func TestExecNode(t *testing.T) {
	bin := needOurBin(t)
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := ourClient(t, g)

	dir := t.TempDir()
	env, stateDir, _ := isolatedEnv(t, dir)
	env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	approvals := filepath.Join(stateDir, "node", "exec-approvals.json")
	setNodeApprovals := func(security, ask string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(approvals), 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, approvals, fmt.Sprintf(`{"version":1,"defaults":{"security":%q,"ask":%q,"askFallback":"deny"}}`, security, ask))
	}
	setNodeApprovals("full", "off")
	node := startProc(t, "our node host", env, dir, bin, "node", "run",
		"--host", "127.0.0.1", "--port", strconv.Itoa(g.Port), "--no-tls", "--display-name", "exec-e2e-node")

	var nodeID string
	if !poll(60*time.Second, func() bool {
		r := c.run(t, "gateway", "call", "node.list", "--params", "{}")
		var out struct {
			Nodes []struct {
				NodeID      string `json:"nodeId"`
				DisplayName string `json:"displayName"`
				Connected   bool   `json:"connected"`
			} `json:"nodes"`
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil {
			return false
		}
		for _, n := range out.Nodes {
			if n.DisplayName == "exec-e2e-node" && n.Connected {
				nodeID = n.NodeID
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the node host never connected\n%s", node.report())
	}

	type execResult struct {
		Status   string `json:"status"`
		ExitCode *int   `json:"exitCode"`
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
		Host     string `json:"host"`
		Node     string `json:"node"`
		Note     string `json:"note"`
	}
	execOnNode := func(args string) (bool, execResult) {
		t.Helper()
		ok, text := invokeTool(t, c, "exec", args)
		var r execResult
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			t.Fatalf("exec %s: ok=%v %q\n%s", args, ok, text, node.report())
		}
		return ok, r
	}

	// 1. The node's approvals allow it: it runs without asking.
	ok, r := execOnNode(`{"host":"node","command":"echo from-node"}`)
	if !ok || r.Status != "completed" || r.Stdout != "from-node\n" || r.ExitCode == nil || *r.ExitCode != 0 ||
		r.Host != "node" || r.Node != nodeID {
		t.Fatalf("allowed run: ok=%v %+v\n%s", ok, r, node.report())
	}
	// Named explicitly, by display name.
	ok, r = execOnNode(`{"host":"node","node":"exec-e2e-node","command":"echo named"}`)
	if !ok || r.Stdout != "named\n" {
		t.Fatalf("run on named node: ok=%v %+v", ok, r)
	}

	// The nodes tool's run takes an argv array to the same node on the
	// same path; no shell reads its words, so $(id) stays text.
	ok, text := invokeTool(t, c, "nodes", `{"action":"run","node":"exec-e2e-node","command":["sh","-c","echo \"$1 $FOO\"","x","$(id)"],"env":["FOO=bar"],"commandTimeoutMs":20000}`)
	if err := json.Unmarshal([]byte(text), &r); err != nil || !ok || r.Status != "completed" || r.Stdout != "$(id) bar\n" || r.Node != nodeID {
		t.Fatalf("nodes run: ok=%v %q %+v\n%s", ok, text, r, node.report())
	}

	// 2. ask=always: the gateway asks; an operator decides.
	setNodeApprovals("allowlist", "always")
	resolveNext := func(command, decision string) (bool, execResult) {
		t.Helper()
		var wg sync.WaitGroup
		var ok bool
		var r execResult
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, r = execOnNode(`{"host":"node","command":"` + command + `"}`)
		}()
		var id string
		if !poll(30*time.Second, func() bool {
			res := c.run(t, "gateway", "call", "exec.approval.list", "--params", "{}")
			var out struct {
				Approvals []struct {
					ID   string `json:"id"`
					Tool string `json:"tool"`
					Args string `json:"args"`
				} `json:"approvals"`
			}
			if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &out) != nil {
				return false
			}
			for _, a := range out.Approvals {
				if a.Tool == "exec" && strings.Contains(a.Args, command) {
					if !strings.Contains(a.Args, `"host":"node"`) || !strings.Contains(a.Args, nodeID) || !strings.Contains(a.Args, `"argv":["sh","-c",`) {
						t.Errorf("approval request does not show the node and argv: %s", a.Args)
					}
					id = a.ID
					return true
				}
			}
			return false
		}) {
			t.Fatalf("no pending approval for %q\n%s", command, node.report())
		}
		c.run(t, "gateway", "call", "exec.approval.resolve", "--params",
			fmt.Sprintf(`{"id":%q,"decision":%q}`, id, decision)).mustSucceed(t)
		wg.Wait()
		return ok, r
	}
	ok, r = resolveNext("echo approved-on-node", "allow-once")
	if !ok || r.Status != "completed" || r.Stdout != "approved-on-node\n" || r.Node != nodeID {
		t.Fatalf("approved run: ok=%v %+v\n%s", ok, r, node.report())
	}
	ok, r = resolveNext("echo never-runs", "deny")
	if ok || r.Status != "denied" || r.Stdout != "" || !strings.Contains(r.Note, "not approved") {
		t.Fatalf("denied run: ok=%v %+v", ok, r)
	}

	// 3. The node's own approvals deny: SYSTEM_RUN_DENIED is a denial.
	setNodeApprovals("deny", "off")
	ok, r = execOnNode(`{"host":"node","command":"echo refused"}`)
	if ok || r.Status != "denied" || !strings.Contains(r.Note, "SYSTEM_RUN_DENIED") || r.Node != nodeID {
		t.Fatalf("node-denied run: ok=%v %+v", ok, r)
	}
	if node.exited() {
		t.Fatalf("node host exited\n%s", node.report())
	}
}
