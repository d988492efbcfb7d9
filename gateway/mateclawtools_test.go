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
		tc("c1", "compliance_scan", `{"text":"稳赚不赔，全网最低价","extraBannedWords":["低价"]}`),
		tc("c2", "content_item", `{"action":"record","topic":"冬季护肤","platform":"xhs"}`),
		tc("c3", "content_item", `{"action":"check_recent","topic":"冬季 护肤!"}`),
		tc("c4", "wechat_article_extract", `{"url":"http://127.0.0.1:1/s/x"}`),
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
	if r := results["c1"]; !strings.Contains(r, `"passed":false`) || !strings.Contains(r, `"term":"稳赚不赔"`) || !strings.Contains(r, `"category":"extra"`) {
		t.Fatalf("compliance_scan: %q", r)
	}
	if r := results["c3"]; !strings.Contains(r, `"duplicate":true`) {
		t.Fatalf("content_item check_recent after record: %q", r)
	}
	if r := results["c4"]; !strings.Contains(r, "only https://mp.weixin.qq.com/") {
		t.Fatalf("wechat_article_extract fetched another host: %q", r)
	}
}
