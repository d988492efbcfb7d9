package agents

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/tools"
)

const twoAgents = `{models:{providers:{fake:{baseUrl:"%s/v1"}}},
	agents:{defaults:{model:"fake/echo-1"}, entries:{main:{subagents:{allowAgents:["helper"]}}, helper:{name:"Helper", description:"helps"}}}}`

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (f *fixture) transcript(t *testing.T, key string) []sessions.Message {
	t.Helper()
	s, err := f.store.Get(context.Background(), key)
	if err != nil {
		return nil
	}
	msgs, _ := f.store.History(context.Background(), s.SessionID, sessions.HistoryQuery{})
	return msgs
}

func TestSpawnAnnouncesBack(t *testing.T) {
	f := newFixture(t, twoAgents, nil)
	f.model.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "sessions_spawn", Arguments: `{"task":"count the stars","agentId":"helper","label":"stars"}`}}})
	res := f.run(t, StartRequest{Message: "spawn a helper"})
	if res.Status != "ok" {
		t.Fatalf("parent run: %+v", res)
	}
	msgs := f.transcript(t, "agent:main:main")
	var accepted map[string]any
	for _, m := range msgs {
		if m.Role == "tool" {
			json.Unmarshal([]byte(m.Text), &accepted)
		}
	}
	child, _ := accepted["childSessionKey"].(string)
	if accepted["status"] != "accepted" || !strings.HasPrefix(child, "agent:helper:subagent:") {
		t.Fatalf("spawn result = %v", accepted)
	}
	// The child ran in its own session, and its result was announced back.
	waitFor(t, "the announcement", func() bool {
		for _, m := range f.transcript(t, "agent:main:main") {
			if m.Role == "user" && strings.HasPrefix(m.Text, "[Sub-agent stars finished") && strings.Contains(m.Text, "echo: count the stars") {
				return true
			}
		}
		return false
	})
	cs, err := f.store.Get(context.Background(), child)
	if err != nil || cs.SpawnedBy != "agent:main:main" || cs.Depth != 1 {
		t.Fatalf("child session %+v, %v", cs, err)
	}
}

func TestDelegateAndSend(t *testing.T) {
	t.Run("delegateToAgent waits for the answer", func(t *testing.T) {
		f := newFixture(t, twoAgents, nil)
		f.model.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "d1", Name: "delegateToAgent", Arguments: `{"agentName":"Helper","task":"write a haiku"}`}}})
		f.run(t, StartRequest{Message: "delegate please"})
		var got string
		for _, m := range f.transcript(t, "agent:main:main") {
			if m.Role == "tool" {
				got = m.Text
			}
		}
		if got != "echo: write a haiku" {
			t.Fatalf("delegated result = %q", got)
		}
	})
	t.Run("sessions_send gets the reply, REPLY_SKIP is no reply", func(t *testing.T) {
		f := newFixture(t, twoAgents, nil)
		f.model.Script(
			fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "p1", Name: "sessions_send", Arguments: `{"agentId":"helper","message":"ping"}`}}},
			fakemodel.Reply{Text: "pong"},
			fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "p2", Name: "sessions_send", Arguments: `{"agentId":"helper","message":"again"}`}}},
			fakemodel.Reply{Text: ReplySkip},
		)
		f.run(t, StartRequest{Message: "talk to helper", Owner: true})
		var results []string
		for _, m := range f.transcript(t, "agent:main:main") {
			if m.Role == "tool" {
				results = append(results, m.Text)
			}
		}
		if len(results) != 2 || !strings.Contains(results[0], `"reply":"pong"`) || !strings.Contains(results[1], `"status":"no_reply"`) {
			t.Fatalf("send results = %q", results)
		}
		helper := f.transcript(t, "agent:helper:main")
		if len(helper) == 0 || !strings.Contains(helper[0].Text, "[Inter-session message from agent:main:main, isUser=false]\nping") {
			t.Fatalf("helper transcript = %+v", helper)
		}
	})
}

func TestSpawnLimits(t *testing.T) {
	f := newFixture(t, twoAgents, nil)
	tools := f.svc.opts.Tools
	call := func(turn *Turn, args string) ToolResult {
		return tools.Run(context.Background(), turn, providers.ToolCall{ID: "x", Name: "sessions_spawn", Arguments: json.RawMessage(args)})
	}
	tests := []struct {
		name string
		turn *Turn
		args string
		want string
	}{
		{"too deep", &Turn{AgentID: "main", SessionKey: "agent:main:subagent:a", Depth: 1}, `{"task":"x"}`, "maxSpawnDepth"},
		{"agent not allowed", &Turn{AgentID: "helper", SessionKey: "agent:helper:main"}, `{"task":"x","agentId":"main"}`, "may not spawn agent"},
		{"empty task", &Turn{AgentID: "main", SessionKey: "agent:main:main"}, `{"task":" "}`, "task is empty"},
		{"bad model", &Turn{AgentID: "main", SessionKey: "agent:main:main"}, `{"task":"x","model":"nomodel"}`, "provider/model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(tt.turn, tt.args)
			if !r.IsError || !strings.Contains(r.Text, tt.want) {
				t.Fatalf("result = %+v, want error containing %q", r, tt.want)
			}
		})
	}
	if f.svc.sub.running != 0 {
		t.Fatalf("refused spawns leaked %d slots", f.svc.sub.running)
	}
}

// TestDelegateTwiceThroughTheRegistry: a second delegation to the same
// agent gets a session (and label) of its own, and MateClaw's name for
// the tool, DelegateAgentTool, reaches it through the tools runner.
func TestDelegateTwiceThroughTheRegistry(t *testing.T) {
	f := newFixture(t, twoAgents, nil)
	reg := tools.NewRegistry()
	if err := reg.Register(f.svc.SessionTools()...); err != nil {
		t.Fatal(err)
	}
	reg.Alias("DelegateAgentTool", "delegateToAgent")
	f.svc.UseTools(&RegistryTools{Runner: &tools.Runner{Registry: reg}})
	f.model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "d1", Name: "delegateToAgent", Arguments: `{"agentName":"Helper","task":"first"}`}}},
		fakemodel.Reply{Text: "first answer"},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "d2", Name: "delegateToAgent", Arguments: `{"agentName":"helper","task":"second"}`}}},
		fakemodel.Reply{Text: "second answer"},
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "d3", Name: "DelegateAgentTool", Arguments: `{"agentName":"Helper","task":"third"}`}}},
		fakemodel.Reply{Text: "third answer"},
		fakemodel.Reply{Text: "all done"},
	)
	if res := f.run(t, StartRequest{Message: "delegate three times", Owner: true}); res.Status != "ok" {
		t.Fatalf("run: %+v", res)
	}
	var got []string
	for _, m := range f.transcript(t, "agent:main:main") {
		if m.Role == "tool" {
			got = append(got, m.Text)
		}
	}
	want := []string{"first answer", "second answer", "third answer"}
	if !slices.Equal(got, want) {
		t.Fatalf("delegation results = %q, want %q", got, want)
	}
}
