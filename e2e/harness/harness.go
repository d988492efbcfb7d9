package harness

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

const modulePath = "github.com/openclaw-go/openclaw"

// Set by Main.
var (
	repoRoot string
	bin      string
)

// Main builds the binary (race-instrumented when the tests are), runs the
// tests and removes the build. Call it from TestMain.
func Main(m *testing.M) {
	code := 1
	dir, err := os.MkdirTemp("", "openclaw-harness-")
	if err == nil {
		err = Build(filepath.Join(dir, "openclaw"))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "harness: %v\n", err)
	} else {
		code = m.Run()
	}
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// Bin is the built openclaw binary.
func Bin() string { return bin }

// Build builds ./cmd/openclaw into out, race-instrumented when the tests
// are, so the gateway's own races show up under real traffic, otherwise
// as a release build; later calls of Bin return out.
func Build(out string) error { return BuildTags(out) }

// BuildTags is Build with build tags (postgres links the PostgreSQL
// driver).
func BuildTags(out string, tags ...string) error {
	root, err := FindRepoRoot()
	if err != nil {
		return err
	}
	repoRoot = root
	args := []string{"build"}
	env := os.Environ()
	if raceEnabled {
		args = append(args, "-race")
	} else {
		// The binary a release ships: static, stripped.
		args = append(args, "-trimpath", "-ldflags", "-s -w")
		env = append(env, "CGO_ENABLED=0")
	}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	args = append(args, "-o", out, "./cmd/openclaw")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = root, env
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, b)
	}
	if len(tags) == 0 {
		bin = out
	}
	return nil
}

// FindRepoRoot walks up from the working directory (the package folder
// under go test) to the go.mod of this module.
func FindRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("find repo root: no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// RecordInputs makes go test's result cache depend on every source file
// of the repo and on the extra paths given: the binary comes from
// packages the tests do not import, so without this a cached "ok" would
// survive changes to the gateway. go test notes the files a test stats
// (inside the module only) and reruns the test when one changes.
func RecordInputs(extra ...string) {
	recordOnce.Do(func() {
		filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				switch d.Name() {
				case ".git", ".cache", "node_modules":
					return filepath.SkipDir
				}
				return nil
			}
			os.Stat(path)
			return nil
		})
		for _, p := range extra {
			os.Stat(p)
		}
	})
}

var recordOnce sync.Once

// Opts configure Start.
type Opts struct {
	// Config is written to the config file before the start (JSON5).
	Config string
	// Env is added to the gateway's environment.
	Env []string
}

// Gateway is one running gateway with its own state.
type Gateway struct {
	Port       int
	Token      string
	URL        string // ws://127.0.0.1:<port>
	HTTP       string // http://127.0.0.1:<port>
	Dir        string
	StateDir   string
	ConfigPath string
	Workspace  string // the default agent workspace under Dir
	Env        []string

	mu   sync.Mutex
	proc *proc
}

// Start starts a gateway on a free loopback port and waits until it is
// ready. The gateway is stopped when the test ends; its output is logged
// when the test failed.
func Start(t testing.TB, o Opts) *Gateway {
	t.Helper()
	RecordInputs()
	dir := t.TempDir()
	g := &Gateway{Port: FreePort(t), Dir: dir, Token: "harness-" + randomHex(t, 16)}
	home := filepath.Join(dir, "home")
	g.StateDir = filepath.Join(dir, "state")
	g.Workspace = filepath.Join(g.StateDir, "workspace")
	tmp := filepath.Join(dir, "tmp")
	for _, d := range []string{home, g.StateDir, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	g.ConfigPath = filepath.Join(g.StateDir, "openclaw.json")
	g.URL = fmt.Sprintf("ws://127.0.0.1:%d", g.Port)
	g.HTTP = fmt.Sprintf("http://127.0.0.1:%d", g.Port)
	g.Env = append(BaseEnv(),
		"HOME="+home, "OPENCLAW_HOME="+home, "OPENCLAW_STATE_DIR="+g.StateDir,
		"OPENCLAW_CONFIG_PATH="+g.ConfigPath, "TMPDIR="+tmp,
		"OPENCLAW_GATEWAY_TOKEN="+g.Token, "OPENCLAW_GATEWAY_PORT="+strconv.Itoa(g.Port))
	g.Env = append(g.Env, o.Env...)
	if o.Config != "" {
		if err := os.WriteFile(g.ConfigPath, []byte(o.Config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	g.start(t)
	t.Cleanup(func() {
		p := g.current()
		p.stop(syscall.SIGTERM)
		if strings.Contains(p.stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("gateway reported a data race")
		}
		if t.Failed() {
			t.Log(p.report())
		}
	})
	return g
}

func (g *Gateway) current() *proc {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.proc
}

func (g *Gateway) start(t testing.TB) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p, err := startProc(g.Env, g.Dir, Bin(), "gateway", "--port", strconv.Itoa(g.Port))
		if err != nil {
			t.Fatal(err)
		}
		g.mu.Lock()
		old := g.proc
		g.proc = p
		g.mu.Unlock()
		if old != nil && t.Failed() {
			t.Log(old.report())
		}
		if g.waitReady(t, 60*time.Second) {
			return
		}
		// Another test's gateway took the port between FreePort and the
		// bind: take a new one.
		if attempt == 5 {
			t.Fatalf("gateway could not bind a free port in %d tries:\n%s", attempt, p.report())
		}
		g.movePort(t)
	}
}

// movePort points the gateway at a new free port.
func (g *Gateway) movePort(t testing.TB) {
	old := "OPENCLAW_GATEWAY_PORT=" + strconv.Itoa(g.Port)
	g.Port = FreePort(t)
	g.URL = fmt.Sprintf("ws://127.0.0.1:%d", g.Port)
	g.HTTP = fmt.Sprintf("http://127.0.0.1:%d", g.Port)
	for i, kv := range g.Env {
		if kv == old {
			g.Env[i] = "OPENCLAW_GATEWAY_PORT=" + strconv.Itoa(g.Port)
		}
	}
}

// Kill ends the gateway with SIGKILL, as a crash or an OOM kill would.
func (g *Gateway) Kill() { g.current().stop(syscall.SIGKILL) }

// Restart starts the gateway again on the same state (after Kill, or
// stopping it first with SIGTERM).
func (g *Gateway) Restart(t testing.TB) {
	t.Helper()
	g.current().stop(syscall.SIGTERM)
	g.start(t)
}

// PID is the gateway's process id.
func (g *Gateway) PID() int { return g.current().cmd.Process.Pid }

// Exited reports whether the gateway process has ended.
func (g *Gateway) Exited() bool { return g.current().exited() }

// Log is what the gateway printed so far (stdout then stderr).
func (g *Gateway) Log() string {
	p := g.current()
	return p.stdout.String() + p.stderr.String()
}

// RSS is the gateway's resident set size in bytes, from /proc.
func (g *Gateway) RSS(t testing.TB) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", g.PID()))
	if err != nil {
		t.Fatalf("read gateway status: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in the gateway's /proc status")
	return 0
}

// waitReady waits until this gateway (not another on the same port)
// answers /readyz. It reports false when the gateway exited because the
// port was taken, and fails the test on any other exit or the timeout.
func (g *Gateway) waitReady(t testing.TB, timeout time.Duration) bool {
	t.Helper()
	hc := &http.Client{Timeout: 2 * time.Second}
	var last string
	ok := Poll(timeout, func() bool {
		if g.Exited() {
			return true
		}
		resp, err := hc.Get(g.HTTP + "/readyz")
		if err != nil {
			last = err.Error()
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		last = fmt.Sprintf("%d %s", resp.StatusCode, body)
		return resp.StatusCode == http.StatusOK && ListensOn(g.PID(), g.Port)
	})
	if g.Exited() {
		p := g.current()
		if strings.Contains(p.stderr.String(), "address already in use") {
			return false
		}
		t.Fatalf("gateway exited while starting:\n%s", p.report())
	}
	if !ok {
		t.Fatalf("gateway not ready after %v; last GET /readyz: %s", timeout, last)
	}
	return true
}

// Dial connects to the bus with the gateway token and no device, as a
// script on the gateway's machine does: on direct loopback it keeps the
// scopes it asks for. The connection is closed when the test ends.
func (g *Gateway) Dial(t testing.TB, scopes ...string) *client.Client {
	t.Helper()
	c, err := g.DialOpts(client.Options{Token: g.Token, Scopes: scopes})
	if err != nil {
		t.Fatalf("connect with scopes %v: %v", scopes, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// DialOpts connects with the given options (URL filled in) and returns
// the handshake's error as it is, for tests that expect a refusal.
func (g *Gateway) DialOpts(o client.Options) (*client.Client, error) {
	o.URL = g.URL
	if o.HandshakeTimeout == 0 {
		o.HandshakeTimeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.HandshakeTimeout)
	defer cancel()
	return client.Dial(ctx, o)
}

// Admin connects with every operator scope.
func (g *Gateway) Admin(t testing.TB) *client.Client {
	t.Helper()
	var all []string
	for _, s := range protocol.OperatorScopes {
		all = append(all, string(s))
	}
	return g.Dial(t, all...)
}

// Call makes one request and decodes the final answer into a map.
func Call(t testing.TB, c *client.Client, method string, params any) (map[string]any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out map[string]any
	err := c.CallFinal(ctx, method, params, &out)
	return out, err
}

// MustCall is Call that fails the test on an error.
func MustCall(t testing.TB, c *client.Client, method string, params any) map[string]any {
	t.Helper()
	out, err := Call(t, c, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return out
}

// Result is one finished CLI command.
type Result struct {
	Args           []string
	Stdout, Stderr string
	Code           int // -1 when it did not run to an exit
}

func (r Result) String() string {
	return fmt.Sprintf("$ %s\n[exit %d]\n--- stdout:\n%s\n--- stderr:\n%s", strings.Join(r.Args, " "), r.Code, Clip(r.Stdout), Clip(r.Stderr))
}

// CLI runs our CLI with the gateway's environment, as a user on the
// gateway's machine does.
func (g *Gateway) CLI(t testing.TB, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, Bin(), args...)
	cmd.Env, cmd.Dir = g.Env, g.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	r := Result{Args: append([]string{"openclaw"}, args...), Stdout: stdout.String(), Stderr: stderr.String(), Code: -1}
	if cmd.ProcessState != nil && err == nil || errors.As(err, new(*exec.ExitError)) {
		r.Code = cmd.ProcessState.ExitCode()
	}
	return r
}

// Poll calls cond until it is true or timeout passes.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FreePort asks the kernel for a free loopback port.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// JSON marshals v for a config or params literal.
func JSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// BaseEnv is the test's environment without anything that could point a
// process at the user's OpenClaw state or gateway.
//
// A race-instrumented binary sleeps 1 s at exit by default so that late
// reports get out; with dozens of CLI runs that adds up, so the sleep is
// cut to 50 ms unless GORACE is already set.
func BaseEnv() []string {
	env := []string{"GORACE=atexit_sleep_ms=50"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "OPENCLAW_") || strings.HasPrefix(k, "CLAWDBOT_"):
		case k == "HOME" || k == "TMPDIR" || strings.HasPrefix(k, "XDG_"):
		case k == "GORACE":
			env[0] = kv
		default:
			env = append(env, kv)
		}
	}
	return env
}
