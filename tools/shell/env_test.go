package shell

import (
	"context"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
)

// recordingApprover answers every request with ok and keeps them.
type recordingApprover struct {
	ok bool

	mu    sync.Mutex
	asked []tools.ApprovalRequest
}

func (r *recordingApprover) Approve(_ context.Context, req tools.ApprovalRequest) (bool, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req)
	return r.ok, "approval-1", nil
}

// gitAllowlisted is the setup of GHSA-j425-whc4-4jgc: security allowlist
// with git on it, asking on a miss, denying when nobody can be asked.
func gitAllowlisted(t *testing.T) execpolicy.Policy {
	t.Helper()
	git, err := osexec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	if git, err = filepath.EvalSymlinks(git); err != nil {
		t.Fatal(err)
	}
	p := execpolicy.DefaultPolicy()
	p.Security, p.Ask, p.AskFallback = execpolicy.SecurityAllowlist, execpolicy.AskOnMiss, execpolicy.SecurityDeny
	p.Allowlist = []execpolicy.Entry{{Pattern: git}}
	return p
}

// envAttack is one environment trick that makes an allowlisted git run
// `touch <marker>`.
type envAttack struct {
	name    string
	command string
	env     func(marker, home string) map[string]string
	pty     bool // the pager only runs on a terminal
}

var envAttacks = []envAttack{
	{name: "GIT_CONFIG core.fsmonitor", command: "git status", env: func(m, _ string) map[string]string {
		return map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "touch " + m}
	}},
	{name: "GIT_CONFIG core.pager", command: "git -p status", pty: true, env: func(m, _ string) map[string]string {
		return map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.pager", "GIT_CONFIG_VALUE_0": "touch " + m}
	}},
	{name: "GIT_PAGER", command: "git -p status", pty: true, env: func(m, _ string) map[string]string {
		return map[string]string{"GIT_PAGER": "touch " + m}
	}},
	{name: "PAGER", command: "git -p status", pty: true, env: func(m, _ string) map[string]string {
		return map[string]string{"PAGER": "touch " + m}
	}},
	{name: "GIT_SSH_COMMAND beside a token", command: "git ls-remote ssh://example.invalid/repo", env: func(m, _ string) map[string]string {
		return map[string]string{"GIT_SSH_COMMAND": "touch " + m, "GITHUB_TOKEN": "ghp_secretvalue"}
	}},
	{name: "HOME with a hostile .gitconfig", command: "git status", env: func(_, home string) map[string]string {
		return map[string]string{"HOME": home}
	}},
	{name: "XDG_CONFIG_HOME with a hostile git/config", command: "git status", env: func(_, home string) map[string]string {
		return map[string]string{"XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	}},
}

// attackSetup makes a git repository as the workspace, a marker path the
// injected command would create, and a home whose git configuration
// runs it.
func attackSetup(t *testing.T) (ws, marker, home string) {
	t.Helper()
	ws, dir := t.TempDir(), t.TempDir()
	marker = filepath.Join(dir, "pwned")
	home = filepath.Join(dir, "home")
	hook := "[core]\n\tfsmonitor = touch " + marker + "\n"
	for _, f := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(hook), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := osexec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return ws, marker, home
}

// callExec runs exec through a Runner, as the gateway does, and returns
// the result and the audit row.
func callExec(t *testing.T, cfg Config, args map[string]any) (Result, tools.AuditEntry) {
	t.Helper()
	procs := NewProcesses()
	t.Cleanup(procs.Close)
	reg := tools.NewRegistry()
	if err := reg.Register(Tools(cfg, procs)...); err != nil {
		t.Fatal(err)
	}
	audit := &auditRecorder{}
	runner := &tools.Runner{Registry: reg, Auditor: audit}
	raw, _ := json.Marshal(args)
	res := runner.Run(context.Background(), tools.Call{Name: "exec", Args: raw, Who: tools.Who{AgentID: "main", SessionKey: "agent:main:main", Owner: true}})
	var r Result
	if err := json.Unmarshal([]byte(res.Text), &r); err != nil {
		r = Result{Status: "error", Note: res.Text}
	}
	if len(audit.entries) != 1 {
		t.Fatalf("%d audit rows, want 1", len(audit.entries))
	}
	return r, audit.entries[0]
}

type auditRecorder struct {
	mu      sync.Mutex
	entries []tools.AuditEntry
}

func (a *auditRecorder) Audit(_ context.Context, e tools.AuditEntry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries = append(a.entries, e)
}

// TestExecEnvAttacks performs GHSA-j425-whc4-4jgc against the exec tool:
// git is allowlisted, and the model passes an env that makes git run
// `touch <marker>`. Nobody able to approve: the call is denied and the
// marker never appears. A person asked who says no: the request shows
// every variable (a token's value redacted), nothing runs, and the audit
// row keeps the env and says denied. The same person saying yes makes
// the marker appear, which proves each case is a real attack.
func TestExecEnvAttacks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the attacks use sh and touch")
	}
	pol := gitAllowlisted(t)
	// The PAGER case must not be shadowed by a GIT_PAGER of the test's own
	// environment, which the command inherits.
	for _, k := range []string{"GIT_PAGER", "GIT_CONFIG_COUNT", "GIT_SSH_COMMAND", "GIT_SSH"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	for _, tc := range envAttacks {
		t.Run(tc.name, func(t *testing.T) {
			ws, marker, home := attackSetup(t)
			env := tc.env(marker, home)
			args := map[string]any{"command": tc.command, "env": env, "pty": tc.pty, "yieldMs": 60_000}
			cfg := Config{Workspace: func(tools.Who) (string, error) { return ws, nil }, Policy: func(string) execpolicy.Policy { return pol }}

			r, row := callExec(t, cfg, args)
			if r.Status != "denied" {
				t.Errorf("without an approver: status %q (%s), want denied", r.Status, r.Note)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the injected command ran without approval")
			}
			if row.Decision != "denied" || len(row.Env) != len(env) {
				t.Errorf("audit row: decision %q env %v, want denied with %d variables", row.Decision, row.Env, len(env))
			}

			no := &recordingApprover{ok: false}
			cfg.Approver = no
			r, row = callExec(t, cfg, args)
			if r.Status != "denied" || len(no.asked) != 1 {
				t.Fatalf("refused approval: status %q, asked %d times", r.Status, len(no.asked))
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the injected command ran although the approval was refused")
			}
			var shown struct {
				Command string            `json:"command"`
				Env     map[string]string `json:"env"`
			}
			if err := json.Unmarshal(no.asked[0].Args, &shown); err != nil {
				t.Fatal(err)
			}
			for k, v := range env {
				want := v
				if tools.SecretEnvName(k) {
					want = tools.RedactedEnvValue
				}
				if shown.Env[k] != want {
					t.Errorf("approval shows %s=%q, want %q", k, shown.Env[k], want)
				}
				if !strings.Contains(no.asked[0].Reason, k) && !tools.SecretEnvName(k) {
					t.Errorf("approval reason %q does not name %s", no.asked[0].Reason, k)
				}
				if row.Env[k] != want {
					t.Errorf("audit row keeps %s=%q, want %q", k, row.Env[k], want)
				}
			}
			if strings.Contains(string(no.asked[0].Args), "ghp_secretvalue") || row.ApprovalID != "approval-1" || row.Decision != "denied" {
				t.Errorf("approval args %s; audit row %+v", no.asked[0].Args, row)
			}

			cfg.Approver = &recordingApprover{ok: true}
			r, row = callExec(t, cfg, args)
			if r.Status != "completed" || row.Decision != "approved" {
				t.Fatalf("approved: status %q (%s), audit decision %q", r.Status, r.Note, row.Decision)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("approved, yet the injected command did not run (%v): the case does not test an attack; stdout %q stderr %q", err, r.Stdout, r.Stderr)
			}
		})
	}
}

// TestExecInlineEnvAttacks: the same variables set in the command line
// itself, before git or through env, need approval as well.
func TestExecInlineEnvAttacks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the attacks use sh and touch")
	}
	pol := gitAllowlisted(t)
	for _, line := range []string{
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch %s' git status",
		"env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch %s' git status",
		"export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch %s'; git status",
		"GIT_SSH_COMMAND='touch %s' git ls-remote ssh://example.invalid/repo",
		"env GIT_SSH_COMMAND='touch %s' git ls-remote ssh://example.invalid/repo",
	} {
		t.Run(line, func(t *testing.T) {
			ws, marker, _ := attackSetup(t)
			cfg := Config{Workspace: func(tools.Who) (string, error) { return ws, nil }, Policy: func(string) execpolicy.Policy { return pol }}
			r, _ := callExec(t, cfg, map[string]any{"command": strings.ReplaceAll(line, "%s", marker)})
			if r.Status != "denied" {
				t.Errorf("status %q (%s), want denied", r.Status, r.Note)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the injected command ran without approval")
			}
		})
	}
}

// TestExecEnvRefusedOrSafe: what no approval may allow is refused before
// anything runs, and the safe variables run unasked.
func TestExecEnvRefusedOrSafe(t *testing.T) {
	pol := gitAllowlisted(t)
	ws, marker, _ := attackSetup(t)
	ap := &recordingApprover{ok: true}
	cfg := Config{Workspace: func(tools.Who) (string, error) { return ws, nil }, Policy: func(string) execpolicy.Policy { return pol }, Approver: ap}
	for _, env := range []map[string]string{
		{"PATH": filepath.Dir(marker)},
		{"LD_PRELOAD": filepath.Join(ws, "evil.so")},
		{"DYLD_INSERT_LIBRARIES": filepath.Join(ws, "evil.dylib")},
		{"BASH_ENV": marker},
		{"ENV": marker},
		{"BASH_FUNC_git%%": "() { touch " + marker + "; }"},
	} {
		r, row := callExec(t, cfg, map[string]any{"command": "git status", "env": env})
		if r.Status != "error" || !strings.Contains(r.Note, "env: ") {
			t.Errorf("env %v: %+v, want refused", env, r)
		}
		if row.Decision != "denied" || len(row.Env) != 1 {
			t.Errorf("env %v: audit row %+v, want denied with the env", env, row)
		}
	}
	if len(ap.asked) != 0 {
		t.Errorf("refused variables were put to a person: %d requests", len(ap.asked))
	}
	r, row := callExec(t, cfg, map[string]any{"command": "git status --short", "env": map[string]string{"LANG": "C", "LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1", "GIT_PAGER": "cat"}})
	if r.Status != "completed" || len(ap.asked) != 0 || row.Decision != "allowed" || row.Env["TZ"] != "UTC" {
		t.Errorf("safe env: %+v, asked %d, audit %+v", r, len(ap.asked), row)
	}
}
