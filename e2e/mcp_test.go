package e2e

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServe: an MCP client (the official Go SDK) starts `openclaw mcp
// serve` against our gateway and uses its tools; the gateway's policy and
// Tool Guard decide what it may do, as they do for the agent.
func TestMCPServe(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{Config: `{
  gateway: { mode: "local" },
  tools: { deny: ["exec"], guard: { rules: [{ tool: "FileTypeDetectorTool", action: "deny" }] } },
}
`})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, needOurBin(t), append([]string{"mcp", "serve"}, g.remote(g.Token)...)...)
	cmd.Env = g.Env
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range list.Tools {
		names[tool.Name] = true
	}
	if !names["DateTimeTool"] || !names["read"] || names["exec"] {
		t.Fatalf("served tools: %v", names)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "DateTimeTool", Arguments: map[string]any{"timezone": "UTC"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "20") {
		t.Fatalf("DateTimeTool: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "FileTypeDetectorTool", Arguments: map[string]any{"path": "x"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "tool guard") {
		t.Fatalf("a guarded tool through MCP: %v %+v", err, res)
	}
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
