package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// needBwrap skips where the local sandbox cannot run.
func needBwrap(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the local sandbox is Linux only")
	}
	if _, err := osexec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed (Debian: apt-get install bubblewrap; scripts/test.sh installs it)")
	}
}

// runIn runs script in b and returns its output and exit code.
func runIn(t *testing.T, b *Box, script string) (string, int) {
	t.Helper()
	m := &Manager{}
	sp, err := m.Command(context.Background(), b, Run{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(sp.Argv[0], sp.Argv[1:]...)
	cmd.Env, cmd.Dir = sp.Env, sp.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *osexec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	}
	t.Fatalf("run %q: %v: %s", script, err, out.String())
	return "", -1
}

// host is a fake host around a sandboxed agent: the gateway's state
// folder with its config and token, a HOME, and the agent's workspace.
type host struct {
	state, config, home, ws, secret string
}

func newHost(t *testing.T) host {
	root := t.TempDir()
	h := host{state: filepath.Join(root, "home", ".openclaw"), home: filepath.Join(root, "home"), ws: filepath.Join(root, "home", ".openclaw", "workspace")}
	h.config = filepath.Join(h.state, "openclaw.json")
	h.secret = "tok-" + strings.Repeat("s3cr3t", 4)
	for _, d := range []string{h.state, h.ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, h.config, `{gateway: {auth: {token: "`+h.secret+`"}}}`)
	write(t, filepath.Join(h.home, ".ssh", "id_ed25519"), "PRIVATE KEY "+h.secret)
	write(t, filepath.Join(h.ws, "notes.md"), "agent notes")
	return h
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (h host) box(t *testing.T, access string) *Box {
	b, err := Resolve(Settings{Mode: ModeAll, WorkspaceAccess: access}, Caller{AgentID: "main", SessionKey: "agent:main:telegram:group:1", AgentWorkspace: h.ws}, h.state)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLocalSandboxAttacks: a prompt-injected model in a sandboxed agent
// tries to reach the host through exec. Each attack must fail, and the
// host must be unchanged afterwards.
func TestLocalSandboxAttacks(t *testing.T) {
	needBwrap(t)
	h := newHost(t)
	t.Setenv("OPENCLAW_GATEWAY_TOKEN", h.secret) // the gateway's own environment
	realHome, _ := os.UserHomeDir()
	for _, tc := range []struct {
		name   string
		access string
		script string
		// leak is text that must not appear in the output; created, a
		// host path that must not exist afterwards.
		leak, created string
	}{
		{name: "read the gateway config by path", access: "rw", script: "cat " + h.config, leak: h.secret},
		{name: "read the gateway config relative to the workspace", access: "rw", script: "cat ../openclaw.json; cat /workspace/../openclaw.json", leak: h.secret},
		{name: "list the state folder", access: "rw", script: "ls -la " + h.state + " " + filepath.Dir(h.ws), leak: "openclaw.json"},
		{name: "read the real HOME", access: "rw", script: "ls -la " + realHome + " " + h.home + "; cat " + h.home + "/.ssh/id_ed25519", leak: h.secret},
		{name: "read the gateway's environment", access: "rw", script: "env; cat /proc/1/environ; cat /proc/self/environ", leak: h.secret},
		{name: "read the parent's environment", access: "rw", script: fmt.Sprintf("cat /proc/%d/environ", os.Getpid()), leak: h.secret},
		{name: "read /etc/shadow", access: "rw", script: "cat /etc/shadow /etc/sudoers", leak: "root:"},
		{name: "write to /etc", access: "rw", script: "echo pwned > /etc/openclaw-sandbox-pwned", created: "/etc/openclaw-sandbox-pwned"},
		{name: "write to /usr", access: "rw", script: "echo pwned > /usr/openclaw-sandbox-pwned", created: "/usr/openclaw-sandbox-pwned"},
		{name: "write to the real HOME", access: "rw", script: "mkdir -p " + h.home + " && echo pwned > " + h.home + "/pwned", created: filepath.Join(h.home, "pwned")},
		{name: "write to the state folder", access: "rw", script: "echo '{}' > " + h.config + ".new; echo '{}' > ../openclaw.json.new", created: h.config + ".new"},
		{name: "symlink to the config", access: "rw", script: "ln -s " + h.config + " cfg && cat cfg", leak: h.secret},
		{name: "symlink up and out", access: "rw", script: "ln -s .. up && cat up/openclaw.json; ln -s / root && ls root" + h.state, leak: h.secret},
		{name: "ro: write the workspace", access: "ro", script: "echo pwned > /agent/notes.md; echo pwned > /agent/new.md", created: filepath.Join(h.ws, "new.md")},
		{name: "ro: read the config", access: "ro", script: "cat /agent/../openclaw.json " + h.config, leak: h.secret},
		{name: "none: the real workspace is hidden", access: "none", script: "ls -la /workspace /agent " + h.ws + "; cat /workspace/notes.md " + h.ws + "/notes.md", leak: "agent notes"},
		{name: "host processes are hidden", access: "rw", script: fmt.Sprintf("ls /proc/%d", os.Getpid()), leak: "environ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := runIn(t, h.box(t, tc.access), tc.script)
			if tc.leak != "" && strings.Contains(out, tc.leak) {
				t.Errorf("the sandbox reached %q:\n%s", tc.leak, out)
			}
			if tc.created != "" {
				if _, err := os.Lstat(tc.created); err == nil {
					os.Remove(tc.created)
					t.Errorf("the sandbox created %s on the host:\n%s", tc.created, out)
				}
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "notes.md")); string(b) != "agent notes" {
		t.Errorf("the ro workspace changed: %q", b)
	}
}

// TestLocalSandboxWorks: what a sandboxed agent should be able to do.
func TestLocalSandboxWorks(t *testing.T) {
	needBwrap(t)
	h := newHost(t)
	for _, tc := range []struct {
		name, access, script, want string
		code                       int
	}{
		{"shell and coreutils", "rw", "echo hi | tr a-z A-Z; pwd", "HI\n/workspace\n", 0},
		{"rw sees and changes the workspace", "rw", "cat notes.md; echo more >> notes.md", "agent notes", 0},
		{"ro sees the workspace at /agent", "ro", "pwd; cat notes.md", "/agent\nagent notes", 0},
		{"ro refuses writes", "ro", "echo x > notes.md", "Read-only file system", 2},
		{"none has a private writable workspace", "none", "echo mine > own.txt && cat own.txt", "mine\n", 0},
		{"a private /tmp", "rw", "echo t > /tmp/x && cat /tmp/x", "t\n", 0},
		{"no network by default", "rw", "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '", "lo\n", 0},
		{"exit codes pass through", "rw", "exit 7", "", 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := runIn(t, h.box(t, tc.access), tc.script)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, output %q; want exit %d with %q", code, out, tc.code, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "notes.md")); string(b) != "agent notesmore\n" {
		t.Errorf("rw write did not reach the workspace: %q", b)
	}
	b := h.box(t, "none")
	if got, _ := os.ReadFile(filepath.Join(b.Workspace, "own.txt")); string(got) != "mine\n" {
		t.Errorf("none's private workspace on the host holds %q", got)
	}
	if !strings.HasPrefix(b.Workspace, filepath.Join(h.state, "sandboxes")+"/") {
		t.Errorf("private workspace %s is not under the state's sandboxes/", b.Workspace)
	}
}

// TestLocalSandboxBindsAndEnv: docker.binds and docker.env reach the
// local box too: a read-only bind reads but refuses writes, and the
// config's variables are set under the run's own.
func TestLocalSandboxBindsAndEnv(t *testing.T) {
	needBwrap(t)
	h := newHost(t)
	write(t, filepath.Join(h.ws, "ref", "doc.md"), "reference")
	s := Settings{Mode: ModeAll, WorkspaceAccess: AccessRW, Env: map[string]string{"LANG": "C.UTF-8", "X": "config"},
		Binds: []BindSpec{{Spec: filepath.Join(h.ws, "ref") + ":/ref:ro"}}}
	b, err := Resolve(s, Caller{AgentID: "main", SessionKey: "agent:main:x", AgentWorkspace: h.ws}, h.state)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := runIn(t, b, `cat /ref/doc.md; touch /ref/new 2>/dev/null && echo wrote; printf '|%s|%s' "$LANG" "$X"`)
	if out != "reference|C.UTF-8|config" {
		t.Fatalf("%q", out)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "ref", "new")); err == nil {
		t.Fatal("the read-only bind was written")
	}
}
