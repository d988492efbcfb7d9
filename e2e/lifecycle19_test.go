package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/e2e/harness"
)

// TestSecondGatewayOnOneStateRefused: a second gateway on the same state
// directory (another port, so the bind would not stop it) exits non-zero
// naming the running one's pid and port; once the first is killed with
// SIGKILL, which leaves its lock file behind, a new start takes over.
func TestSecondGatewayOnOneStateRefused(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{Config: "{ gateway: { mode: \"local\" } }\n"})
	argv := []string{needOurBin(t), "gateway", "--port", strconv.Itoa(freePort(t))}
	second := startProc(t, "second gateway", g.Env, g.Dir, argv...)
	code, ok := second.wait(60 * time.Second)
	if !ok {
		t.Fatalf("second gateway on the same state still running after 60 s:\n%s", second.report())
	}
	stderr := second.stderr.String()
	for _, want := range []string{"gateway already running", "pid " + strconv.Itoa(g.proc.cmd.Process.Pid), "port " + strconv.Itoa(g.Port)} {
		if code <= 0 || !strings.Contains(stderr, want) {
			t.Errorf("second gateway: exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}

	syscall.Kill(-g.proc.cmd.Process.Pid, syscall.SIGKILL)
	g.proc.wait(30 * time.Second)
	lock := filepath.Join(g.StateDir, "tmp", "openclaw-"+strconv.Itoa(os.Getuid()), "gateway.state.lock")
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("lock file of the killed gateway: %v", err)
	}
	g.restart(t) // waits until it listens and is ready
}

// TestExampleConfigWithoutTokenEnvRefused: the example config names
// ${OPENCLAW_GATEWAY_TOKEN}; started without that variable it must not
// run with the literal text as its token, but exit with a message naming
// the variable and where the file uses it.
func TestExampleConfigWithoutTokenEnvRefused(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	root, err := harness.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join(root, "openclaw.json.example"))
	if err != nil {
		t.Fatal(err)
	}
	g := startGateway(t, gatewayOpts{Config: string(example), NoToken: true, NoWait: true})
	code, ok := g.proc.wait(60 * time.Second)
	if !ok {
		t.Fatalf("gateway with an unresolved token still running after 60 s:\n%s", g.proc.report())
	}
	stderr := g.proc.stderr.String()
	if code <= 0 || !strings.Contains(stderr, "gateway.auth.token") || !strings.Contains(stderr, "OPENCLAW_GATEWAY_TOKEN is not set") ||
		!configPos.MatchString(stderr) {
		t.Fatalf("exit %d; stderr should name gateway.auth.token, the unset variable and its file:line:col:\n%s", code, stderr)
	}
}

// TestConfigUnsetLikeOpenClaw: unsetting a key the file does not set
// fails as the real CLI does (exit 1, "Config path not found", file
// untouched); unsetting the only key of an object removes the object too.
func TestConfigUnsetLikeOpenClaw(t *testing.T) {
	needOurBin(t)
	t.Parallel()
	dir := t.TempDir()
	env, _, configPath := isolatedEnv(t, dir)
	const orig = "{\n  // mine\n  gateway: { mode: \"local\" },\n}\n"
	writeFile(t, configPath, orig)
	ours := func(args ...string) result { return runCmd(t, env, dir, append([]string{needOurBin(t)}, args...)...) }

	r := ours("config", "unset", "logging.file")
	if r.Code != 1 || !strings.Contains(r.Stderr, "Config path not found: logging.file. Nothing was changed.") {
		t.Errorf("unset of an absent key:\n%s", r)
	}
	if b, _ := os.ReadFile(configPath); string(b) != orig {
		t.Errorf("file changed by a failed unset:\n%s", b)
	}
	ours("config", "set", "logging.file", "/tmp/openclaw-e2e.log").mustSucceed(t)
	ours("config", "unset", "logging.file").mustSucceed(t)
	if b, _ := os.ReadFile(configPath); strings.Contains(string(b), "logging") || !strings.Contains(string(b), "// mine") {
		t.Errorf("after set and unset of logging.file the file is:\n%s", b)
	}
}

// TestReloadChangesApprovalTimeout: editing tools.guard.approvalTimeoutSeconds
// under a running gateway changes how long the next approval waits.
func TestReloadChangesApprovalTimeout(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	const cfg = "{\n  gateway: { mode: \"local\" },\n  tools: { guard: { approvalTimeoutSeconds: 300, rules: [{ tool: \"DateTimeTool\", action: \"require_approval\" }] } },\n}\n"
	g := startGateway(t, gatewayOpts{Config: cfg})
	c := ourClient(t, g)

	window := func() int64 {
		t.Helper()
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.run(t, "gateway", "call", "tools.invoke", "--params", `{"name":"DateTimeTool","sessionKey":"agent:main:main"}`)
		}()
		defer wg.Wait()
		var id string
		var span int64
		if !poll(60*time.Second, func() bool {
			r := c.run(t, "gateway", "call", "exec.approval.list", "--params", "{}")
			var out struct {
				Approvals []struct {
					ID        string `json:"id"`
					CreatedAt int64  `json:"createdAtMs"`
					ExpiresAt int64  `json:"expiresAtMs"`
				} `json:"approvals"`
			}
			if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil || len(out.Approvals) != 1 {
				return false
			}
			id, span = out.Approvals[0].ID, out.Approvals[0].ExpiresAt-out.Approvals[0].CreatedAt
			return true
		}) {
			t.Fatal("no pending approval appeared")
		}
		c.run(t, "gateway", "call", "exec.approval.resolve", "--params", fmt.Sprintf(`{"id":%q,"decision":"deny"}`, id)).mustSucceed(t)
		return span
	}
	if got := window(); got != 300_000 {
		t.Fatalf("approval window at start = %d ms, want 300000", got)
	}
	next := strings.Replace(cfg, "approvalTimeoutSeconds: 300", "approvalTimeoutSeconds: 90", 1)
	writeFile(t, g.ConfigPath, next)
	sum := sha256.Sum256([]byte(next))
	if !poll(60*time.Second, func() bool {
		r := c.run(t, "gateway", "call", "config.get", "--params", "{}")
		return r.Code == 0 && strings.Contains(r.Stdout, hex.EncodeToString(sum[:]))
	}) {
		t.Fatal("the gateway did not reload the edited config")
	}
	if got := window(); got != 90_000 {
		t.Errorf("approval window after the reload = %d ms, want 90000", got)
	}
}
