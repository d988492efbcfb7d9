package extproc

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/plugins/internal/plugintest"
	"github.com/openclaw-go/openclaw/tools"
)

// pluginBin is the test plugin, built once.
var pluginBin string

func TestMain(m *testing.M) { plugintest.Main(m, "./testdata/plugin", &pluginBin) }

// testPlugin makes a plugin folder whose manifest runs the test plugin
// through a relative command, as a real one would.
func testPlugin(t *testing.T, id string, config string) Plugin {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pluginBin, filepath.Join(dir, "bin", "plugin")); err != nil {
		t.Fatal(err)
	}
	writeManifest(t, dir, `{"id":"`+id+`","command":"./bin/plugin","env":{"PLUGIN_GREETING":"hi"}}`)
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Plugin{Manifest: m, Config: json.RawMessage(config), Enabled: true}
}

func newTestManager(t *testing.T, onChange func()) *Manager {
	t.Helper()
	m := NewManager(nil, onChange)
	m.MinBackoff, m.MaxBackoff = 20*time.Millisecond, 100*time.Millisecond
	m.HookTimeout = 300 * time.Millisecond
	t.Cleanup(m.Close)
	return m
}

func status(m *Manager, id string) Status {
	for _, s := range m.Status() {
		if s.ID == id {
			return s
		}
	}
	return Status{}
}

func startPlugins(t *testing.T, m *Manager, ps ...Plugin) {
	t.Helper()
	if err := m.Sync(context.Background(), ps); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	for _, p := range ps {
		if p.Enabled {
			plugintest.WaitFor(t, p.Manifest.ID+" ready", func() bool { return status(m, p.Manifest.ID).State == StateReady })
		}
	}
}

func call(t *testing.T, m *Manager, name, args string) tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := plugintest.FindTool(t, m, name).Call(ctx, tools.Call{Name: name, Args: json.RawMessage(args), Who: tools.Who{AgentID: "main"}})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func TestToolsAndCalls(t *testing.T) {
	m := newTestManager(t, nil)
	startPlugins(t, m, testPlugin(t, "test", ""))

	want := []string{"test__crash", "test__env", "test__fail", "test__grow", "test__shout", "test__who"}
	if got := plugintest.ToolNames(m); !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	spec := plugintest.FindTool(t, m, "test__shout").Spec()
	if spec.Source != tools.SourcePlugin || spec.Tier != tools.TierExtension || spec.Timeout != 60*time.Second ||
		!slices.Equal(spec.Groups, []string{"group:plugins", "plugin:test"}) {
		t.Errorf("spec = %+v", spec)
	}
	if !strings.Contains(string(spec.Parameters), `"text"`) {
		t.Errorf("parameters = %s", spec.Parameters)
	}
	if p := plugintest.FindTool(t, m, "test__fail").Spec().Parameters; string(p) != `{"type":"object"}` {
		t.Errorf("missing schema became %s", p)
	}

	if res := call(t, m, "test__shout", `{"text":"hello"}`); res.Text != "HELLO" || res.IsError {
		t.Errorf("shout = %+v", res)
	}
	if res := call(t, m, "test__fail", `{}`); res.Text != "it failed" || !res.IsError {
		t.Errorf("fail = %+v", res)
	}
	if res := call(t, m, "test__env", ``); res.Text != "test hi" {
		t.Errorf("env = %+v", res)
	}
	// A tool not declared read-only is dangerous: a chat stranger's call
	// waits for a person. The plugin learns whether the owner calls.
	if !spec.Dangerous || plugintest.FindTool(t, m, "test__env").Spec().Dangerous {
		t.Errorf("dangerous: shout %v, env (readOnly) %v", spec.Dangerous, plugintest.FindTool(t, m, "test__env").Spec().Dangerous)
	}
	for _, owner := range []bool{false, true} {
		res, err := plugintest.FindTool(t, m, "test__who").Call(t.Context(), tools.Call{Name: "test__who", Args: json.RawMessage(`{}`),
			Who: tools.Who{AgentID: "main", SessionKey: "agent:main:main", Owner: owner}})
		if want := `"senderIsOwner":true`; err != nil || strings.Contains(res.Text, want) != owner || !strings.Contains(res.Text, `"sessionKey":"agent:main:main"`) {
			t.Errorf("who for owner=%v: %+v %v", owner, res, err)
		}
	}
	st := status(m, "test")
	if st.Tools != 6 || !plugintest.Alive(st.PID) || st.Error != "" {
		t.Errorf("status = %+v", st)
	}
}

func TestToolNames(t *testing.T) {
	cases := []struct{ name, plugin, tool, want string }{
		{"plain", "weather", "forecast", "weather__forecast"},
		{"sanitized", "w", "get/thing v2", "w__get_thing_v2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := toolName(tc.plugin, tc.tool); got != tc.want {
				t.Errorf("toolName = %q, want %q", got, tc.want)
			}
		})
	}
	long := toolName("p", strings.Repeat("x", 100))
	if len(long) != maxToolName || long == toolName("p", strings.Repeat("x", 101)) {
		t.Errorf("long names: %q", long)
	}
}

func TestHooks(t *testing.T) {
	m := newTestManager(t, nil)
	startPlugins(t, m, testPlugin(t, "test", ""))
	h := m.Hooks()
	ctx := context.Background()

	t.Run("block", func(t *testing.T) {
		_, err := h.BeforeTool(ctx, tools.Call{Name: "secret_read", Args: json.RawMessage(`{}`)})
		if err == nil || err.Error() != "secrets are off limits" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("rewrite", func(t *testing.T) {
		args, err := h.BeforeTool(ctx, tools.Call{Name: "test__shout", Args: json.RawMessage(`{"text":"password"}`)})
		if err != nil || string(args) != `{"text":"[redacted]"}` {
			t.Errorf("args = %s, err = %v", args, err)
		}
	})
	t.Run("allow", func(t *testing.T) {
		args, err := h.BeforeTool(ctx, tools.Call{Name: "test__shout", Args: json.RawMessage(`{"text":"hi"}`)})
		if err != nil || args != nil {
			t.Errorf("args = %s, err = %v", args, err)
		}
	})
	t.Run("no matching glob", func(t *testing.T) {
		// The plugin would rewrite this, but its globs do not cover exec.
		args, err := h.BeforeTool(ctx, tools.Call{Name: "exec", Args: json.RawMessage(`{"text":"password"}`)})
		if err != nil || args != nil {
			t.Errorf("args = %s, err = %v", args, err)
		}
	})
	t.Run("after text", func(t *testing.T) {
		res := h.AfterTool(ctx, tools.Call{Name: "test__shout"}, tools.Result{Text: "HI"})
		if res.Text != "HI [checked]" {
			t.Errorf("after = %+v", res)
		}
		res = h.AfterTool(ctx, tools.Call{Name: "test__fail"}, tools.Result{Text: "x", IsError: true})
		if res.Text != "x" || !res.IsError {
			t.Errorf("unhooked tool changed: %+v", res)
		}
	})
}

func TestHookToolFromConfig(t *testing.T) {
	m := newTestManager(t, nil)
	startPlugins(t, m, testPlugin(t, "test", `{"checkTool":"test__fail"}`))
	res := m.Hooks().AfterTool(context.Background(), tools.Call{Name: "test__fail"}, tools.Result{Text: "x", IsError: true})
	if res.Text != "x [checked]" || !res.IsError {
		t.Errorf("after = %+v", res)
	}
}

func TestSlowHookSkipped(t *testing.T) {
	m := newTestManager(t, nil)
	startPlugins(t, m, testPlugin(t, "test", ""))
	start := time.Now()
	args, err := m.Hooks().BeforeTool(context.Background(), tools.Call{Name: "slow_tool", Args: json.RawMessage(`{}`)})
	took := time.Since(start)
	if err != nil || args != nil {
		t.Errorf("slow hook had effect: args %s, err %v", args, err)
	}
	if took > 2*time.Second {
		t.Errorf("slow hook held the call for %v", took)
	}
	// The late answer must not upset the next call.
	if res := call(t, m, "test__shout", `{"text":"ok"}`); res.Text != "OK" {
		t.Errorf("shout after slow hook = %+v", res)
	}
}

func TestCrashRestart(t *testing.T) {
	m := newTestManager(t, nil)
	startPlugins(t, m, testPlugin(t, "test", ""))
	pid := status(m, "test").PID

	res := call(t, m, "test__crash", `{}`)
	if !res.IsError || !strings.Contains(res.Text, "restarting") {
		t.Errorf("crash = %+v", res)
	}
	// While down its tools stay and say so; hooks skip it.
	if !slices.Contains(plugintest.ToolNames(m), "test__shout") {
		t.Errorf("tools went during restart: %v", plugintest.ToolNames(m))
	}
	plugintest.WaitFor(t, "restart", func() bool {
		st := status(m, "test")
		return st.State == StateReady && st.PID != pid && st.Restarts >= 1
	})
	if plugintest.Alive(pid) {
		t.Errorf("old process %d still alive", pid)
	}
	if res := call(t, m, "test__shout", `{"text":"back"}`); res.Text != "BACK" {
		t.Errorf("after restart = %+v", res)
	}
}

func TestDownToolAnswersRestarting(t *testing.T) {
	m := newTestManager(t, nil)
	m.MinBackoff, m.MaxBackoff = time.Hour, time.Hour // stay down
	startPlugins(t, m, testPlugin(t, "test", ""))
	call(t, m, "test__crash", `{}`)
	plugintest.WaitFor(t, "restarting", func() bool { return status(m, "test").State == StateRestarting })
	if st := status(m, "test"); !strings.Contains(st.Error, "exit status 3") || st.PID != 0 {
		t.Errorf("status = %+v", st)
	}
	res := call(t, m, "test__shout", `{"text":"x"}`)
	if !res.IsError || !strings.Contains(res.Text, "restarting") {
		t.Errorf("down tool = %+v", res)
	}
	if _, err := m.Hooks().BeforeTool(context.Background(), tools.Call{Name: "secret_x"}); err != nil {
		t.Errorf("down plugin blocked: %v", err)
	}
}

func TestToolsChanged(t *testing.T) {
	var changes atomic.Int32
	m := newTestManager(t, func() { changes.Add(1) })
	startPlugins(t, m, testPlugin(t, "test", ""))
	plugintest.WaitFor(t, "first onChange", func() bool { return changes.Load() >= 1 })
	before := changes.Load()

	if res := call(t, m, "test__grow", `{}`); res.Text != "grown" {
		t.Fatalf("grow = %+v", res)
	}
	plugintest.WaitFor(t, "test__extra", func() bool { return slices.Contains(plugintest.ToolNames(m), "test__extra") })
	plugintest.WaitFor(t, "onChange after tools/changed", func() bool { return changes.Load() > before })
	if res := call(t, m, "test__extra", `{}`); res.Text != "extra here" {
		t.Errorf("extra = %+v", res)
	}
}

func TestSyncDisable(t *testing.T) {
	var changes atomic.Int32
	m := newTestManager(t, func() { changes.Add(1) })
	a, b := testPlugin(t, "a", ""), testPlugin(t, "b", "")
	startPlugins(t, m, a, b)
	pidA, pidB := status(m, "a").PID, status(m, "b").PID
	tool := plugintest.FindTool(t, m, "a__shout")
	before := changes.Load()

	a.Enabled = false
	if err := m.Sync(context.Background(), []Plugin{a, b}); err != nil {
		t.Fatal(err)
	}
	if plugintest.Alive(pidA) {
		t.Errorf("disabled plugin %d still alive", pidA)
	}
	if slices.ContainsFunc(plugintest.ToolNames(m), func(n string) bool { return strings.HasPrefix(n, "a__") }) {
		t.Errorf("disabled plugin's tools stayed: %v", plugintest.ToolNames(m))
	}
	if changes.Load() == before {
		t.Error("no onChange after disabling")
	}
	if st := m.Status(); len(st) != 1 || st[0].ID != "b" || st[0].PID != pidB {
		t.Errorf("status = %+v (b must keep its process)", st)
	}
	// A tool the registry still held answers, it does not hang.
	res, _ := tool.Call(context.Background(), tools.Call{Name: "a__shout", Args: json.RawMessage(`{}`)})
	if !res.IsError || !strings.Contains(res.Text, "stopped") {
		t.Errorf("stale tool = %+v", res)
	}
	// Changed config restarts the plugin.
	b.Config = json.RawMessage(`{"checkTool":"x"}`)
	startPlugins(t, m, b)
	if status(m, "b").PID == pidB {
		t.Error("config change kept the old process")
	}
}

func TestSyncInvalid(t *testing.T) {
	m := newTestManager(t, nil)
	p := testPlugin(t, "a", "")
	bad := Plugin{Manifest: Manifest{ID: "bad id"}, Enabled: true}
	err := m.Sync(context.Background(), []Plugin{p, p, bad})
	if err == nil || !strings.Contains(err.Error(), "configured twice") || !strings.Contains(err.Error(), "command: required") {
		t.Errorf("err = %v", err)
	}
	if len(m.Status()) != 0 {
		t.Errorf("invalid sync started plugins: %+v", m.Status())
	}
}

func TestStartFailure(t *testing.T) {
	m := newTestManager(t, nil)
	p := testPlugin(t, "gone", "")
	p.Manifest.Command = "./bin/nothing-here"
	if err := m.Sync(context.Background(), []Plugin{p}); err != nil {
		t.Fatal(err)
	}
	plugintest.WaitFor(t, "failed with error", func() bool {
		st := status(m, "gone")
		return st.Error != "" && st.Restarts >= 1
	})
}

func TestCloseLeavesNoProcess(t *testing.T) {
	goroutines := runtime.NumGoroutine()
	m := newTestManager(t, nil)
	startPlugins(t, m, testPlugin(t, "a", ""), testPlugin(t, "b", ""))
	var pids []int
	for _, s := range m.Status() {
		pids = append(pids, s.PID)
	}
	m.Close()
	m.Close()
	for _, pid := range pids {
		if plugintest.Alive(pid) {
			t.Errorf("process %d alive after Close", pid)
		}
	}
	if err := m.Sync(context.Background(), nil); err == nil {
		t.Error("Sync after Close succeeded")
	}
	if len(m.Status()) != 0 {
		t.Errorf("status after Close = %+v", m.Status())
	}
	plugintest.WaitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutines })
}
