package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func toolsConfig(modelURL, tools string) string {
	return fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" }, entries: { main: { tools: { deny: ["sessions_send"] } } } },
  tools: %s,
}
`, modelURL+"/v1", tools)
}

// TestRealCLIToolsEffective: the real CLI reads our effective tool set for
// a profile, a byProvider deny and an agent deny.
func TestRealCLIToolsEffective(t *testing.T) {
	needRealCLI(t)
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{Config: toolsConfig("http://127.0.0.1:9", `{ profile: "messaging", byProvider: { "fake/echo-1": { deny: ["sessions_spawn"] } } }`)})
	r := realClient(t, g).run(t, append([]string{"gateway", "call", "tools.effective", "--json", "--params", `{"sessionKey":"agent:main:main"}`}, g.remote(g.Token)...)...)
	r.mustSucceed(t)
	var out struct {
		Profile string `json:"profile"`
		Groups  []struct {
			Tools []struct {
				ID string `json:"id"`
			} `json:"tools"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("decode: %v\n%s", err, r)
	}
	var got []string
	for _, g := range out.Groups {
		for _, tl := range g.Tools {
			got = append(got, tl.ID)
		}
	}
	slices.Sort(got)
	want := []string{"gateway", "message", "session_status", "sessions_history", "sessions_list"} // messaging includes gateway and message, as in OpenClaw
	if out.Profile != "messaging" || !slices.Equal(got, want) {
		t.Fatalf("effective tools = %v (profile %s), want %v", got, out.Profile, want)
	}
	// Our CLI names the deciding layer.
	ex := ourClient(t, g).run(t, "tools", "explain", "sessions_spawn")
	ex.mustSucceed(t)
	if !strings.Contains(ex.Stdout, `tools.byProvider[fake/echo-1].deny`) {
		t.Fatalf("explain output:\n%s", ex.Stdout)
	}
}

// TestGuardApprovalAndDeny: a require_approval call suspends the turn
// until it is approved over the bus, then resumes; a denied call never
// runs.
func TestGuardApprovalAndDeny(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "a1", Name: "sessions_list", Arguments: `{}`}}},
		fakemodel.Reply{Text: "listed"},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "d1", Name: "session_status", Arguments: `{}`}}},
		fakemodel.Reply{Text: "blocked as expected"},
	)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), `{ guard: { rules: [
      { tool: "sessions_list", action: "require_approval" },
      { tool: "session_status", action: "deny" } ] } }`)})
	c := ourClient(t, g)

	var wg sync.WaitGroup
	var agentRun result
	wg.Add(1)
	go func() { defer wg.Done(); agentRun = c.run(t, "agent", "--message", "list the sessions") }()
	var id string
	if !poll(30*time.Second, func() bool {
		r := c.run(t, "gateway", "call", "exec.approval.list", "--params", "{}")
		var out struct {
			Approvals []struct {
				ID   string `json:"id"`
				Tool string `json:"tool"`
			} `json:"approvals"`
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil || len(out.Approvals) != 1 || out.Approvals[0].Tool != "sessions_list" {
			return false
		}
		id = out.Approvals[0].ID
		return true
	}) {
		t.Fatal("no pending approval appeared")
	}
	c.run(t, "gateway", "call", "exec.approval.resolve", "--params", fmt.Sprintf(`{"id":%q,"decision":"allow-once"}`, id)).mustSucceed(t)
	wg.Wait()
	agentRun.mustSucceed(t)
	if strings.TrimSpace(agentRun.Stdout) != "listed" {
		t.Fatalf("approved run answered %q", agentRun.Stdout)
	}

	denied := c.run(t, "agent", "--message", "status please")
	denied.mustSucceed(t)
	h := c.run(t, "gateway", "call", "chat.history", "--params", `{"sessionKey":"agent:main:main"}`)
	h.mustSucceed(t)
	if !strings.Contains(h.Stdout, "blocked by the tool guard") || !strings.Contains(h.Stdout, `"toolName": "sessions_list"`) {
		t.Fatalf("history lacks the guarded results:\n%s", h.Stdout)
	}
}

// TestExecThroughAnAgentTurn: the model's exec call runs in the agent's
// workspace and its output comes back as the observation.
func TestExecThroughAnAgentTurn(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "e1", Name: "exec", Arguments: `{"command":"echo e2e-exec-output"}`}}},
		fakemodel.Reply{Text: "ran it"},
	)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), `{}`)})
	c := ourClient(t, g)
	c.run(t, "agent", "--message", "run echo").mustSucceed(t)
	h := c.run(t, "gateway", "call", "chat.history", "--params", `{"sessionKey":"agent:main:main"}`)
	h.mustSucceed(t)
	if !strings.Contains(h.Stdout, `e2e-exec-output\\n`) || !strings.Contains(h.Stdout, `\"exitCode\":0`) {
		t.Fatalf("history lacks the exec result:\n%s", h.Stdout)
	}
}

// TestBuiltinToolsInAnAgentTurn: one turn in which the model drives the
// file, memory, time and web tools in order, each seeing what the one
// before it did, and a guard refusal reaching the model as an
// observation rather than ending the turn.
func TestBuiltinToolsInAnAgentTurn(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	calls := []struct{ name, args string }{
		{"write", `{"path":"notes/todo.md","content":"buy quince paste\n"}`},
		{"read", `{"path":"notes/todo.md"}`},
		{"WorkspaceMemoryTool", `{"action":"write","path":"MEMORY.md","content":"The user likes quince paste.\n"}`},
		{"memory_search", `{"query":"quince"}`},
		{"DateTimeTool", `{"timezone":"Europe/Lisbon"}`},
		{"web_fetch", `{"url":"http://169.254.169.254/latest/meta-data/"}`},
	}
	var replies []fakemodel.Reply
	for i, c := range calls {
		replies = append(replies, fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: fmt.Sprintf("c%d", i), Name: c.name, Arguments: c.args}}})
	}
	model.Script(append(replies, fakemodel.Reply{Text: "all done"})...)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), `{}`)})
	c := ourClient(t, g)
	c.run(t, "agent", "--message", "use your tools").mustSucceed(t)
	h := c.run(t, "gateway", "call", "chat.history", "--params", `{"sessionKey":"agent:main:main"}`)
	h.mustSucceed(t)
	for _, want := range []string{
		`buy quince paste`,         // read saw what write wrote
		`\"path\":\"MEMORY.md\"`,   // memory_search found the memory file
		`Europe/Lisbon`,            // DateTimeTool answered
		`blocked by network guard`, // the metadata address was refused
		`all done`,                 // and the turn went on to the end
	} {
		if !strings.Contains(h.Stdout, want) {
			t.Errorf("history lacks %s:\n%s", want, h.Stdout)
		}
	}
}

// TestRealCLIAudit: OpenClaw's own `openclaw audit` reads this gateway's
// tool audit through audit.list, filters included.
func TestRealCLIAudit(t *testing.T) {
	needRealCLI(t)
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{Config: toolsConfig("http://127.0.0.1:9", `{}`)})
	ourClient(t, g).run(t, "gateway", "call", "tools.invoke", "--params", `{"name":"DateTimeTool","args":{}}`).mustSucceed(t)
	real := realClient(t, g)
	real.env = append(real.env, "OPENCLAW_GATEWAY_URL="+fmt.Sprintf("ws://127.0.0.1:%d", g.Port), "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	r := real.run(t, "audit", "--kind", "tool_action", "--json")
	r.mustSucceed(t)
	var out struct {
		Events []struct {
			Kind, Status, ToolName, Action string
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || len(out.Events) != 1 {
		t.Fatalf("openclaw audit: %v\n%s", err, r)
	}
	if e := out.Events[0]; e.Kind != "tool_action" || e.Status != "succeeded" || e.ToolName != "DateTimeTool" || e.Action != "tool.action.finished" {
		t.Errorf("event %+v", e)
	}
	r = real.run(t, "audit", "--status", "blocked", "--json")
	r.mustSucceed(t)
	if strings.Contains(r.Stdout, "DateTimeTool") {
		t.Errorf("--status blocked listed a succeeded call:\n%s", r.Stdout)
	}
}
