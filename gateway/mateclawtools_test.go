package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestMateClawToolsInATurn has the model call MateClaw's doc tool and
// ShellExecuteTool by their names in one agent turn and checks what the
// model was given back.
func TestMateClawToolsInATurn(t *testing.T) {
	model := fakemodel.New(t)
	_, c := startWithConfig(t, model, `tools: { exec: { security: "full", ask: "off" } },`)
	tc := func(id, name, args string) fakemodel.Reply {
		return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: id, Name: name, Arguments: args}}}
	}
	model.Script(
		tc("d1", "MateClawDocTool", `{"query":"Switching from OpenClaw migrate"}`),
		tc("d2", "MateClawDocTool", `{"path":"../openclaw.json"}`),
		tc("x1", "ShellExecuteTool", `{"command":"printf hello; exit 2"}`),
		fakemodel.Reply{Text: "done"},
	)
	var final map[string]any
	if err := c.CallFinal(context.Background(), "agent", map[string]any{"message": "how do I switch?", "idempotencyKey": "mc-1"}, &final); err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	results := map[string]string{}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Text
		}
	}
	if !strings.Contains(results["d1"], "README.md") || !strings.Contains(results["d1"], "openclaw migrate") {
		t.Fatalf("doc search: %q", results["d1"])
	}
	if !strings.Contains(results["d2"], "no document") {
		t.Fatalf("doc tool read outside its documents: %q", results["d2"])
	}
	if !strings.Contains(results["x1"], `{"exitCode":2,"stdout":"hello","stderr":"","timedOut":false}`) {
		t.Fatalf("ShellExecuteTool result: %q", results["x1"])
	}
}
