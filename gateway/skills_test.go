package gateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func writeSkill(t *testing.T, dir, name, front, body string, scripts map[string]string) {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Join(d, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("---\n"+front+"\n---\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	for n, src := range scripts {
		if err := os.WriteFile(filepath.Join(d, "scripts", n), []byte(src), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSkillsInATurn: the directory is in the system prompt, load_skill
// brings the instructions into the conversation (and they stay for the
// next turn), and the skill's script runs through exec's checks.
func TestSkillsInATurn(t *testing.T) {
	model := fakemodel.New(t)
	r, c := startWithConfig(t, model, "")
	skillsDir := filepath.Join(r.dir, "workspace", "skills")
	writeSkill(t, skillsDir, "weather", "name: weather\ndescription: Forecasts for a city", "To forecast, run scripts/forecast.sh with the city.\n",
		map[string]string{"forecast.sh": "#!/bin/sh\necho \"sunny in $1 (from $SKILL_NAME)\"\n"})
	writeSkill(t, skillsDir, "needs-tool", "name: needs-tool\ndescription: Needs a missing program\nrequires:\n  bins: [definitely-not-installed-xyz]", "x", nil)

	st := call[map[string]any](t, c, "skills.status", map[string]any{})
	status := map[string]string{}
	for _, s := range st["skills"].([]any) {
		m := s.(map[string]any)
		status[m["name"].(string)] = m["status"].(string) + " " + m["reason"].(string)
	}
	if !strings.HasPrefix(status["weather"], "available") || !strings.Contains(status["needs-tool"], "definitely-not-installed-xyz") {
		t.Fatalf("skills.status: %v", status)
	}

	tc := func(id, name, args string) fakemodel.Reply {
		return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: id, Name: name, Arguments: args}}}
	}
	model.Script(
		tc("s1", "load_skill", `{"skillName":"weather"}`),
		tc("e1", "enable_tool", `{"toolName":"skill_script"}`), // an extension-tier tool
		tc("s2", "skill_script", `{"skillName":"weather","script":"forecast.sh","args":["Paris; echo pwned"]}`),
		fakemodel.Reply{Text: "It is sunny."},
		fakemodel.Reply{Text: "Still sunny."},
	)
	// The script is not on the exec allowlist, so a person is asked, as
	// for any exec: the operator allows it once.
	turn := make(chan error, 1)
	var final map[string]any
	go func() {
		turn <- c.CallFinal(context.Background(), "agent", map[string]any{"message": "weather in Paris?", "idempotencyKey": "sk-1"}, &final)
	}()
	ask := nextEvent(t, c, "exec.approval.requested", nil)
	if !strings.Contains(fmt.Sprint(ask), "forecast.sh") {
		t.Fatalf("approval request: %v", ask)
	}
	// SKILL_NAME and SKILL_DIR are the gateway's, set beside the command:
	// they are not an env override the policy would ask about.
	if strings.Contains(fmt.Sprint(ask), "SKILL_DIR") {
		t.Fatalf("the approval asks about the gateway's own SKILL_* variables: %v", ask)
	}
	call[map[string]any](t, c, "exec.approval.resolve", map[string]any{"id": ask["id"], "decision": "allow-once"})
	if err := <-turn; err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	if !strings.Contains(reqs[0].System, "## Skills") || !strings.Contains(reqs[0].System, "weather: Forecasts for a city") ||
		strings.Contains(reqs[0].System, "needs-tool") {
		t.Fatalf("system prompt's skills:\n%s", reqs[0].System)
	}
	results := map[string]string{}
	for _, m := range reqs[3].Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Text
		}
	}
	if !strings.Contains(results["s1"], "run scripts/forecast.sh") {
		t.Fatalf("load_skill result: %q", results["s1"])
	}
	// The argument reached the script as one argument, not as shell code.
	if !strings.Contains(results["s2"], "sunny in Paris; echo pwned (from weather)") {
		t.Fatalf("skill_script result: %q", results["s2"])
	}
	if reqs[0].System != reqs[1].System {
		t.Fatal("loading a skill changed the system prompt")
	}
	// The next turn still has the skill's instructions in its history.
	if err := c.CallFinal(context.Background(), "agent", map[string]any{"message": "and tomorrow?", "idempotencyKey": "sk-2"}, &final); err != nil {
		t.Fatal(err)
	}
	last := model.Requests()[len(model.Requests())-1]
	found := false
	for _, m := range last.Messages {
		found = found || strings.Contains(m.Text, "run scripts/forecast.sh")
	}
	if !found {
		t.Fatal("the loaded skill is gone from the next turn")
	}
}

// TestSkillScriptNeedsExec: an agent whose policy denies exec cannot run
// skill scripts either.
func TestSkillScriptNeedsExec(t *testing.T) {
	model := fakemodel.New(t)
	r, c := startWithConfig(t, model, `tools: { deny: ["exec"] },`)
	writeSkill(t, filepath.Join(r.dir, "workspace", "skills"), "weather", "name: weather\ndescription: Forecasts",
		"x", map[string]string{"forecast.sh": "#!/bin/sh\necho sunny\n"})
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "skill_script", "sessionKey": "agent:main:main",
		"args": map[string]any{"skillName": "weather", "script": "forecast.sh"}})
	if res["ok"] == true || strings.Contains(res["output"].(string), "sunny") {
		t.Fatalf("a script ran without exec: %v", res)
	}
}

// TestSkillManageAsksFirst: writing a skill needs a person's approval by
// default; a guard rule may allow it.
func TestSkillManageAsksFirst(t *testing.T) {
	_, c := startWithConfig(t, fakemodel.New(t), `tools: { guard: { approvalTimeoutSeconds: 1 } },`)
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "skill_manage", "sessionKey": "agent:main:main",
		"args": map[string]any{"action": "create", "skillName": "notes", "content": "---\nname: notes\ndescription: Take notes\n---\nWrite notes.\n"}})
	if res["ok"] == true || !strings.Contains(fmt.Sprint(res["output"]), "not approved") {
		t.Fatalf("skill_manage without approval: %v", res)
	}
	_, c = startWithConfig(t, fakemodel.New(t), `tools: { guard: { rules: [{ tool: "skill_manage", action: "allow" }] } },`)
	res = call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "skill_manage", "sessionKey": "agent:main:main",
		"args": map[string]any{"action": "create", "skillName": "notes", "content": "---\nname: notes\ndescription: Take notes\n---\nWrite notes.\n"}})
	if res["ok"] != true {
		t.Fatalf("skill_manage allowed by a rule: %v", res)
	}
}

// TestSkillsOffWithLoadSkillDenied: denying load_skill takes the skill
// directory out of the prompt too.
func TestSkillsOffWithLoadSkillDenied(t *testing.T) {
	model := fakemodel.New(t)
	r, c := startWithConfig(t, model, `tools: { deny: ["load_skill"] },`)
	writeSkill(t, filepath.Join(r.dir, "workspace", "skills"), "weather", "name: weather\ndescription: Forecasts", "x", nil)
	model.Script(fakemodel.Reply{Text: "ok"})
	var final map[string]any
	if err := c.CallFinal(context.Background(), "agent", map[string]any{"message": "hi", "idempotencyKey": "off-1"}, &final); err != nil {
		t.Fatal(err)
	}
	if sys := model.Requests()[0].System; strings.Contains(sys, "## Skills") {
		t.Fatalf("skills directory shown with load_skill denied:\n%s", sys)
	}
}
