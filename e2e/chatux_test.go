package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	gwclient "github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// guardedConfig makes sessions_list wait for an operator's approval.
const guardedTools = `{ guard: { approvalTimeoutSeconds: 300, rules: [{ tool: "sessions_list", action: "require_approval" }] } }`

// watchChat connects an admin operator and returns a function that
// waits for a chat event of the session in the given state.
func watchChat(t *testing.T, g *gateway) func(key, state string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	op, err := gwclient.Dial(ctx, gwclient.Options{URL: g.URL, Token: g.Token, Role: protocol.RoleOperator, Version: "e2e",
		Scopes: []string{string(protocol.ScopeAdmin)}})
	if err != nil {
		t.Fatalf("operator connect: %v", err)
	}
	t.Cleanup(func() { op.Close() })
	seen := make(chan map[string]any, 256)
	go func() {
		for ev := range op.Events() {
			if ev.Event != "chat" {
				continue
			}
			var p map[string]any
			if json.Unmarshal(ev.Payload, &p) == nil {
				seen <- p
			}
		}
	}()
	return func(key, state string) bool {
		deadline := time.After(60 * time.Second)
		for {
			select {
			case p := <-seen:
				if p["sessionKey"] == key && p["state"] == state {
					return true
				}
			case <-deadline:
				return false
			}
		}
	}
}

// interactive is one of our CLI's commands running with a stdin pipe.
type interactive struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout syncBuffer
	stderr syncBuffer
	done   chan struct{}
}

func startInteractive(t *testing.T, g *gateway, args ...string) *interactive {
	t.Helper()
	p := &interactive{done: make(chan struct{})}
	p.cmd = exec.Command(needOurBin(t), args...)
	p.cmd.Env, p.cmd.Dir = g.Env, g.Dir
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("openclaw %s\n--- stdout:\n%s\n--- stderr:\n%s", strings.Join(args, " "), p.stdout.String(), p.stderr.String())
		}
	})
	return p
}

func (p *interactive) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(60 * time.Second):
		t.Fatal("the command did not exit")
		return 0
	}
}

// TestOurAgentCtrlCAbortsRun: Ctrl-C during `openclaw agent` aborts the
// run on the gateway (its chat stream says aborted) and the command
// exits non-zero.
func TestOurAgentCtrlCAbortsRun(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Hold()
	t.Cleanup(model.Release)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	aborted := watchChat(t, g)
	p := startInteractive(t, g, "agent", "--message", "a long question")
	if !poll(60*time.Second, func() bool { return model.Held() == 1 }) {
		t.Fatal("the run never reached the model")
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.exitCode(t); code == 0 {
		t.Fatalf("openclaw agent exited 0 after Ctrl-C; stderr: %s", p.stderr.String())
	}
	if !aborted("agent:main:main", "aborted") {
		t.Fatal("the gateway's run was not aborted")
	}
}

// TestOurChatCtrlCAbortsRun: Ctrl-C while `openclaw chat` waits for an
// answer aborts that run on the gateway before the command leaves.
func TestOurChatCtrlCAbortsRun(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Hold()
	t.Cleanup(model.Release)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	aborted := watchChat(t, g)
	p := startInteractive(t, g, "chat")
	fmt.Fprintln(p.stdin, "a long question")
	if !poll(60*time.Second, func() bool { return model.Held() == 1 }) {
		t.Fatal("the run never reached the model")
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	p.exitCode(t)
	if !aborted("agent:main:main", "aborted") {
		t.Fatal("the gateway's run was not aborted")
	}
}

// TestOurChatShowsPendingApproval: a guarded call of the chat's session
// is shown with its id and how to answer, and /approve typed in the chat
// lets the run go on.
func TestOurChatShowsPendingApproval(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "sessions_list", Arguments: `{}`}}},
		fakemodel.Reply{Text: "listed after approval"},
	)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), guardedTools)})
	p := startInteractive(t, g, "chat")
	fmt.Fprintln(p.stdin, "list the sessions")
	notice := regexp.MustCompile(`Approval required \(id ([0-9a-f]{8}), full [0-9a-f-]+\): sessions_list wants to run`)
	var short string
	if !poll(60*time.Second, func() bool {
		m := notice.FindStringSubmatch(p.stdout.String())
		if m != nil {
			short = m[1]
		}
		return m != nil && strings.Contains(p.stdout.String(), "Reply with: /approve "+short+" allow-once|allow-always|deny")
	}) {
		t.Fatalf("openclaw chat never showed the pending approval:\n%s", p.stdout.String())
	}
	fmt.Fprintf(p.stdin, "/approve %s allow-once\n", short)
	if !poll(60*time.Second, func() bool { return strings.Contains(p.stdout.String(), "listed after approval") }) {
		t.Fatalf("the approved run did not answer:\n%s", p.stdout.String())
	}
}

// realTUI starts OpenClaw's own terminal UI in tmux against g and
// returns what its screen shows and a way to type into it.
func realTUI(t *testing.T, g *gateway) (screen func() string, waitScreen func(string), keys func(...string)) {
	t.Helper()
	cli := needRealCLI(t)
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("tmux is needed to drive the TUI (.ci/run installs it): ", err)
	}
	dir, err := os.MkdirTemp("", "oc-tui-")
	if err != nil {
		t.Fatal(err)
	}
	env, _, _ := isolatedEnv(t, dir)
	name := "oc-e2e-ux-" + strconv.Itoa(g.Port)
	args := []string{"new-session", "-d", "-P", "-F", "#{pane_pid}", "-s", name, "-x", "160", "-y", "45"}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	args = append(args, fmt.Sprintf("%s tui --url %s --token %s", cli, g.URL, g.Token))
	out, err := exec.Command(tmux, args...).Output()
	if err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	t.Cleanup(func() {
		exec.Command(tmux, "kill-session", "-t", name).Run()
		if pid > 0 {
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
			poll(10*time.Second, func() bool { return syscall.Kill(pid, 0) != nil })
		}
		os.RemoveAll(dir)
	})
	screen = func() string {
		out, _ := exec.Command(tmux, "capture-pane", "-p", "-J", "-t", name).Output()
		return string(out)
	}
	waitScreen = func(what string) {
		t.Helper()
		if !poll(90*time.Second, func() bool { return strings.Contains(screen(), what) }) {
			t.Fatalf("the TUI never showed %q; screen:\n%s", what, screen())
		}
	}
	keys = func(k ...string) {
		t.Helper()
		if out, err := exec.Command(tmux, append([]string{"send-keys", "-t", name}, k...)...).CombinedOutput(); err != nil {
			t.Fatalf("send-keys: %v: %s", err, out)
		}
	}
	waitScreen("connected")
	waitScreen("session main")
	return screen, waitScreen, keys
}

// submitTUI types text into the TUI and presses Enter until the screen
// shows want: typed fast, the text may arrive as a paste whose Enter is
// a newline, a slash command's first Enter may only pick the completion,
// and a TUI still loading its session may drop a line, which is then
// typed again (bounded).
func submitTUI(t *testing.T, screen func() string, keys func(...string), text, want string) {
	t.Helper()
	for range 3 {
		keys("-l", text)
		if !poll(30*time.Second, func() bool { return strings.Contains(screen(), text) }) {
			t.Fatalf("the TUI never showed the typed %q; screen:\n%s", text, screen())
		}
		for range 2 {
			keys("Enter")
			if poll(20*time.Second, func() bool { return strings.Contains(screen(), want) }) {
				return
			}
		}
		keys("C-u")
	}
	t.Fatalf("the TUI never showed %q after %q; screen:\n%s", want, text, screen())
}

// TestRealTUIStatusCommand: /status typed in OpenClaw's TUI is answered
// by our gateway, without a model call.
func TestRealTUIStatusCommand(t *testing.T) {
	needRealCLI(t)
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	screen, waitScreen, keys := realTUI(t, g)
	submitTUI(t, screen, keys, "/status", "Session: agent:main:main")
	waitScreen("Model: fake/echo-1")
	if n := len(model.Requests()); n != 0 {
		t.Fatalf("/status reached the model (%d calls)", n)
	}
}

// TestRealTUIShowsPendingApproval: a guarded call of the TUI's session
// opens OpenClaw's approval prompt (what, why, the id, Allow/Deny);
// choosing Deny settles it and the run goes on.
func TestRealTUIShowsPendingApproval(t *testing.T) {
	needRealCLI(t)
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "sessions_list", Arguments: `{}`}}},
		fakemodel.Reply{Text: "went on after the answer"},
	)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), guardedTools)})
	screen, waitScreen, keys := realTUI(t, g)
	submitTUI(t, screen, keys, "list the sessions", "Tool Guard: sessions_list waits for approval")
	waitScreen("Severity: Warning")
	waitScreen("Request: Approval required (id")
	waitScreen("Deny")
	keys("Enter") // Deny is the prompt's preselected choice
	waitScreen("denied")
	waitScreen("went on after the answer")
}
