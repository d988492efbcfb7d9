package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/plugins/internal/plugintest"
	"github.com/openclaw-go/openclaw/plugins/mcp/testdata/mcpserver/testserver"
	"github.com/openclaw-go/openclaw/tools"
)

// serverBin is the stdio test server, built once.
var serverBin string

func TestMain(m *testing.M) { plugintest.Main(m, "./testdata/mcpserver", &serverBin) }

func newManager(t *testing.T, onChange func()) *Manager {
	t.Helper()
	m := NewManager(nil, onChange)
	m.MinBackoff, m.MaxBackoff = 20*time.Millisecond, 200*time.Millisecond
	t.Cleanup(m.Close)
	return m
}

func stdio(name string, env ...string) ServerConfig {
	c := ServerConfig{Name: name, Command: serverBin}
	if len(env) > 0 {
		c.Env = map[string]string{}
		for i := 0; i+1 < len(env); i += 2 {
			c.Env[env[i]] = env[i+1]
		}
	}
	return c
}

func status(m *Manager, name string) ServerStatus {
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	return ServerStatus{}
}

func waitReady(t *testing.T, m *Manager, name string) ServerStatus {
	t.Helper()
	plugintest.WaitFor(t, name+" ready", func() bool { return status(m, name).State == StateReady })
	return status(m, name)
}

func call(t *testing.T, tl tools.Tool, args string) tools.Result {
	t.Helper()
	res, err := tl.Call(t.Context(), tools.Call{Name: tl.Spec().Name, Args: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("call %s: %v", tl.Spec().Name, err)
	}
	return res
}

// checkTools calls the test server's tools through m under prefix.
func checkTools(t *testing.T, m *Manager, prefix string) {
	t.Helper()
	if r := call(t, plugintest.FindTool(t, m, prefix+"__echo"), `{"text":"hi"}`); r.Text != "hi" || r.IsError {
		t.Errorf("echo = %+v", r)
	}
	if r := call(t, plugintest.FindTool(t, m, prefix+"__add"), `{"a":2,"b":3}`); r.Text != "5" || r.IsError {
		t.Errorf("add = %+v", r)
	}
	if r := call(t, plugintest.FindTool(t, m, prefix+"__boom"), ``); !r.IsError || r.Text != "boom failed" {
		t.Errorf("boom = %+v", r)
	}
	r := call(t, plugintest.FindTool(t, m, prefix+"__picture"), `{}`)
	if r.IsError || r.Text != "a picture" || len(r.Images) != 1 {
		t.Fatalf("picture = %+v", r)
	}
	if img := r.Images[0]; img.MediaType != "image/png" || !bytes.Equal(img.Data, testserver.PNG()) {
		t.Errorf("picture image = %s %d bytes", img.MediaType, len(img.Data))
	}
}

func TestStdioServer(t *testing.T) {
	m := newManager(t, nil)
	if err := m.Sync(t.Context(), []ServerConfig{stdio("test")}); err != nil {
		t.Fatal(err)
	}
	st := waitReady(t, m, "test")
	if st.Transport != "stdio" || st.PID == 0 || st.Tools != 6 {
		t.Errorf("status = %+v", st)
	}
	want := []string{"test__add", "test__boom", "test__echo", "test__grow", "test__picture", "test__slow"}
	if got := plugintest.ToolNames(m); !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	spec := plugintest.FindTool(t, m, "test__echo").Spec()
	if spec.Source != tools.SourceMCP || spec.Tier != tools.TierExtension ||
		!slices.Equal(spec.Groups, []string{"group:plugins", "mcp:test"}) ||
		spec.Description != "[mcp:test] echoes text" || spec.Timeout != DefaultRequestTimeout {
		t.Errorf("spec = %+v", spec)
	}
	// A tool the server does not call read-only is dangerous: a chat
	// stranger's call waits for a person.
	if !spec.Dangerous || plugintest.FindTool(t, m, "test__add").Spec().Dangerous {
		t.Errorf("dangerous: echo %v (no annotations), add %v (readOnlyHint)", spec.Dangerous, plugintest.FindTool(t, m, "test__add").Spec().Dangerous)
	}
	var schema struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil || schema.Type != "object" || schema.Properties["text"] == nil {
		t.Errorf("parameters = %s (%v)", spec.Parameters, err)
	}
	checkTools(t, m, "test")
}

func TestHTTPServer(t *testing.T) {
	srv := testserver.New(testserver.Options{})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0k" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()

	m := newManager(t, nil)
	cfg := ServerConfig{Name: "web", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer t0k"}}
	if err := m.Sync(t.Context(), []ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	if st := waitReady(t, m, "web"); st.Transport != "http" || st.Tools != 6 || st.PID != 0 {
		t.Errorf("status = %+v", st)
	}
	checkTools(t, m, "web")
	m.Close()
	if st := m.Status(); len(st) != 0 {
		t.Errorf("status after close = %+v", st)
	}
}

func TestCrashRestart(t *testing.T) {
	m := newManager(t, nil)
	m.MinBackoff = 300 * time.Millisecond
	if err := m.Sync(t.Context(), []ServerConfig{stdio("c", "MCPTEST_CRASH_AFTER", "2")}); err != nil {
		t.Fatal(err)
	}
	first := waitReady(t, m, "c")
	echo := plugintest.FindTool(t, m, "c__echo")
	if r := call(t, echo, `{"text":"one"}`); r.Text != "one" {
		t.Fatalf("first echo = %+v", r)
	}
	// The second call kills the server: an error, never a hang.
	res, err := echo.Call(t.Context(), tools.Call{Args: json.RawMessage(`{"text":"two"}`)})
	if err == nil && !res.IsError {
		t.Fatalf("call to crashing server = %+v", res)
	}
	plugintest.WaitFor(t, "failed state with error", func() bool {
		st := status(m, "c")
		return st.State == StateFailed && st.Error != ""
	})
	// Meanwhile its tools stay listed and say it is reconnecting.
	if r := call(t, echo, `{"text":"x"}`); !r.IsError || !strings.Contains(r.Text, "reconnecting") {
		t.Errorf("call while down = %+v", r)
	}
	plugintest.WaitFor(t, "restart", func() bool {
		st := status(m, "c")
		return st.State == StateReady && st.Restarts >= 1
	})
	if st := status(m, "c"); st.PID == first.PID || st.Error != "" {
		t.Errorf("after restart status = %+v (first pid %d)", st, first.PID)
	}
	if r := call(t, plugintest.FindTool(t, m, "c__echo"), `{"text":"three"}`); r.Text != "three" {
		t.Errorf("echo after restart = %+v", r)
	}
}

func TestListChanged(t *testing.T) {
	var changes atomic.Int32
	m := newManager(t, func() { changes.Add(1) })
	if err := m.Sync(t.Context(), []ServerConfig{stdio("g")}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, "g")
	plugintest.WaitFor(t, "first onChange", func() bool { return changes.Load() >= 1 })
	before := changes.Load()
	if r := call(t, plugintest.FindTool(t, m, "g__grow"), `{}`); r.Text != "grown" {
		t.Fatalf("grow = %+v", r)
	}
	plugintest.WaitFor(t, "g__extra", func() bool { return slices.Contains(plugintest.ToolNames(m), "g__extra") })
	plugintest.WaitFor(t, "onChange after list_changed", func() bool { return changes.Load() > before })
	if r := call(t, plugintest.FindTool(t, m, "g__extra"), `{}`); r.Text != "extra here" {
		t.Errorf("extra = %+v", r)
	}
	if st := status(m, "g"); st.Tools != 7 {
		t.Errorf("status tools = %d, want 7", st.Tools)
	}
}

func TestSlowToolTimeout(t *testing.T) {
	m := newManager(t, nil)
	cfg := stdio("s")
	cfg.RequestTimeout = 200 * time.Millisecond
	if err := m.Sync(t.Context(), []ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, "s")
	slow := plugintest.FindTool(t, m, "s__slow")
	if slow.Spec().Timeout != 200*time.Millisecond {
		t.Errorf("spec timeout = %v", slow.Spec().Timeout)
	}
	start := time.Now()
	if _, err := slow.Call(t.Context(), tools.Call{Args: json.RawMessage(`{}`)}); err == nil {
		t.Error("slow call past the request timeout succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("timed-out call took %v", d)
	}

	// The caller's ctx is honoured too.
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := slow.Call(ctx, tools.Call{Args: json.RawMessage(`{"ms":5000}`)}); err == nil {
		t.Error("cancelled call succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancelled call took %v", d)
	}
	// The session survives a cancelled call.
	if r := call(t, plugintest.FindTool(t, m, "s__slow"), `{"ms":1}`); r.Text != "slept" {
		t.Errorf("short slow = %+v", r)
	}
}

func TestToolFilter(t *testing.T) {
	m := newManager(t, nil)
	cfg := stdio("f")
	cfg.Include = []string{"e*", "a*", "picture"}
	cfg.Exclude = []string{"echo"}
	if err := m.Sync(t.Context(), []ServerConfig{cfg}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, "f")
	if got, want := plugintest.ToolNames(m), []string{"f__add", "f__picture"}; !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
}

func TestSyncAddRemove(t *testing.T) {
	var changes atomic.Int32
	m := newManager(t, func() { changes.Add(1) })
	off := false
	disabled := stdio("off")
	disabled.Enabled = &off
	if err := m.Sync(t.Context(), []ServerConfig{stdio("a"), stdio("b"), disabled}); err != nil {
		t.Fatal(err)
	}
	a := waitReady(t, m, "a")
	waitReady(t, m, "b")
	if st := m.Status(); len(st) != 2 {
		t.Errorf("status = %+v, want a and b only", st)
	}
	if n := len(m.Tools()); n != 12 {
		t.Errorf("%d tools, want 12", n)
	}
	before := changes.Load()
	if err := m.Sync(t.Context(), []ServerConfig{stdio("a")}); err != nil {
		t.Fatal(err)
	}
	for _, n := range plugintest.ToolNames(m) {
		if !strings.HasPrefix(n, "a__") {
			t.Errorf("tool %s left after its server was removed", n)
		}
	}
	if changes.Load() == before {
		t.Error("onChange not called on removal")
	}
	if st := status(m, "a"); st.PID != a.PID {
		t.Errorf("unchanged server restarted: pid %d -> %d", a.PID, st.PID)
	}
	// A changed config restarts the server.
	changed := stdio("a")
	changed.Exclude = []string{"boom"}
	if err := m.Sync(t.Context(), []ServerConfig{changed}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, "a")
	if slices.Contains(plugintest.ToolNames(m), "a__boom") || len(m.Tools()) != 5 {
		t.Errorf("tools after change = %v", plugintest.ToolNames(m))
	}
}

func TestSyncInvalid(t *testing.T) {
	m := newManager(t, nil)
	err := m.Sync(t.Context(), []ServerConfig{
		{Name: "none"},
		{Name: "both", Command: "x", URL: "http://x"},
		{Command: "x"},
		{Name: "glob", Command: "x", Include: []string{"["}},
		stdio("ok"), stdio("ok"),
	})
	if err == nil {
		t.Fatal("invalid configs accepted")
	}
	for _, want := range []string{`"none"`, `"both"`, "empty name", `"glob"`, "configured twice"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if st := m.Status(); len(st) != 0 {
		t.Errorf("a rejected sync started servers: %+v", st)
	}
}

func TestFailingCommand(t *testing.T) {
	m := newManager(t, nil)
	if err := m.Sync(t.Context(), []ServerConfig{{Name: "bad", Command: filepath.Join(t.TempDir(), "missing")}}); err != nil {
		t.Fatal(err)
	}
	plugintest.WaitFor(t, "failed", func() bool {
		st := status(m, "bad")
		return st.State == StateFailed && st.Error != ""
	})
	if n := len(m.Tools()); n != 0 {
		t.Errorf("%d tools from a server that never started", n)
	}
}

func TestHTTPServerRestart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	serve := func(ln net.Listener) *http.Server {
		srv := testserver.New(testserver.Options{})
		hs := &http.Server{Handler: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)}
		go hs.Serve(ln)
		return hs
	}
	hs := serve(ln)
	m := newManager(t, nil)
	m.MinBackoff = 300 * time.Millisecond
	if err := m.Sync(t.Context(), []ServerConfig{{Name: "h", URL: "http://" + addr}}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, "h")
	hs.Close()

	// The first call finds the server gone: an error result saying it
	// reconnects, and the state leaves ready.
	echo := plugintest.FindTool(t, m, "h__echo")
	if r := call(t, echo, `{"text":"a"}`); !r.IsError || !strings.Contains(r.Text, "reconnecting") {
		t.Errorf("call while down = %+v", r)
	}
	plugintest.WaitFor(t, "not ready", func() bool { return status(m, "h").State != StateReady })

	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	hs = serve(ln)
	defer hs.Close()
	plugintest.WaitFor(t, "reconnected", func() bool {
		st := status(m, "h")
		return st.State == StateReady && st.Restarts >= 1
	})
	if r := call(t, echo, `{"text":"back"}`); r.Text != "back" {
		t.Errorf("call after restart = %+v", r)
	}
}

func TestServerErrorKeepsSession(t *testing.T) {
	m := newManager(t, nil)
	if err := m.Sync(t.Context(), []ServerConfig{stdio("e")}); err != nil {
		t.Fatal(err)
	}
	st := waitReady(t, m, "e")
	// A tool the server does not know: the server answers with a JSON-RPC
	// error, which is the call's failure, not the session's.
	ghost := &remoteTool{conn: plugintest.FindTool(t, m, "e__echo").(*remoteTool).conn, remote: "ghost"}
	if _, err := ghost.Call(t.Context(), tools.Call{}); err == nil {
		t.Error("call of an unknown tool succeeded")
	}
	if now := status(m, "e"); now.State != StateReady || now.PID != st.PID {
		t.Errorf("session dropped after a server error: %+v", now)
	}
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	m := NewManager(nil, nil)
	if err := m.Sync(t.Context(), []ServerConfig{stdio("l")}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, m, "l")
	m.Close()
	m.Close()
	plugintest.WaitFor(t, "goroutines to exit", func() bool { return runtime.NumGoroutine() <= before })
	if err := m.Sync(t.Context(), []ServerConfig{stdio("l")}); err == nil {
		t.Error("Sync after Close succeeded")
	}
}
