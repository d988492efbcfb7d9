package gateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// wireCall makes one RPC and returns its result, or the error's text
// under "error", for a wire golden.
func wireCall(t *testing.T, c *client.Client, method string, params any) any {
	t.Helper()
	var out any
	if err := c.Call(context.Background(), method, params, &out); err != nil {
		return map[string]any{"error": err.Error()}
	}
	return out
}

// waitMCPReady polls mcp.status until the named server is ready.
func waitMCPReady(t *testing.T, c *client.Client, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		st := call[map[string]any](t, c, "mcp.status", map[string]any{})
		for _, row := range st["servers"].([]any) {
			if m := row.(map[string]any); m["name"] == name && m["state"] == "ready" {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("MCP server %s never became ready", name)
}

// TestWireMCPStatus pins mcp.status: configured servers in name order,
// disabled ones as stopped, the live figures of a running one, and a
// server added by a config reload.
func TestWireMCPStatus(t *testing.T) {
	bin := buildMCPTestServer(t)
	servers := fmt.Sprintf(`test: { command: %q },
    off: { command: %q, enabled: false },
    remote: { url: "http://127.0.0.1:9/mcp", enabled: false },`, bin, bin)
	r, c := startWithConfig(t, fakemodel.New(t), `mcp: { servers: { `+servers+` } },`)
	waitMCPReady(t, c, "test")
	checkWire(t, "mcp.status", wireCall(t, c, "mcp.status", map[string]any{}))
	// It takes no params and ignores whatever comes.
	checkWire(t, "mcp.status.odd-params", wireCall(t, c, "mcp.status", "x"))

	// A reload that adds a server starts it; its row appears.
	b, err := os.ReadFile(r.config)
	if err != nil {
		t.Fatal(err)
	}
	added := strings.Replace(string(b), "test: {", fmt.Sprintf("again: { command: %q },\n    test: {", bin), 1)
	if err := os.WriteFile(r.config, []byte(added), 0o600); err != nil {
		t.Fatal(err)
	}
	waitMCPReady(t, c, "again")
	checkWire(t, "mcp.status.reloaded", wireCall(t, c, "mcp.status", nil))
}

// TestWireMCPStatusNone: without servers the list is empty, not null.
func TestWireMCPStatusNone(t *testing.T) {
	_, c := startWithConfig(t, fakemodel.New(t), "")
	checkWire(t, "mcp.status.none", wireCall(t, c, "mcp.status", nil))
}

// TestWireSkillsStatus pins skills.status for the default agent, a named
// one, an unknown one, and params it cannot read; and the skill directory
// a turn's system prompt carries.
func TestWireSkillsStatus(t *testing.T) {
	model := fakemodel.New(t)
	extra := t.TempDir()
	writeSkill(t, extra, "shared", "name: shared\ndescription: From an extra dir", "x", nil)
	r, c := startWithConfig(t, model, fmt.Sprintf(`skills: { load: { extraDirs: [%q] }, entries: { muted: { enabled: false } } },`, extra))
	ws := filepath.Join(r.dir, "workspace", "skills")
	writeSkill(t, ws, "weather", "name: weather\ndescription: Forecasts for a city", "Run scripts/forecast.sh.\n",
		map[string]string{"forecast.sh": "#!/bin/sh\necho sunny\n"})
	writeSkill(t, ws, "needs-tool", "name: needs-tool\ndescription: Needs a missing program\nrequires:\n  bins: [definitely-not-installed-xyz]", "x", nil)
	writeSkill(t, ws, "muted", "name: muted\ndescription: Switched off in the config", "x", nil)

	for _, tc := range []struct {
		name   string
		params any
	}{
		{"skills.status", map[string]any{}},
		{"skills.status.main", map[string]any{"agentId": "main"}},
		{"skills.status.unknown-agent", map[string]any{"agentId": "nobody"}},
		{"skills.status.bad-params", map[string]any{"agentId": 5}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkWire(t, tc.name, wireCall(t, c, "skills.status", tc.params)) })
	}

	model.Script(fakemodel.Reply{Text: "ok"})
	var final map[string]any
	if err := c.CallFinal(context.Background(), "agent", map[string]any{"message": "hi", "idempotencyKey": "dir-1"}, &final); err != nil {
		t.Fatal(err)
	}
	sys := model.Requests()[0].System
	i := strings.Index(sys, "## Skills")
	if i < 0 {
		t.Fatalf("no skill directory in the system prompt:\n%s", sys)
	}
	checkGolden(t, filepath.Join("wire", "skills.directory.txt"), []byte(sys[i:]+"\n"))
}
