package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// pendingExecApprovals lists the pending approvals' tools.
func pendingExecApprovals(t *testing.T, c *client) []string {
	t.Helper()
	r := c.run(t, "gateway", "call", "exec.approval.list", "--params", "{}")
	r.mustSucceed(t)
	var out struct {
		Approvals []struct {
			ID   string `json:"id"`
			Tool string `json:"tool"`
		} `json:"approvals"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("exec.approval.list: %v\n%s", err, r.Stdout)
	}
	var tools []string
	for _, a := range out.Approvals {
		tools = append(tools, a.Tool+" "+a.ID)
	}
	return tools
}

// TestExecSecurityFullRunsUnasked: with tools.exec.security "full" and
// ask "off" in the config, the model's exec call runs in its agent turn
// with no approval asked, as in OpenClaw.
func TestExecSecurityFullRunsUnasked(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), `{ exec: { security: "full", ask: "off" } }`)})
	marker := filepath.Join(g.Dir, "made-by-exec")
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "e1", Name: "exec", Arguments: fmt.Sprintf(`{"command":"touch %s && echo ran-unasked"}`, marker)}}},
		fakemodel.Reply{Text: "done"},
	)
	c := ourClient(t, g)
	c.run(t, "agent", "--message", "make the file").mustSucceed(t)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	h := c.run(t, "gateway", "call", "chat.history", "--params", `{"sessionKey":"agent:main:main"}`)
	h.mustSucceed(t)
	if !strings.Contains(h.Stdout, "ran-unasked") {
		t.Fatalf("history lacks the exec output:\n%s", h.Stdout)
	}
	if p := pendingExecApprovals(t, c); len(p) != 0 {
		t.Fatalf("approvals asked: %v", p)
	}
	a := c.run(t, "gateway", "call", "audit.list", "--params", `{"limit":10}`)
	a.mustSucceed(t)
	if strings.Contains(a.Stdout, `"approvalId"`) && strings.Contains(a.Stdout, `"approved"`) {
		t.Fatalf("the audit shows an approval:\n%s", a.Stdout)
	}
}

// TestExecDefaultStillAsks: with nothing configured, the same call waits
// for a person (our safer default); denied, the command never runs.
func TestExecDefaultStillAsks(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), `{}`)})
	marker := filepath.Join(g.Dir, "made-by-exec")
	// The model also asks for security full and ask off in its call, as a
	// prompt-injected one would: its arguments can only tighten.
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "e1", Name: "exec", Arguments: fmt.Sprintf(`{"command":"touch %s","security":"full","ask":"off"}`, marker)}}},
		fakemodel.Reply{Text: "done"},
	)
	c := ourClient(t, g)
	var wg sync.WaitGroup
	var turn result
	wg.Add(1)
	go func() { defer wg.Done(); turn = c.run(t, "agent", "--message", "make the file") }()
	var pending []string
	if !poll(60*time.Second, func() bool { pending = pendingExecApprovals(t, c); return len(pending) == 1 }) {
		t.Fatalf("no approval asked; pending %v", pending)
	}
	tool, id, _ := strings.Cut(pending[0], " ")
	if tool != "exec" {
		t.Fatalf("pending %v", pending)
	}
	c.run(t, "gateway", "call", "exec.approval.resolve", "--params", fmt.Sprintf(`{"id":%q,"decision":"deny"}`, id)).mustSucceed(t)
	wg.Wait()
	turn.mustSucceed(t)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a denied command ran")
	}
}

// TestExecSafeBinCannotSmuggleACommand: in allowlist mode with ask off and
// head as a safe bin, a command line that starts with head but chains a
// second command, or hides one in head's argument, is denied whole.
func TestExecSafeBinCannotSmuggleACommand(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), `{ exec: { mode: "allowlist", safeBins: ["head"] } }`)})
	marker := filepath.Join(g.Dir, "pwned")
	var calls []fakemodel.ToolCall
	for i, cmd := range []string{
		"head -n 1 </dev/null; touch " + marker,
		"head -n 1 && touch " + marker,
		"head -n $(touch " + marker + ")",
		"head -n 1 " + marker,
	} {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		calls = append(calls, fakemodel.ToolCall{ID: fmt.Sprintf("s%d", i), Name: "exec", Arguments: string(args)})
	}
	model.Script(fakemodel.Reply{ToolCalls: calls}, fakemodel.Reply{Text: "done"})
	c := ourClient(t, g)
	c.run(t, "agent", "--message", "try").mustSucceed(t)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a command smuggled through a safe bin ran")
	}
	h := c.run(t, "gateway", "call", "chat.history", "--params", `{"sessionKey":"agent:main:main"}`)
	h.mustSucceed(t)
	if n := strings.Count(h.Stdout, `\"status\":\"denied\"`); n != len(calls) {
		t.Fatalf("%d of %d calls denied:\n%s", n, len(calls), h.Stdout)
	}
	if p := pendingExecApprovals(t, c); len(p) != 0 {
		t.Fatalf("ask off asked: %v", p)
	}
}
