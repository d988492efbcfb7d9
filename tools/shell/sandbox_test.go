package shell

import (
	"context"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sandbox"
)

// sandboxed builds exec and process for a caller sandboxed in the local
// backend with access, beside a host secret outside the workspace.
// elevated says who may leave the sandbox.
func sandboxed(t *testing.T, access string, elevated func(tools.Who) bool) (exec, process tools.Tool, ws, secret string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the local sandbox is Linux only")
	}
	if _, err := osexec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed (Debian: apt-get install bubblewrap)")
	}
	root := t.TempDir()
	ws = filepath.Join(root, "workspace")
	secret = filepath.Join(root, "openclaw.json")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(secret, []byte(`{token: "SECRET-TOKEN"}`), 0o600)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("in the workspace"), 0o600)
	procs := NewProcesses()
	t.Cleanup(procs.Close)
	cfg := Config{
		Workspace: func(tools.Who) (string, error) { return ws, nil },
		Policy:    func(string) execpolicy.Policy { return full() },
		Elevated:  elevated,
		Sandbox: func(who tools.Who) (*sandbox.Box, error) {
			return sandbox.Resolve(sandbox.Settings{Mode: sandbox.ModeNonMain, WorkspaceAccess: access},
				sandbox.Caller{AgentID: who.AgentID, SessionKey: who.SessionKey, AgentWorkspace: ws}, root)
		},
		MaxOutput: 4096,
	}
	ts := Tools(cfg, procs)
	return ts[0], ts[1], ws, secret
}

func runAs(t *testing.T, tool tools.Tool, who tools.Who, args string) Result {
	t.Helper()
	res, err := tool.Call(context.Background(), tools.Call{Name: tool.Spec().Name, Args: json.RawMessage(args), Who: who})
	if err != nil {
		return Result{Status: "error", Note: err.Error()}
	}
	var r Result
	if err := json.Unmarshal([]byte(res.Text), &r); err != nil {
		t.Fatalf("result %q: %v", res.Text, err)
	}
	return r
}

var (
	groupSender = tools.Who{AgentID: "main", SessionKey: "agent:main:telegram:group:9", Channel: "telegram", SenderID: "77"}
	mainSession = tools.Who{AgentID: "main", SessionKey: "agent:main:main"}
)

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestSandboxedExec: mode non-main puts a group's exec in the sandbox,
// keeps the main session on the host, and a sandboxed caller cannot talk
// its way out with host or an elevated flag it was not given.
func TestSandboxedExec(t *testing.T) {
	onlyOwner := func(who tools.Who) bool { return who.SenderID == "owner" }
	ex, _, ws, secret := sandboxed(t, "rw", onlyOwner)
	for _, tc := range []struct {
		name       string
		who        tools.Who
		args       string
		wantStatus string
		want       string // in stdout, or the note of an error
		host       string
	}{
		{"group runs in the sandbox", groupSender, `{"command":"pwd; cat a.txt"}`, "completed", "/workspace\nin the workspace", "sandbox"},
		{"host sandbox is the same", groupSender, `{"command":"pwd","host":"sandbox"}`, "completed", "/workspace", "sandbox"},
		{"main session stays on the host", mainSession, `{"command":"pwd"}`, "completed", ws, ""},
		{"host gateway refused in a sandbox", groupSender, `{"command":"cat ` + secret + `","host":"gateway"}`, "error", "this session is sandboxed", ""},
		{"host node refused in a sandbox", groupSender, `{"command":"id","host":"node"}`, "error", "this session is sandboxed", ""},
		{"elevated refused for a sender not allowed", groupSender, `{"command":"cat ` + secret + `","elevated":true}`, "error", "elevated is not available right now (runtime=sandboxed)", ""},
		{"the host secret is not in the sandbox", groupSender, `{"command":"cat ` + secret + ` || echo unreadable"}`, "completed", "unreadable", "sandbox"},
		{"the gateway environment is not in the sandbox", groupSender, `{"command":"env"}`, "completed", "OPENCLAW_SHELL=exec", "sandbox"},
		{"a checked env reaches the sandbox", groupSender, `{"command":"echo $TZ","env":{"TZ":"UTC"}}`, "completed", "UTC", "sandbox"},
		{"workdir inside", groupSender, `{"command":"pwd","workdir":"/workspace"}`, "completed", "/workspace", "sandbox"},
		{"workdir out of the sandbox refused", groupSender, `{"command":"pwd","workdir":"/etc"}`, "error", "outside the sandbox workspace", ""},
		{"elevated for an allowed sender leaves the sandbox", tools.Who{AgentID: "main", SessionKey: "agent:main:telegram:group:9", Channel: "telegram", SenderID: "owner"},
			`{"command":"cat ` + secret + `","elevated":true}`, "completed", "SECRET-TOKEN", ""},
		{"elevated with host sandbox is a contradiction", tools.Who{AgentID: "main", SessionKey: "agent:main:x", SenderID: "owner"},
			`{"command":"true","elevated":true,"host":"sandbox"}`, "error", "elevated runs outside the sandbox", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OPENCLAW_GATEWAY_TOKEN", "GATEWAY-ENV-SECRET")
			r := runAs(t, ex, tc.who, tc.args)
			if r.Status != tc.wantStatus {
				t.Fatalf("status %q, want %q: %+v", r.Status, tc.wantStatus, r)
			}
			got := r.Note
			if r.Status == "completed" {
				got = r.Stdout
				if strings.Contains(r.Stdout+r.Stderr, "GATEWAY-ENV-SECRET") {
					t.Fatalf("the gateway's environment leaked: %+v", r)
				}
			}
			if !strings.Contains(got, tc.want) || r.Host != tc.host {
				t.Fatalf("%q (host %q) lacks %q (host %q): %+v", got, r.Host, tc.want, tc.host, r)
			}
		})
	}
}

// TestSandboxedExecReadOnly: workspaceAccess ro mounts the workspace at
// /agent and refuses writes; none hides it.
func TestSandboxedExecReadOnly(t *testing.T) {
	ex, _, ws, _ := sandboxed(t, "ro", nil)
	r := runAs(t, ex, groupSender, `{"command":"cat a.txt; echo x > a.txt; echo y > new.txt; pwd"}`)
	if !strings.Contains(r.Stdout, "in the workspace") || !strings.Contains(r.Stdout, "/agent") || !strings.Contains(r.Stderr, "Read-only") {
		t.Fatalf("%+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "in the workspace" {
		t.Fatalf("ro workspace changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Fatal("ro workspace got a new file")
	}
	ex, _, ws, _ = sandboxed(t, "none", nil)
	r = runAs(t, ex, groupSender, `{"command":"ls -a /workspace; cat `+ws+`/a.txt; echo mine > b.txt"}`)
	if strings.Contains(r.Stdout, "a.txt") || strings.Contains(r.Stdout, "in the workspace") {
		t.Fatalf("none shows the agent's workspace: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); err == nil {
		t.Fatal("none wrote into the agent's workspace")
	}
}

// TestSandboxedBackground: a background run in the sandbox is polled
// and killed through process like any other.
func TestSandboxedBackground(t *testing.T) {
	ex, proc, _, _ := sandboxed(t, "rw", nil)
	r := runAs(t, ex, groupSender, `{"command":"echo started; sleep 60","background":true}`)
	if r.Status != "running" || r.SessionID == "" {
		t.Fatalf("%+v", r)
	}
	res, err := proc.Call(context.Background(), tools.Call{Name: "process", Args: json.RawMessage(`{"action":"kill","sessionId":` + quote(r.SessionID) + `}`), Who: groupSender})
	if err != nil || res.IsError {
		t.Fatalf("kill: %v %+v", err, res)
	}
}
