package gateway

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestToolsSchemas: the caller's allowed tools with their schemas, what
// `openclaw mcp serve` offers; a denied tool is not offered.
func TestToolsSchemas(t *testing.T) {
	_, c := startWithConfig(t, fakemodel.New(t), `tools: { deny: ["exec"] },`)
	res := call[struct {
		Tools []struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}](t, c, "tools.schemas", map[string]any{"agentId": "main"})
	byName := map[string]json.RawMessage{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool.Parameters
	}
	if _, ok := byName["exec"]; ok {
		t.Fatal("a denied tool is offered")
	}
	var schema struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(byName["read"], &schema); err != nil || schema.Type != "object" || schema.Properties["path"] == nil {
		t.Fatalf("read's schema: %s (%v)", byName["read"], err)
	}
	if len(byName) < 10 {
		t.Fatalf("only %d tools offered: %v", len(byName), fmt.Sprint(byName))
	}
}
