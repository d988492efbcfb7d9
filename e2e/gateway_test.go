package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/e2e/harness"
)

// gatewayOpts configure startGateway.
type gatewayOpts struct {
	// Config, when set, is written to the config file before the start.
	Config string
	// NoToken starts our gateway without OPENCLAW_GATEWAY_TOKEN, so it
	// uses (or generates) the token in its config file.
	NoToken bool
	// StateDirOnly leaves OPENCLAW_CONFIG_PATH unset, so the gateway finds
	// its config in the state folder by itself.
	StateDirOnly bool
	// NoWait returns right after the process starts.
	NoWait bool
	// Env is added to the gateway's environment.
	Env []string
	// Bin, when set, is the binary to run in place of ours (one built
	// with other tags).
	Bin string
}

// gateway is one running gateway (ours, or the real one in real mode).
type gateway struct {
	Port       int
	Token      string // empty with NoToken until readToken
	URL        string
	Dir        string
	StateDir   string
	ConfigPath string
	// Env is the gateway's environment; our CLI runs with it too, which
	// is how a user on the same machine runs it.
	Env  []string
	proc *proc
	// argv and timeout start it again in restart.
	argv    []string
	timeout time.Duration
}

// realGatewayConfig is the real gateway's config: local mode and every
// switch that keeps it off the network.
const realGatewayConfig = `{
  gateway: { mode: "local", tailscale: { mode: "off" } },
  update: { checkOnStart: false },
  telemetry: { enabled: false },
  discovery: { mdns: { mode: "off" } },
  agents: { defaults: { heartbeat: { every: "0m" } } },
  logging: { file: %q },
}
`

// startGateway starts a gateway with an isolated state on a free port and,
// unless NoWait, waits until it accepts connections.
func startGateway(t *testing.T, o gatewayOpts) *gateway {
	t.Helper()
	dir := t.TempDir()
	env, stateDir, configPath := isolatedEnv(t, dir)
	g := &gateway{Port: freePort(t), Dir: dir, StateDir: stateDir, ConfigPath: configPath}
	g.URL = fmt.Sprintf("ws://127.0.0.1:%d", g.Port)
	if !o.NoToken || peer == "real" {
		g.Token = randomToken(t)
		env = append(env, "OPENCLAW_GATEWAY_TOKEN="+g.Token)
	}
	if o.StateDirOnly && peer == "ours" {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "OPENCLAW_CONFIG_PATH=") })
	}
	env = append(env, "OPENCLAW_GATEWAY_PORT="+strconv.Itoa(g.Port))
	env = append(env, o.Env...)
	g.Env = env

	var argv []string
	var timeout time.Duration
	switch peer {
	case "real":
		if o.Config == "" {
			o.Config = fmt.Sprintf(realGatewayConfig, filepath.Join(dir, "gateway.log"))
		}
		argv = []string{needRealCLI(t), "gateway", "run", "--port", strconv.Itoa(g.Port),
			"--bind", "loopback", "--auth", "token", "--token", g.Token, "--allow-unconfigured"}
		timeout = 120 * time.Second
	default:
		bin := o.Bin
		if bin == "" {
			bin = needOurBin(t)
		}
		argv = []string{bin, "gateway", "--port", strconv.Itoa(g.Port)}
		timeout = 30 * time.Second
	}
	if o.Config != "" {
		writeFile(t, configPath, o.Config)
	}
	g.argv, g.timeout = argv, timeout
	for attempt := 1; ; attempt++ {
		g.proc = startProc(t, peer+" gateway", g.Env, dir, g.argv...)
		if o.NoWait || peer != "ours" {
			break
		}
		// Parallel tests pick free ports independently; the one that
		// loses the bind takes a new port.
		if !g.waitOwnListener(t, timeout) && attempt < 5 {
			g.movePort(t)
			continue
		}
		break
	}
	if !o.NoWait {
		g.waitListening(t, timeout)
		g.waitReady(t, timeout)
	}
	return g
}

// waitOwnListener waits until our gateway process itself listens on its
// port (not another test's gateway that was handed the same port). It
// reports false when the gateway exited because the port was taken.
func (g *gateway) waitOwnListener(t *testing.T, timeout time.Duration) bool {
	t.Helper()
	poll(timeout, func() bool { return g.proc.exited() || harness.ListensOn(g.proc.cmd.Process.Pid, g.Port) })
	return !(g.proc.exited() && strings.Contains(g.proc.stderr.String(), "address already in use"))
}

// movePort points the gateway's argv, env and URL at a new free port.
func (g *gateway) movePort(t *testing.T) {
	old := strconv.Itoa(g.Port)
	g.Port = freePort(t)
	g.URL = fmt.Sprintf("ws://127.0.0.1:%d", g.Port)
	for i, a := range g.argv {
		if a == old && i > 0 && g.argv[i-1] == "--port" {
			g.argv[i] = strconv.Itoa(g.Port)
		}
	}
	for i, kv := range g.Env {
		if kv == "OPENCLAW_GATEWAY_PORT="+old {
			g.Env[i] = "OPENCLAW_GATEWAY_PORT=" + strconv.Itoa(g.Port)
		}
	}
}

// restart stops the gateway and starts it again on the same state.
func (g *gateway) restart(t *testing.T) {
	t.Helper()
	g.proc.stop()
	g.proc = startProc(t, peer+" gateway", g.Env, g.Dir, g.argv...)
	g.waitListening(t, g.timeout)
	g.waitReady(t, g.timeout)
}

// waitListening polls the port until it accepts a TCP connection, failing
// at once if the gateway exits first.
func (g *gateway) waitListening(t *testing.T, timeout time.Duration) {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(g.Port))
	deadline := time.Now().Add(timeout)
	for {
		if g.proc.exited() {
			t.Fatalf("gateway exited before listening on %s:\n%s", addr, g.proc.report())
		}
		c, err := net.DialTimeout("tcp", addr, 250*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not listening on %s after %v: %v", addr, timeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitReady polls GET /readyz until it answers 200 without "ready":false.
// The real gateway listens seconds before its methods answer (they fail
// with UNAVAILABLE "gateway starting" until then); a gateway without
// /readyz (404) counts as ready once it listens, and so does a standby
// (503, failing "standby").
func (g *gateway) waitReady(t *testing.T, timeout time.Duration) {
	t.Helper()
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz", g.Port)
	hc := &http.Client{Timeout: 2 * time.Second}
	var last string
	ok := poll(timeout, func() bool {
		if g.proc.exited() {
			return true // reported below
		}
		resp, err := hc.Get(url)
		if err != nil {
			last = err.Error()
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		last = fmt.Sprintf("%d %s", resp.StatusCode, body)
		switch resp.StatusCode {
		case http.StatusNotFound:
			return true
		case http.StatusOK:
			var r struct{ Ready *bool }
			return json.Unmarshal(body, &r) != nil || r.Ready == nil || *r.Ready
		case http.StatusServiceUnavailable:
			// A standby on a shared store is up, only not the one to
			// send work to.
			var r struct{ Failing []string }
			return json.Unmarshal(body, &r) == nil && slices.Contains(r.Failing, "standby")
		}
		return false
	})
	if g.proc.exited() {
		t.Fatalf("gateway exited while starting:\n%s", g.proc.report())
	}
	if !ok {
		t.Fatalf("gateway not ready after %v; last GET /readyz: %s", timeout, last)
	}
}

// tokenInConfig finds gateway.auth.token in a JSON5 config loosely: the
// first `token: "..."` (quoted key or not).
var tokenInConfig = regexp.MustCompile(`(?m)["']?\btoken["']?\s*:\s*["']([^"']+)["']`)

// readToken waits for the gateway to write its config file and returns
// the token in it.
func (g *gateway) readToken(t *testing.T) string {
	t.Helper()
	var last string
	ok := poll(10*time.Second, func() bool {
		data, err := os.ReadFile(g.ConfigPath)
		if err != nil {
			last = err.Error()
			return false
		}
		last = string(data)
		m := tokenInConfig.FindStringSubmatch(last)
		if m == nil {
			return false
		}
		g.Token = m[1]
		return true
	})
	if !ok {
		t.Fatalf("no gateway token in %s; last read:\n%s", g.ConfigPath, last)
	}
	return g.Token
}

// client is a CLI with its own isolated state, pointed at one gateway.
type client struct {
	argv []string // the CLI's command prefix
	env  []string
	dir  string
}

// realClient returns the real CLI with a private state and a config in
// remote mode that points at g (for commands without --url).
func realClient(t *testing.T, g *gateway) *client {
	t.Helper()
	cli := needRealCLI(t)
	dir := t.TempDir()
	env, _, configPath := isolatedEnv(t, dir)
	writeFile(t, configPath, fmt.Sprintf(
		`{gateway:{mode:"remote", remote:{url:%q, transport:"direct", token:%q}}}`+"\n", g.URL, g.Token))
	return &client{argv: []string{cli}, env: env, dir: dir}
}

// ourClient returns our CLI with the gateway's own environment, as a user
// on the gateway's machine runs it.
func ourClient(t *testing.T, g *gateway) *client {
	t.Helper()
	return &client{argv: []string{needOurBin(t)}, env: g.Env, dir: g.Dir}
}

func (c *client) run(t *testing.T, args ...string) result {
	t.Helper()
	return runCmd(t, c.env, c.dir, append(append([]string(nil), c.argv...), args...)...)
}

// remote returns the flags that point a command at g explicitly.
func (g *gateway) remote(token string) []string {
	return []string{"--url", g.URL, "--token", token}
}

// decodeJSON decodes a command's stdout as one JSON value.
func decodeJSON(t *testing.T, r result) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
		t.Fatalf("stdout is not one JSON value: %v\n%s", err, r)
	}
	return v
}

// decodeJSONLines decodes a command's stdout as JSON lines.
func decodeJSONLines(t *testing.T, r result) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not a JSON object: %v: %q\n%s", err, line, r)
		}
		out = append(out, m)
	}
	return out
}
