package gateway

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func TestLLMTaskThroughToolsInvoke(t *testing.T) {
	model := fakemodel.New(t)
	_, c := startWithConfig(t, model, `plugins: { entries: { "llm-task": { enabled: true } } },`)
	model.Script(fakemodel.Reply{Text: `{"priority":"high"}`})
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "llm-task", "sessionKey": "agent:main:main",
		"args": map[string]any{"prompt": "triage", "input": map[string]any{"title": "db down"},
			"schema": map[string]any{"type": "object", "required": []string{"priority"}}}})
	if res["ok"] != true || res["output"] != `{"priority":"high"}` {
		t.Fatalf("llm-task: %v", res)
	}
	got := model.Requests()[0]
	if !strings.Contains(got.System, "one JSON value") || len(got.Tools) != 0 || !strings.Contains(lastUserText(got), "db down") {
		t.Fatalf("the model call: system %q tools %d message %q", got.System, len(got.Tools), lastUserText(got))
	}
}

func TestLLMTaskIsOptional(t *testing.T) {
	_, c := startWithConfig(t, fakemodel.New(t), "")
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "llm-task", "args": map[string]any{"prompt": "x"}})
	if res["ok"] == true || !strings.Contains(fmt.Sprint(res["output"]), "unknown tool") {
		t.Fatalf("llm-task without plugins.entries.llm-task.enabled: %v", res)
	}
}
