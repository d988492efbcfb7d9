package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// seedGuardConfig includes MateClaw's example Tool Guard from its golden
// copy (gateway/testdata/mateclaw/guard-seed.json5) and adds a fake
// model and, in agents.list[] as OpenClaw's docs write it, an agent
// whose allow list names only a tool no plugin provides.
func seedGuardConfig(t *testing.T, modelURL string) (config string, env []string) {
	t.Helper()
	golden := filepath.Join(repoRoot, "gateway", "testdata", "mateclaw", "guard-seed.json5")
	if _, err := os.Stat(golden); err != nil {
		t.Fatalf("the seed's golden config: %v", err)
	}
	return fmt.Sprintf(`{
  $include: %q,
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, models: [{ id: "echo-1" }] } } },
  agents: {
    defaults: { model: "fake/echo-1" },
    list: [
      { id: "main", default: true },
      { id: "lookup", tools: { allow: ["query_db"] } },
    ],
  },
}
`, golden, modelURL+"/v1"), []string{"OPENCLAW_INCLUDE_ROOTS=" + filepath.Dir(golden)}
}

// TestMateClawGuardSeedThroughAnAgentTurn loads MateClaw's example Tool
// Guard in the real binary. The model, calling MateClaw's tool name,
// runs `ls -la` with no one asked (the seed's ShellExecuteTool rule
// matches its command line). The same command with a second one chained
// behind it does not pass for a match: it waits for a person, who denies
// it, and the second command never runs. Exec's own approvals are open,
// so the guard is all that stands in the way.
func TestMateClawGuardSeedThroughAnAgentTurn(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "l1", Name: "ShellExecuteTool", Arguments: `{"command":"ls -la"}`}}},
		fakemodel.Reply{Text: "listed"},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "l2", Name: "ShellExecuteTool", Arguments: `{"command":"ls -la; touch pwned"}`}}},
		fakemodel.Reply{Text: "refused"},
	)
	cfg, env := seedGuardConfig(t, model.URL())
	g := startGateway(t, gatewayOpts{Config: cfg, Env: env})
	writeFile(t, filepath.Join(g.StateDir, "exec-approvals.json"), `{"version":1,"defaults":{"security":"full","ask":"off"}}`)
	workspace := filepath.Join(g.StateDir, "workspace")
	if err := os.MkdirAll(workspace, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(workspace, "seed-marker.txt"), "x")
	c := ourClient(t, g)

	// ls -la: allowed by rule 0, no approval asked, its listing observed.
	listed := c.run(t, "agent", "--message", "list the files")
	listed.mustSucceed(t)
	if strings.TrimSpace(listed.Stdout) != "listed" {
		t.Fatalf("the ls turn answered %q", listed.Stdout)
	}
	h := c.run(t, "gateway", "call", "chat.history", "--params", `{"sessionKey":"agent:main:main"}`)
	h.mustSucceed(t)
	if !strings.Contains(h.Stdout, "seed-marker.txt") {
		t.Fatalf("the ls result is not in the history:\n%s", h.Stdout)
	}

	// ls -la; touch pwned: the pattern matches the line's start, not the
	// second command, so the default policy asks a person.
	var wg sync.WaitGroup
	var chained result
	wg.Add(1)
	go func() { defer wg.Done(); chained = c.run(t, "agent", "--message", "list again") }()
	var id, reason string
	if !poll(30*time.Second, func() bool {
		r := c.run(t, "gateway", "call", "exec.approval.list", "--params", "{}")
		var out struct {
			Approvals []struct {
				ID, Tool, Args, Reason string
			} `json:"approvals"`
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil || len(out.Approvals) != 1 {
			return false
		}
		a := out.Approvals[0]
		if a.Tool != "exec" || !strings.Contains(a.Args, "touch pwned") {
			t.Fatalf("unexpected approval %+v", a)
		}
		id, reason = a.ID, a.Reason
		return true
	}) {
		t.Fatal("the chained command asked no one")
	}
	if !strings.Contains(reason, `not the command "touch pwned"`) {
		t.Errorf("the approval's reason does not say what did not match: %q", reason)
	}
	c.run(t, "gateway", "call", "exec.approval.resolve", "--params", fmt.Sprintf(`{"id":%q,"decision":"deny"}`, id)).mustSucceed(t)
	wg.Wait()
	chained.mustSucceed(t)
	if _, err := os.Stat(filepath.Join(workspace, "pwned")); err == nil {
		t.Fatal("the chained command ran")
	}
}

// TestAllowlistOfUnknownPluginToolsTellsTheUser: an agent whose allow list
// (agents.list[].tools.allow) names only a tool no plugin provides gets
// no turn: the reply says which list left it no tool, the gateway log
// warns about the unknown entry, and the model is never called.
func TestAllowlistOfUnknownPluginToolsTellsTheUser(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	cfg, env := seedGuardConfig(t, model.URL())
	g := startGateway(t, gatewayOpts{Config: cfg, Env: env})
	c := ourClient(t, g)

	r := c.run(t, "agent", "--agent", "lookup", "--message", "look it up")
	out := r.Stdout + r.Stderr
	if r.Code == 0 || !strings.Contains(out, "no callable tools remain") || !strings.Contains(out, "query_db") {
		t.Fatalf("the reply does not tell the user:\n%s", r)
	}
	t.Logf("the user sees:\n%s", out)
	if n := len(model.Requests()); n != 0 {
		t.Fatalf("the model was called %d times", n)
	}
	logged := func() bool {
		log := g.proc.stdout.String() + g.proc.stderr.String()
		return strings.Contains(log, "unknown entries (query_db)") && strings.Contains(log, "no callable tools")
	}
	if !poll(10*time.Second, logged) {
		t.Fatalf("no warning in the gateway log:\n%s", clip(g.proc.stdout.String()+g.proc.stderr.String()))
	}
	// The other agent is untouched.
	c.run(t, "agent", "--message", "hi").mustSucceed(t)
}
