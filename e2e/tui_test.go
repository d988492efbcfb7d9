package e2e

import (
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestRealTUIConversation drives OpenClaw's own terminal UI, in tmux,
// against our gateway: it connects, shows the session and streams an
// answer to a typed message.
func TestRealTUIConversation(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	_, waitScreen, keys := realTUI(t, g) // waits until connected to session main
	keys("hello from the tui", "Enter")
	waitScreen("echo: hello from the tui")
}

// ourTUI starts our `openclaw <args>` in its own tmux server, 120x40,
// with the gateway's environment (so it finds the gateway as a user on
// that machine would). It returns the screen and a way to type. When the
// command ends the pane prints its exit code and stays, so a test can
// see how it left.
var tuiServers atomic.Int64

func ourTUI(t *testing.T, g *gateway, args ...string) (screen func() string, waitScreen func(string), keys func(...string), tmux func(...string) string) {
	t.Helper()
	bin := needOurBin(t)
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is needed to drive the TUI: ", err)
	}
	// One tmux server per TUI, so a test may run several on one gateway.
	sock := "oc-e2e-our-tui-" + strconv.Itoa(g.Port) + "-" + strconv.FormatInt(tuiServers.Add(1), 10)
	tmux = func(a ...string) string {
		t.Helper()
		out, err := exec.Command(tmuxBin, append([]string{"-L", sock}, a...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v: %s", strings.Join(a, " "), err, out)
		}
		return string(out)
	}
	cmdline := []string{shellQuote(bin)}
	for _, a := range args {
		cmdline = append(cmdline, shellQuote(a))
	}
	sh := "cd " + shellQuote(g.Dir) + " && " + strings.Join(cmdline, " ") + `; echo "[exit=$?]"; exec sleep 600`
	nargs := []string{"-f", "/dev/null", "new-session", "-d", "-s", "tui", "-x", "120", "-y", "40"}
	for _, kv := range g.Env {
		nargs = append(nargs, "-e", kv)
	}
	nargs = append(nargs, "-e", "TERM=xterm-256color", "sh", "-c", sh)
	tmux(nargs...)
	t.Cleanup(func() { exec.Command(tmuxBin, "-L", sock, "kill-server").Run() })
	screen = func() string {
		out, _ := exec.Command(tmuxBin, "-L", sock, "capture-pane", "-p", "-J", "-t", "tui").Output()
		return string(out)
	}
	waitScreen = func(what string) {
		t.Helper()
		if !poll(60*time.Second, func() bool { return strings.Contains(screen(), what) }) {
			t.Fatalf("the TUI never showed %q; screen:\n%s", what, screen())
		}
	}
	keys = func(k ...string) {
		t.Helper()
		tmux(append([]string{"send-keys", "-t", "tui"}, k...)...)
	}
	return screen, waitScreen, keys, tmux
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestOurTUIConversation drives our `openclaw tui` in tmux against our
// gateway and the fake model: it attaches to the main session, streams
// an answer, answers /status through the gateway, starts a new session
// with /new and leaves on Ctrl+C twice with exit code 0.
func TestOurTUIConversation(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	screen, waitScreen, keys, _ := ourTUI(t, g, "tui")
	waitScreen("connected")
	waitScreen("session main")
	waitScreen("status: idle")

	keys("-l", "hello from our tui")
	keys("Enter")
	waitScreen("you: hello from our tui")
	waitScreen("echo: hello from our tui")
	waitScreen("status: idle")

	keys("-l", "/status")
	keys("Enter")
	waitScreen("session agent:main:main · idle") // what the TUI knows
	waitScreen("Session: agent:main:main")       // the gateway's answer
	if n := len(model.Requests()); n != 1 {
		t.Fatalf("the model had %d calls, want 1 (/status is the gateway's)", n)
	}

	keys("-l", "/new")
	keys("Enter")
	waitScreen("new session agent:main:tui-")
	waitScreen("session tui-")
	if strings.Contains(screen(), "echo: hello from our tui") {
		t.Fatalf("the new session still shows the old conversation:\n%s", screen())
	}

	keys("C-c")
	waitScreen("press Ctrl+C again to exit")
	keys("C-c")
	waitScreen("[exit=0]")
}

// TestOurTUIInertModelEscapes: a prompt-injected model answers with
// terminal escape sequences (a window title change, an OSC 52 clipboard
// write, a screen clear, a cursor move). The TUI shows the words around
// them and the terminal obeys none: the pane's title stays and no
// clipboard buffer appears in tmux.
func TestOurTUIInertModelEscapes(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Script(fakemodel.Reply{Text: "before \x1b]2;pwned-title\x07middle \x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[1;1Hafter"})
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	screen, waitScreen, keys, tmux := ourTUI(t, g, "tui")
	tmux("set-option", "-g", "set-clipboard", "on")
	waitScreen("status: idle")
	title := strings.TrimSpace(tmux("display-message", "-p", "-t", "tui", "#{pane_title}"))
	keys("-l", "say it")
	keys("Enter")
	waitScreen("before middle after")
	waitScreen("status: idle")
	if got := strings.TrimSpace(tmux("display-message", "-p", "-t", "tui", "#{pane_title}")); got != title || strings.Contains(got, "pwned") {
		t.Fatalf("the model's text retitled the pane: %q (was %q)", got, title)
	}
	if out, _ := exec.Command("tmux", "-L", "oc-e2e-our-tui-"+strconv.Itoa(g.Port), "show-buffer").CombinedOutput(); strings.Contains(string(out), "pwned") {
		t.Fatalf("the model's text wrote the clipboard: %q", out)
	}
	if s := screen(); !strings.Contains(s, "you: say it") {
		t.Fatalf("the screen was cleared or overwritten:\n%s", s)
	}
}

// TestOurChatIsTheTUI: `openclaw chat` on a terminal is the same TUI
// against the local gateway; the session flag picks the session.
func TestOurChatIsTheTUI(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	_, waitScreen, keys, _ := ourTUI(t, g, "chat", "--session", "side", "--message", "first words")
	waitScreen("session side")
	waitScreen("echo: first words")
	keys("C-d")
	waitScreen("[exit=0]")
}

// TestOurTUIApprovalAllow: a guarded tool call of the TUI's session opens
// the approval prompt (what waits, its id, Allow/Deny); "a" allows it
// once over exec.approval.resolve, the tool card shows the call and the
// run goes on to its answer.
func TestOurTUIApprovalAllow(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "s1", Name: "sessions_list", Arguments: `{}`}}},
		fakemodel.Reply{Text: "listed after approval"},
	)
	g := startGateway(t, gatewayOpts{Config: toolsConfig(model.URL(), guardedTools)})
	_, waitScreen, keys, _ := ourTUI(t, g, "tui")
	waitScreen("status: idle")
	keys("-l", "list the sessions")
	keys("Enter")
	waitScreen("wants to run")
	waitScreen("Approval required (id ")
	waitScreen("[d] Deny")
	keys("a")
	waitScreen(": allow-once")
	waitScreen("⚙ sessions_list done")
	waitScreen("listed after approval")
}

// TestOurResume: `openclaw resume QUERY` attaches the TUI to the one
// recent session the query names (its conversation shows), and with no
// query the TUI opens on its session picker.
func TestOurResume(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	c := ourClient(t, g)
	c.run(t, "agent", "--session-key", "agent:main:release-notes", "-m", "draft the release notes").mustSucceed(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"query", []string{"resume", "release"}, []string{"session release-notes", "echo: draft the release notes"}},
		{"picker", []string{"resume"}, []string{"release-notes", "main"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, waitScreen, keys, _ := ourTUI(t, g, tc.args...)
			for _, w := range tc.want {
				waitScreen(w)
			}
			keys("Escape")
			keys("Escape")
			keys("C-d")
			waitScreen("[exit=0]")
		})
	}
}
