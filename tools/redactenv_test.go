package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestRedactEnv(t *testing.T) {
	env := map[string]string{
		"GITHUB_TOKEN": "ghp_x", "OPENAI_API_KEY": "sk-x", "AWS_SECRET_ACCESS_KEY": "a", "DB_PASSWORD": "p",
		"NPM_CONFIG__AUTH": "t", "PGPASSWD": "p", "SESSION_COOKIE": "c", "SSH_PRIVATE_KEY_FILE": "/k", "EMPTY_TOKEN": "",
		"GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "touch /tmp/pwned", "GIT_SSH_COMMAND": "ssh -i k",
		"LANG": "C", "KEYBOARD_LAYOUT": "us", "SSH_AUTH_SOCK": "/run/agent",
	}
	secret := []string{"GITHUB_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "NPM_CONFIG__AUTH", "PGPASSWD",
		"SESSION_COOKIE", "SSH_PRIVATE_KEY_FILE"}
	got := RedactEnv(env)
	for k, v := range env {
		want := v
		if slices.Contains(secret, k) {
			want = RedactedEnvValue
		}
		if got[k] != want {
			t.Errorf("RedactEnv[%s] = %q, want %q", k, got[k], want)
		}
	}
	if len(got) != len(env) {
		t.Errorf("RedactEnv kept %d names of %d: an approver must see every one", len(got), len(env))
	}
	if RedactEnv(nil) != nil || RedactEnv(map[string]string{}) != nil {
		t.Error("RedactEnv of no variables is not nil")
	}
}

// TestApprovalShowsEnv: a request whose arguments carry an env (exec's,
// also when the Tool Guard asks with the call's raw arguments) is stored,
// listed and announced with every variable name in envKeys and the
// secret-looking values redacted.
func TestApprovalShowsEnv(t *testing.T) {
	r, ap, ev, _ := newRunner(t, echoTool("exec"))
	r.Guard = fixedGuard{"exec": {Action: ActionRequireApproval, Rule: 0, Reason: "shell needs a person"}}
	args := `{"command":"git status","env":{"GIT_CONFIG_COUNT":"1","GIT_CONFIG_KEY_0":"core.fsmonitor","GIT_CONFIG_VALUE_0":"touch /tmp/x","GH_TOKEN":"ghp_secret"}}`
	done := make(chan Result, 1)
	go func() {
		done <- r.Run(context.Background(), Call{Name: "exec", Args: json.RawMessage(args), Who: Who{AgentID: "main"}})
	}()
	id := <-ev.seen
	wantKeys := []string{"GH_TOKEN", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"}

	list, err := ap.List(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v %v", list, err)
	}
	if !slices.Equal(list[0].EnvKeys, wantKeys) || strings.Contains(list[0].Args, "ghp_secret") ||
		!strings.Contains(list[0].Args, `"GIT_CONFIG_VALUE_0":"touch /tmp/x"`) || !strings.Contains(list[0].Args, RedactedEnvValue) {
		t.Errorf("pending %+v", list[0])
	}
	ev.mu.Lock()
	req := ev.list[0]["payload"].(ExecApprovalPayload).Request
	ev.mu.Unlock()
	if !slices.Equal(req.EnvKeys, wantKeys) {
		t.Errorf("event envKeys %v, want %v", req.EnvKeys, wantKeys)
	}
	if strings.Contains(req.Args, "ghp_secret") || !strings.Contains(req.Args, "core.fsmonitor") {
		t.Errorf("event args %q", req.Args)
	}
	if err := ap.Resolve(context.Background(), id, DecisionDeny); err != nil {
		t.Fatal(err)
	}
	if res := <-done; !res.IsError {
		t.Fatalf("denied call ran: %+v", res)
	}
}

// TestAuditNote: what a tool notes reaches its call's audit row, and the
// row's env survives the store.
func TestAuditNote(t *testing.T) {
	tool := &funcTool{spec: Spec{Name: "exec"}, fn: func(ctx context.Context, c Call) (Result, error) {
		NoteAudit(ctx, AuditNote{Env: map[string]string{"GIT_PAGER": "less", "API_TOKEN": RedactedEnvValue}})
		NoteAudit(ctx, AuditNote{ApprovalID: "a1", Decision: "denied", Reason: "allowlist miss: environment sets GIT_PAGER"})
		return Result{Text: "denied", IsError: true}, nil
	}}
	r, _, _, st := newRunner(t, tool, echoTool("plain"))
	r.Run(context.Background(), Call{Name: "exec", Args: json.RawMessage(`{}`), Who: Who{AgentID: "main"}})
	r.Run(context.Background(), Call{Name: "plain", Args: json.RawMessage(`{}`), Who: Who{AgentID: "main"}})
	NoteAudit(context.Background(), AuditNote{Decision: "denied"}) // outside a call: nothing to note, no panic
	recs, err := (&SQLAudit{DB: st.DB}).List(context.Background(), AuditQuery{})
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v %v", recs, err)
	}
	plain, exec := recs[0], recs[1]
	if exec.Decision != "denied" || exec.ApprovalID != "a1" || exec.Outcome() != OutcomeBlocked ||
		exec.Env["GIT_PAGER"] != "less" || exec.Env["API_TOKEN"] != RedactedEnvValue || !strings.Contains(exec.Reason, "GIT_PAGER") {
		t.Errorf("exec row %+v", exec)
	}
	if plain.Env != nil || plain.Decision != "allowed" {
		t.Errorf("plain row %+v", plain)
	}
}
