package host

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

// TestSystemRunEnvAttack performs GHSA-j425-whc4-4jgc against the node
// host: git is on the node's allowlist, and system.run asks for
// `git status` in a repository with an env that sets core.fsmonitor to
// `touch <marker>` (or points ssh at it, or HOME at a hostile
// .gitconfig). Unapproved, the node refuses with approval-required and
// the marker never appears; system.run.prepare shows the env in its plan
// and names each variable in its verdict. An approved run of that plan
// does create the marker, which proves the case is a real attack.
func TestSystemRunEnvAttack(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the attacks use sh and touch")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	if git, err = filepath.EvalSymlinks(git); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"GIT_CONFIG_COUNT", "GIT_SSH_COMMAND", "GIT_SSH"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	ctx := context.Background()
	cases := []struct {
		name string
		argv []string
		env  func(marker, home string) map[string]string
	}{
		{"GIT_CONFIG core.fsmonitor", []string{"git", "status"}, func(m, _ string) map[string]string {
			return map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "touch " + m}
		}},
		{"GIT_SSH_COMMAND", []string{"git", "ls-remote", "ssh://example.invalid/repo"}, func(m, _ string) map[string]string {
			return map[string]string{"GIT_SSH_COMMAND": "touch " + m}
		}},
		{"HOME with a hostile .gitconfig", []string{"git", "status"}, func(_, home string) map[string]string {
			return map[string]string{"HOME": home}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			repo, dir := t.TempDir(), t.TempDir()
			if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			marker, home := filepath.Join(dir, "pwned"), filepath.Join(dir, "home")
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\tfsmonitor = touch "+marker+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			h := newTestHost(t, "", "")
			snap, _ := h.approvals.Get()
			f := execapprovals.File{Version: 1, Defaults: execapprovals.Settings{Security: "allowlist", Ask: "on-miss"},
				Agents: map[string]execapprovals.AgentFile{"*": {Allowlist: []execapprovals.AllowEntry{{Pattern: git}}}}}
			if _, err := h.approvals.Set(f, snap.Hash); err != nil {
				t.Fatal(err)
			}
			env := tc.env(marker, home)
			params := map[string]any{"command": tc.argv, "cwd": repo, "agentId": "main", "sessionKey": "agent:main:main"}
			if _, perr := h.run(ctx, mustJSON(t, params), 0); perr != nil {
				t.Fatalf("without the env, git is allowlisted and must run: %v", perr)
			}
			params["env"] = env

			_, perr := h.run(ctx, mustJSON(t, params), 0)
			if perr == nil || perr.Code != protocol.CodeSystemRunDenied || detailString(perr, "reason") != "approval-required" {
				t.Fatalf("unapproved run: %v, want SYSTEM_RUN_DENIED approval-required", perr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the injected command ran without approval")
			}

			out, perr := h.prepare(ctx, mustJSON(t, params), 0)
			if perr != nil {
				t.Fatal(perr)
			}
			var prep struct {
				Plan     map[string]any `json:"plan"`
				Decision struct {
					Outcome string   `json:"outcome"`
					Misses  []string `json:"misses"`
				} `json:"decision"`
			}
			if err := json.Unmarshal(mustJSON(t, out), &prep); err != nil {
				t.Fatal(err)
			}
			shown, _ := prep.Plan["env"].(map[string]any)
			misses := strings.Join(prep.Decision.Misses, "\n")
			for k, v := range env {
				if shown[k] != v {
					t.Errorf("plan env %s=%v, want %q", k, shown[k], v)
				}
				if !strings.Contains(misses, "environment sets "+k) {
					t.Errorf("verdict misses %q do not name %s", prep.Decision.Misses, k)
				}
			}
			if prep.Decision.Outcome != "ask" {
				t.Fatalf("verdict %q, want ask", prep.Decision.Outcome)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("preparing the plan ran the injected command")
			}

			params["systemRunPlan"] = prep.Plan
			params["approvalDecision"] = "allow-once"
			if _, perr := h.run(ctx, mustJSON(t, params), 0); perr != nil {
				t.Fatalf("approved run: %v", perr)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("approved, yet the injected command did not run (%v): the case does not test an attack", err)
			}
		})
	}
}

// TestSystemRunEnvRules: what no approval can allow is refused outright,
// and the safe variables pass an allowlisted command unasked.
func TestSystemRunEnvRules(t *testing.T) {
	ctx := context.Background()
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Skip("no echo")
	}
	if echo, err = filepath.EvalSymlinks(echo); err != nil {
		t.Fatal(err)
	}
	h := newTestHost(t, "", "")
	snap, _ := h.approvals.Get()
	f := execapprovals.File{Version: 1, Defaults: execapprovals.Settings{Security: "allowlist", Ask: "off"},
		Agents: map[string]execapprovals.AgentFile{"*": {Allowlist: []execapprovals.AllowEntry{{Pattern: echo}}}}}
	if _, err := h.approvals.Set(f, snap.Hash); err != nil {
		t.Fatal(err)
	}
	for _, env := range []map[string]string{{"PATH": "/tmp"}, {"ld_preload": "/x.so"}, {"ENV": "/x"}, {"BASH_FUNC_echo%%": "() { :; }"}} {
		_, perr := h.run(ctx, mustJSON(t, map[string]any{"command": []string{"echo", "x"}, "env": env}), 0)
		if perr == nil || perr.Code != protocol.CodeInvalidRequest {
			t.Errorf("env %v: %v, want INVALID_REQUEST", env, perr)
		}
	}
	v, perr := h.run(ctx, mustJSON(t, map[string]any{"command": []string{"echo", "x"}, "env": map[string]string{"LANG": "C", "TZ": "UTC", "NO_COLOR": "1"}}), 0)
	if perr != nil || !decodeRun(t, v).Success {
		t.Fatalf("safe env: %v %v", v, perr)
	}
	_, perr = h.run(ctx, mustJSON(t, map[string]any{"command": []string{"echo", "x"}, "env": map[string]string{"GIT_PAGER": "less"}}), 0)
	if perr == nil || perr.Code != protocol.CodeSystemRunDenied || !strings.Contains(perr.Message, "GIT_PAGER") {
		t.Fatalf("ask=off with a steering variable: %v, want SYSTEM_RUN_DENIED naming it", perr)
	}
}
