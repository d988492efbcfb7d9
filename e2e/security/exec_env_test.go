package security

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/e2e/harness"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// TestExecEnvSteersAllowlistedGit (GHSA-j425-whc4-4jgc): the operator
// runs exec with security allowlist, asking on a miss, and git on the
// allowlist. The caller of exec (a prompt-injected model; here
// tools.invoke, which runs the same chain) asks for a plain `git status`
// in a repository of the workspace, with an env that sets core.fsmonitor
// to `touch <marker>` through GIT_CONFIG_COUNT/KEY/VALUE, beside a token.
// The env must not slip past the allowlist: the call waits for a person,
// the marker does not appear while it waits, the pending approval
// (exec.approval.requested and exec.approval.list) names every variable
// with its value and the token redacted, and after the person denies it
// the marker is still absent and audit.list shows the blocked call with
// its env.
func TestExecEnvSteersAllowlistedGit(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the attack uses sh and touch")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	if git, err = filepath.EvalSymlinks(git); err != nil {
		t.Fatal(err)
	}
	g := harness.Start(t, harness.Opts{Config: `{ gateway: { mode: "local" }, tools: { guard: { approvalTimeoutSeconds: 120 } } }`})
	admin, watcher := g.Admin(t), g.Admin(t)
	snap := harness.MustCall(t, admin, "exec.approvals.get", map[string]any{})
	harness.MustCall(t, admin, "exec.approvals.set", map[string]any{"baseHash": snap["hash"], "file": map[string]any{
		"version":  1,
		"defaults": map[string]any{"security": "allowlist", "ask": "on-miss", "askFallback": "deny"},
		"agents":   map[string]any{"*": map[string]any{"allowlist": []any{map[string]any{"pattern": git}}}},
	}})
	repo := filepath.Join(g.Workspace, "repo")
	if err := os.MkdirAll(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	marker := filepath.Join(g.Dir, "pwned")
	invoke := func(c *client.Client, args map[string]any) map[string]any {
		return harness.MustCall(t, c, "tools.invoke", json.RawMessage(`{"name":"exec","args":`+harness.JSON(t, args)+`}`))
	}

	// The allowlist covers git itself: without the env it runs unasked.
	if out := invoke(admin, map[string]any{"command": "git status", "workdir": "repo"}); out["ok"] != true {
		t.Fatalf("plain git status under the allowlist: %v", out)
	}

	env := map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor",
		"GIT_CONFIG_VALUE_0": "touch " + marker, "GH_TOKEN": "ghp_attackerplanted"}
	type answer struct {
		out map[string]any
		err error
	}
	result := make(chan answer, 1)
	attack := json.RawMessage(`{"name":"exec","args":` + harness.JSON(t, map[string]any{"command": "git status", "workdir": "repo", "env": env}) + `}`)
	go func() { // harness.Call, not MustCall: no FailNow off the test goroutine
		out, err := harness.Call(t, admin, "tools.invoke", attack)
		result <- answer{out, err}
	}()

	ev := nextBusEvent(t, watcher, "exec.approval.requested")
	req, _ := ev["request"].(map[string]any)
	var keys []string
	for _, k := range req["envKeys"].([]any) {
		keys = append(keys, fmt.Sprint(k))
	}
	wantKeys := []string{"GH_TOKEN", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"}
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("exec.approval.requested envKeys %v, want %v", keys, wantKeys)
	}
	shown := fmt.Sprint(req["args"])
	if !strings.Contains(shown, `"GIT_CONFIG_VALUE_0":"touch `+marker+`"`) || !strings.Contains(shown, `"GIT_CONFIG_KEY_0":"core.fsmonitor"`) ||
		strings.Contains(shown, "ghp_attackerplanted") || !strings.Contains(fmt.Sprint(req["reason"]), "GIT_CONFIG_COUNT") {
		t.Errorf("the approval does not show the env (token redacted): args %s reason %v", shown, req["reason"])
	}
	list := harness.MustCall(t, watcher, "exec.approval.list", map[string]any{})
	pending, _ := list["approvals"].([]any)
	if len(pending) != 1 || !strings.Contains(fmt.Sprint(pending[0]), "core.fsmonitor") || strings.Contains(fmt.Sprint(pending[0]), "ghp_attackerplanted") {
		t.Errorf("exec.approval.list = %v", pending)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the injected command ran before anyone approved")
	}

	harness.MustCall(t, watcher, "exec.approval.resolve", map[string]any{"id": ev["id"], "decision": "deny"})
	var out map[string]any
	select {
	case a := <-result:
		if a.err != nil {
			t.Fatalf("tools.invoke: %v", a.err)
		}
		out = a.out
	case <-time.After(2 * time.Minute):
		t.Fatal("exec did not return after the denial")
	}
	if out["ok"] != false || !strings.Contains(fmt.Sprint(out["output"]), "denied") {
		t.Errorf("denied exec answered %v", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the injected command ran although the approval was denied")
	}

	audit := harness.MustCall(t, admin, "audit.list", map[string]any{"kind": "tool_action", "status": "blocked"})
	events, _ := audit["events"].([]any)
	if len(events) == 0 {
		t.Fatalf("audit.list has no blocked call: %v", audit)
	}
	row, _ := events[0].(map[string]any)
	rowEnv, _ := row["env"].(map[string]any)
	if row["toolName"] != "exec" || rowEnv["GIT_CONFIG_VALUE_0"] != "touch "+marker || rowEnv["GH_TOKEN"] == "ghp_attackerplanted" || len(rowEnv) != len(env) {
		t.Errorf("audit row %v", row)
	}
}

// nextBusEvent waits for the next event called name.
func nextBusEvent(t *testing.T, c *client.Client, name string) map[string]any {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatal("connection closed")
			}
			if ev.Event != name {
				continue
			}
			var p map[string]any
			if err := json.Unmarshal(ev.Payload, &p); err != nil {
				t.Fatal(err)
			}
			return p
		case <-deadline:
			t.Fatalf("no %s event", name)
		}
	}
}
