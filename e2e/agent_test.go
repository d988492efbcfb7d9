package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// agentConfig points the gateway's default agent at a fake model server.
func agentConfig(modelURL string) string {
	return fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
}
`, modelURL+"/v1")
}

// TestRealCLIAgentTurn: the real `openclaw agent` holds a turn through our
// gateway with a fake model, and the transcript survives a restart.
func TestRealCLIAgentTurn(t *testing.T) {
	needRealCLI(t)
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	c := realClient(t, g)

	r := c.run(t, "agent", "--agent", "main", "--message", "hello-from-real-cli", "--json")
	r.mustSucceed(t)
	out, _ := decodeJSON(t, r).(map[string]any)
	if out["status"] != "ok" || !strings.Contains(r.Stdout, "echo: hello-from-real-cli") {
		t.Fatalf("agent result:\n%s", r)
	}

	// Our CLI, plain text, same session.
	ours := ourClient(t, g).run(t, "agent", "--message", "second message")
	ours.mustSucceed(t)
	if strings.TrimSpace(ours.Stdout) != "echo: second message" {
		t.Fatalf("our agent output: %q", ours.Stdout)
	}

	// Restart the gateway on the same state: the transcript is still there.
	g.restart(t)
	h := c.run(t, append([]string{"gateway", "call", "chat.history", "--json", "--params", `{"sessionKey":"agent:main:main"}`}, g.remote(g.Token)...)...)
	h.mustSucceed(t)
	for _, want := range []string{"hello-from-real-cli", "echo: hello-from-real-cli", "second message", "echo: second message"} {
		if !strings.Contains(h.Stdout, want) {
			t.Fatalf("history after restart lacks %q:\n%s", want, h.Stdout)
		}
	}
}

// TestAgentWithoutModelSaysWhatToSet: with no provider configured the
// gateway starts, and a message gets an answer naming the config key.
func TestAgentWithoutModelSaysWhatToSet(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	r := ourClient(t, g).run(t, "agent", "--message", "hi")
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "agents.defaults.model") {
		t.Fatalf("agent without a model:\n%s", r)
	}
}

// TestSubagentSpawnAnnouncesEndToEnd: through the built binary, a model's
// sessions_spawn starts a sub-agent whose result is announced back into
// the main session.
func TestSubagentSpawnAnnouncesEndToEnd(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "sessions_spawn", Arguments: `{"task":"measure the moon","label":"moon"}`}}})
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	c := ourClient(t, g)
	c.run(t, "agent", "--message", "please spawn a helper").mustSucceed(t)
	history := func() string {
		r := c.run(t, "gateway", "call", "chat.history", "--params", `{"sessionKey":"agent:main:main"}`)
		if r.Code != 0 {
			return ""
		}
		return r.Stdout
	}
	if !poll(30*time.Second, func() bool {
		h := history()
		return strings.Contains(h, "[Sub-agent moon finished") && strings.Contains(h, "echo: measure the moon")
	}) {
		t.Fatalf("no announcement in the main session:\n%s", history())
	}
	list := c.run(t, "gateway", "call", "sessions.list", "--params", `{}`)
	list.mustSucceed(t)
	if !strings.Contains(list.Stdout, `"agent:main:subagent:`) || !strings.Contains(list.Stdout, `"spawnedBy": "agent:main:main"`) {
		t.Fatalf("sessions.list lacks the sub-agent session:\n%s", list.Stdout)
	}
}
