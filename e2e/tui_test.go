package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestRealTUIConversation drives OpenClaw's own terminal UI, in tmux,
// against our gateway: it connects, shows the session and streams an
// answer to a typed message.
func TestRealTUIConversation(t *testing.T) {
	cli := needRealCLI(t)
	needOurGateway(t)
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("tmux is needed to drive the TUI (.ci/run installs it): ", err)
	}
	t.Parallel()
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	// Not t.TempDir: the TUI's Node process may still be writing its
	// compile cache while tmux tears it down, and that must not fail the
	// test.
	dir, err := os.MkdirTemp("", "oc-tui-")
	if err != nil {
		t.Fatal(err)
	}
	env, _, _ := isolatedEnv(t, dir)
	name := "oc-e2e-" + strconv.Itoa(g.Port)
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
	screen := func() string {
		out, _ := exec.Command(tmux, "capture-pane", "-p", "-t", name).Output()
		return string(out)
	}
	waitScreen := func(what string) {
		t.Helper()
		if !poll(90*time.Second, func() bool { return strings.Contains(screen(), what) }) {
			t.Fatalf("the TUI never showed %q; screen:\n%s", what, screen())
		}
	}
	waitScreen("connected")
	waitScreen("session main")
	if out, err := exec.Command(tmux, "send-keys", "-t", name, "hello from the tui", "Enter").CombinedOutput(); err != nil {
		t.Fatalf("send-keys: %v: %s", err, out)
	}
	waitScreen("echo: hello from the tui")
}
