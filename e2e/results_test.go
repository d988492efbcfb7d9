package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestToolResultsThroughAnAgentTurn drives agent turns with the fake model
// through the built binary: `read` pages a file of one giant line by
// column, every page under the runner's cap with its continuation hint,
// until the pages give back the whole line; then delegateToAgent is
// called twice and by MateClaw's name DelegateAgentTool, and each gets the
// helper's answer. A new workspace starts with OpenClaw's bootstrap files.
func TestToolResultsThroughAnAgentTurn(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" }, entries: { main: {}, helper: { name: "Helper" } } },
}
`, model.URL()+"/v1")})
	c := ourClient(t, g)
	ws := filepath.Join(g.StateDir, "workspace")
	for _, name := range []string{"AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md"} {
		if _, err := os.Stat(filepath.Join(ws, name)); err != nil {
			t.Errorf("the new workspace lacks %s: %v", name, err)
		}
	}

	var line strings.Builder
	for i := range 60_000 {
		if i%7 == 0 {
			line.WriteRune('界')
		} else {
			line.WriteByte(byte('a' + i%26))
		}
	}
	want := line.String()
	if err := os.WriteFile(filepath.Join(ws, "giant.txt"), []byte(want+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// lastToolResult is the tool message the model was sent last.
	lastToolResult := func() string {
		reqs := model.Requests()
		msgs := reqs[len(reqs)-1].Messages
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == "tool" {
				return msgs[i].Text
			}
		}
		t.Fatal("the model was sent no tool result")
		return ""
	}
	hint := regexp.MustCompile(`\n\[truncated[^\]]*nextStartLine=1 nextStartColumn=(\d+)\]$`)
	var got strings.Builder
	args := `{"path":"giant.txt"}`
	for page := 0; ; page++ {
		if page > 12 {
			t.Fatal("too many pages")
		}
		model.Script(fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: fmt.Sprintf("r%d", page), Name: "read", Arguments: args}}}, fakemodel.Reply{Text: "read a page"})
		c.run(t, "agent", "--message", fmt.Sprintf("read page %d", page)).mustSucceed(t)
		text := lastToolResult()
		if n := utf8.RuneCountInString(text); n > 16_000 {
			t.Fatalf("page %d has %d characters, over the runner's cap", page, n)
		}
		_, body, _ := strings.Cut(text, "\n") // the header line
		m := hint.FindStringSubmatch(body)
		if m == nil {
			if strings.Contains(body, "[output truncated") || strings.Contains(body, "[truncated") {
				t.Fatalf("page %d was cut without its hint: ...%s", page, body[max(0, len(body)-200):])
			}
			got.WriteString(body)
			break
		}
		got.WriteString(body[:len(body)-len(m[0])])
		col, _ := strconv.Atoi(m[1])
		args = fmt.Sprintf(`{"path":"giant.txt","startLine":1,"startColumn":%d}`, col)
	}
	if got.String() != want {
		t.Fatalf("the pages give back %d characters, want %d", utf8.RuneCountInString(got.String()), utf8.RuneCountInString(want))
	}

	// Delegation, twice to the same agent, then by MateClaw's name.
	var script []fakemodel.Reply
	for i, name := range []string{"delegateToAgent", "delegateToAgent", "DelegateAgentTool"} {
		script = append(script,
			fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: fmt.Sprintf("d%d", i), Name: name, Arguments: fmt.Sprintf(`{"agentName":"Helper","task":"task %d"}`, i)}}},
			fakemodel.Reply{Text: fmt.Sprintf("helper answer %d", i)})
	}
	model.Script(append(script, fakemodel.Reply{Text: "all delegated"})...)
	c.run(t, "agent", "--message", "delegate three times").mustSucceed(t)
	var results []string
	reqs := model.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" && strings.HasPrefix(m.ToolCallID, "d") {
			results = append(results, m.Text)
		}
	}
	if strings.Join(results, "|") != "helper answer 0|helper answer 1|helper answer 2" {
		t.Fatalf("delegation results %q", results)
	}
}
