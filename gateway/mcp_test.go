package gateway

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// buildMCPTestServer builds the MCP test server the plugins/mcp tests use.
func buildMCPTestServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpserver")
	out, err := exec.Command("go", "build", "-o", bin, "../plugins/mcp/testdata/mcpserver").CombinedOutput()
	if err != nil {
		t.Fatalf("build the MCP test server: %v\n%s", err, out)
	}
	return bin
}

// waitMCPTool polls tools.schemas until the tool is offered.
func waitMCPTool(t *testing.T, c *client.Client, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		res := call[map[string]any](t, c, "tools.schemas", map[string]any{"agentId": "main"})
		if strings.Contains(fmt.Sprint(res["tools"]), "name:"+name+" ") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("MCP tool %s never appeared", name)
}

// TestMCPServerToolsInATurn: a configured stdio MCP server's tools join
// the registry, an agent calls one in a turn, and the Tool Guard applies
// to them like to any tool.
func TestMCPServerToolsInATurn(t *testing.T) {
	bin := buildMCPTestServer(t)
	model := fakemodel.New(t)
	_, c := startWithConfig(t, model, fmt.Sprintf(`mcp: { servers: { test: { command: %q } } },
  tools: { disclosure: { mode: "legacy" }, guard: { rules: [{ tool: "test__boom", action: "deny" }] } },`, bin))
	waitMCPTool(t, c, "test__echo")

	st := call[map[string]any](t, c, "mcp.status", map[string]any{})
	if s := fmt.Sprint(st["servers"]); !strings.Contains(s, "state:ready") || !strings.Contains(s, "name:test") {
		t.Fatalf("mcp.status: %v", st)
	}
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "test__echo", "args": map[string]any{"text": "hello mcp"}})
	if res["ok"] != true || !strings.Contains(fmt.Sprint(res["output"]), "hello mcp") {
		t.Fatalf("test__echo: %v", res)
	}
	if err := c.Call(context.Background(), "tools.setTier", map[string]any{"name": "test__echo", "tier": "core"}, nil); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("an MCP tool's tier changed: %v", err)
	}
	res = call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "test__boom", "args": map[string]any{}})
	if res["ok"] == true || !strings.Contains(fmt.Sprint(res["output"]), "tool guard") {
		t.Fatalf("a guarded MCP tool ran: %v", res)
	}

	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "m1", Name: "test__add", Arguments: `{"a":2,"b":40}`}}},
		fakemodel.Reply{Text: "The sum is 42."},
	)
	var final map[string]any
	if err := c.CallFinal(context.Background(), "agent", map[string]any{"message": "add 2 and 40", "idempotencyKey": "mcp-1"}, &final); err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	offered := false
	for _, tool := range reqs[0].Tools {
		offered = offered || tool.Name == "test__add"
	}
	var result string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" && m.ToolCallID == "m1" {
			result = m.Text
		}
	}
	if !offered || !strings.Contains(result, "42") {
		t.Fatalf("offered %v, result %q", offered, result)
	}
}

// TestMCPToolsPerAgent: an agent that names some MCP tools gets only
// those; one that names none gets them all.
func TestMCPToolsPerAgent(t *testing.T) {
	bin := buildMCPTestServer(t)
	_, c := startWithConfig(t, fakemodel.New(t), fmt.Sprintf(`mcp: { servers: { test: { command: %q } } },
  agents: { defaults: { model: "fake/echo-1" }, entries: { main: {}, narrow: { tools: { alsoAllow: ["test__echo"] } } } },`, bin))
	waitMCPTool(t, c, "test__echo")
	offered := func(agent string) string {
		return fmt.Sprint(call[map[string]any](t, c, "tools.schemas", map[string]any{"agentId": agent})["tools"])
	}
	if all := offered("main"); !strings.Contains(all, "name:test__add ") || !strings.Contains(all, "name:test__echo ") {
		t.Fatalf("main's MCP tools: %s", all)
	}
	narrow := offered("narrow")
	if !strings.Contains(narrow, "name:test__echo ") || strings.Contains(narrow, "name:test__add ") || !strings.Contains(narrow, "name:read ") {
		t.Fatalf("narrow's tools: %s", narrow)
	}
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "test__add", "agentId": "narrow", "args": map[string]any{"a": 1, "b": 2}})
	if res["ok"] == true || !strings.Contains(fmt.Sprint(res["output"]), "picked") {
		t.Fatalf("narrow called an MCP tool it did not pick: %v", res)
	}
}

// TestMCPToolOfANonOwner: a client without operator.admin (the same rule
// holds for a chat stranger's turn) calls an MCP server's tools. One the
// server does not mark read-only may do anything the server can (MCP's
// default is "may destroy"), so it waits for a person like exec does and
// runs only once approved; a read-only one runs at once.
func TestMCPToolOfANonOwner(t *testing.T) {
	bin := buildMCPTestServer(t)
	r, admin := startWithConfig(t, fakemodel.New(t), fmt.Sprintf(`mcp: { servers: { test: { command: %q } } },
  tools: { disclosure: { mode: "legacy" }, guard: { approvalTimeoutSeconds: 1 } },`, bin))
	waitMCPTool(t, admin, "test__echo")
	writer, err := r.dial(t, "t0k3n-automation", "operator.read", "operator.write")
	if err != nil {
		t.Fatal(err)
	}
	res := call[map[string]any](t, writer, "tools.invoke", map[string]any{"name": "test__echo", "args": map[string]any{"text": "as a stranger"}})
	if res["ok"] == true || !strings.Contains(fmt.Sprint(res["output"]), "not approved") {
		t.Fatalf("a non-owner's call of a destructive-by-default MCP tool: %v", res)
	}
	res = call[map[string]any](t, writer, "tools.invoke", map[string]any{"name": "test__add", "args": map[string]any{"a": 1, "b": 2}})
	if res["ok"] != true || fmt.Sprint(res["output"]) != "3" {
		t.Fatalf("a non-owner's call of a read-only MCP tool: %v", res)
	}
	res = call[map[string]any](t, admin, "tools.invoke", map[string]any{"name": "test__echo", "args": map[string]any{"text": "as the owner"}})
	if res["ok"] != true || !strings.Contains(fmt.Sprint(res["output"]), "as the owner") {
		t.Fatalf("the owner's call: %v", res)
	}
}
