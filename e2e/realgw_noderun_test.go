package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	gwclient "github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// realSystemRunConfig is the real gateway's config for an agent whose
// model is our fake model server and whose exec tool runs on a node.
// Arguments: model base URL, node name, log file.
const realSystemRunConfig = `{
  gateway: { mode: "local", tailscale: { mode: "off" }, nodes: { pairing: { autoApproveLocal: false } } },
  update: { checkOnStart: false },
  telemetry: { enabled: false },
  discovery: { mdns: { mode: "off" } },
  models: { providers: { fake: { baseUrl: %q, apiKey: "fake-key", api: "openai-completions", models: [{ id: "echo-1", name: "echo-1" }] } } },
  agents: { defaults: { heartbeat: { every: "0m" }, model: { primary: "fake/echo-1" } } },
  tools: { exec: { host: "node", node: %q, security: "full", ask: "off" } },
  logging: { file: %%q },
}
`

// TestRealGatewaySystemRunOnOurNode: the REAL gateway's agent, driven by
// our fake model, calls exec, which tools.exec routes to OUR node host:
// the real gateway asks it for a plan (system.run.prepare), then runs the
// plan (system.run), and the command's output comes back to the model as
// the tool result.
//  1. The node's approvals allow everything: the command runs at once.
//  2. The node's approvals ask every time: the real gateway raises an exec
//     approval, an operator allows it once, and the approved plan runs.
func TestRealGatewaySystemRunOnOurNode(t *testing.T) {
	needRealCLI(t)
	bin := needOurBin(t)
	t.Parallel()
	const nodeName = "go-sysrun-node"
	model := fakemodel.New(t)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "callexec1", Name: "exec", Arguments: `{"command":"echo from-our-node"}`}}},
		fakemodel.Reply{Text: "done"},
	)
	g := startRealGateway(t, fmt.Sprintf(realSystemRunConfig, model.URL()+"/v1", nodeName))

	dir := t.TempDir()
	env, stateDir, _ := isolatedEnv(t, dir)
	env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	approvals := filepath.Join(stateDir, "node", "exec-approvals.json")
	if err := os.MkdirAll(filepath.Dir(approvals), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, approvals, `{"version":1,"defaults":{"security":"full","ask":"off","askFallback":"deny"}}`)
	node := startProc(t, "our node host", env, dir, bin, "node", "run",
		"--host", "127.0.0.1", "--port", strconv.Itoa(g.Port), "--no-tls", "--display-name", nodeName)
	pairOurNode(t, g, node, nodeName)

	// 1. Allowed by the node: the real CLI's agent turn runs it at once.
	r := realClient(t, g).run(t, "agent", "--agent", "main", "--message", "run it on the node", "--json")
	r.mustSucceed(t)
	if out := toolResults(model.Requests()); !strings.Contains(out, "from-our-node") {
		t.Fatalf("no exec tool result with the node's output; tool results:\n%s\nagent:\n%s\n%s", out, r, node.report())
	}
	if !strings.Contains(r.Stdout, "done") {
		t.Fatalf("agent reply lacks the model's final text:\n%s", r)
	}

	// 2. The node asks every time. The real gateway registers a tool's
	// approval with the scopes of the connection that started the turn
	// and denies at once when no approval client is connected ("Headless
	// runs cannot wait for interactive exec approval"); its CLI's `agent`
	// asks for operator.write only ("missing scope: operator.approvals").
	// So the turn is started by an operator connection that is an approval
	// client with the approvals scope, as the Control UI is.
	writeFile(t, approvals, `{"version":1,"defaults":{"security":"full","ask":"always","askFallback":"deny"}}`)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "callexec2", Name: "exec", Arguments: `{"command":"printf 'ok-%s\\n' approved"}`}}},
		fakemodel.Reply{Text: "done again"},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	op, err := gwclient.Dial(ctx, gwclient.Options{URL: g.URL, Token: g.Token, Role: protocol.RoleOperator, Version: "e2e",
		Caps:   []string{"approvals"},
		Scopes: []string{string(protocol.ScopeAdmin), string(protocol.ScopeRead), string(protocol.ScopeWrite), string(protocol.ScopeApprovals)}})
	if err != nil {
		t.Fatalf("operator connect to the real gateway: %v", err)
	}
	defer op.Close()
	requested := make(chan json.RawMessage, 1)
	go func() {
		for ev := range op.Events() {
			if ev.Event == "exec.approval.requested" {
				select {
				case requested <- ev.Payload:
				default:
				}
			}
		}
	}()
	// The turn waits in the exec tool for the decision, so it runs aside.
	turnDone := make(chan error, 1)
	go func() {
		var turn map[string]any
		turnDone <- op.CallFinal(ctx, "agent", map[string]any{"agentId": "main", "sessionKey": "agent:main:main",
			"message": "run it after approval", "idempotencyKey": "e2e-sysrun-2"}, &turn)
	}()
	var ask struct {
		ID      string `json:"id"`
		Request struct {
			Host          string `json:"host"`
			SystemRunPlan struct {
				Argv        []string `json:"argv"`
				CommandText string   `json:"commandText"`
			} `json:"systemRunPlan"`
		} `json:"request"`
	}
	select {
	case raw := <-requested:
		if err := json.Unmarshal(raw, &ask); err != nil || ask.ID == "" {
			t.Fatalf("exec.approval.requested payload: %v %s", err, raw)
		}
		// The plan our node prepared, as the real gateway shows it.
		if ask.Request.Host != "node" || ask.Request.SystemRunPlan.CommandText != `/bin/sh -lc "printf 'ok-%s\n' approved"` {
			t.Errorf("approval request: %s", raw)
		}
	case err := <-turnDone:
		t.Fatalf("agent turn 2 ended (%v) without an exec approval; tool results:\n%s\n%s",
			err, toolResults(model.Requests()), node.report())
	case <-time.After(60 * time.Second):
		t.Fatalf("no exec.approval.requested from the real gateway\n%s", node.report())
	}
	if out := toolResults(model.Requests()); strings.Contains(out, "ok-approved") {
		t.Fatalf("the command ran before it was approved:\n%s", out)
	}
	// The real CLI's `gateway call exec.approval.resolve` connects with
	// operator.approvals only, and the real gateway shows an approval
	// raised by an agent's tool only to operator.admin or to its requester
	// ("unknown or expired approval id"), so the operator resolves it.
	if err := op.Call(ctx, "exec.approval.resolve", map[string]any{"id": ask.ID, "decision": "allow-once"}, nil); err != nil {
		t.Fatalf("exec.approval.resolve %s: %v", ask.ID, err)
	}
	select {
	case err := <-turnDone:
		if err != nil {
			t.Fatalf("agent turn 2: %v", err)
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("agent turn 2 did not end after the approval\n%s", node.report())
	}
	if out := toolResults(model.Requests()); !strings.Contains(out, "ok-approved") {
		t.Fatalf("no exec tool result with the approved run's output; tool results:\n%s\n%s", out, node.report())
	}
	if node.exited() {
		t.Fatalf("node host exited\n%s", node.report())
	}
}

// toolResults joins the tool results the model was sent. (The real
// gateway rewrites tool call ids, so they are not matched.)
func toolResults(reqs []fakemodel.Recorded) string {
	var b strings.Builder
	for _, rq := range reqs {
		for _, m := range rq.Messages {
			if m.Role == "tool" {
				b.WriteString(m.Text + "\n---\n")
			}
		}
	}
	return b.String()
}

// pairOurNode approves our node host's device and then its declared
// commands with the real CLI, as TestOurNodeHostOnRealGateway does.
func pairOurNode(t *testing.T, g *gateway, node *proc, name string) {
	t.Helper()
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
	var nodeRequest string
	if !poll(60*time.Second, func() bool {
		r := c.run(t, append([]string{"nodes", "pending", "--json"}, g.remote(g.Token)...)...)
		if r.Code != 0 {
			return false
		}
		list, _ := decodeJSON(t, r).([]any)
		for _, m := range asList(list) {
			if m["displayName"] == name {
				nodeRequest, _ = m["requestId"].(string)
				return nodeRequest != ""
			}
		}
		return false
	}) {
		t.Fatalf("no pending node capability request\n%s", node.report())
	}
	c.run(t, append([]string{"nodes", "approve", nodeRequest, "--json"}, g.remote(g.Token)...)...).mustSucceed(t)
}
