package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/plugins/mcp"
	"github.com/openclaw-go/openclaw/tools"
)

// parse makes a snapshot of config text.
func parse(t *testing.T, src string) *config.Snapshot {
	t.Helper()
	snap, err := config.Parse(filepath.Join(t.TempDir(), "openclaw.json"), []byte(src), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	return snap
}

// fakeAgents has one workspace per agent under a folder; unknown agents
// have none.
type fakeAgents struct {
	dir    string
	mu     sync.Mutex
	asked  []agents.OneShot
	answer string
}

func (a *fakeAgents) Workspace(agentID string) (string, error) {
	if agentID != "main" {
		return "", errors.New("unknown agent " + agentID)
	}
	return filepath.Join(a.dir, agentID), nil
}

func (a *fakeAgents) CompleteOnce(ctx context.Context, o agents.OneShot) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, o)
	return a.answer, nil
}

// liveConfig is a config a test can swap, as a reload does.
type liveConfig struct {
	mu   sync.Mutex
	snap *config.Snapshot
}

func (l *liveConfig) get() *config.Snapshot  { l.mu.Lock(); defer l.mu.Unlock(); return l.snap }
func (l *liveConfig) set(s *config.Snapshot) { l.mu.Lock(); defer l.mu.Unlock(); l.snap = s }

func newHost(t *testing.T, src string) (*Host, *liveConfig, *fakeAgents) {
	t.Helper()
	live := &liveConfig{snap: parse(t, src)}
	ag := &fakeAgents{dir: t.TempDir()}
	h := New(Options{
		Config: live.get, ConfigHooks: func() tools.Hooks { return noHooks{} },
		Log: slog.New(slog.DiscardHandler), StateDir: t.TempDir(), Agents: ag,
	})
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, live, ag
}

type noHooks struct{}

func (noHooks) BeforeTool(context.Context, tools.Call) (json.RawMessage, error) { return nil, nil }
func (noHooks) AfterTool(_ context.Context, _ tools.Call, res tools.Result) tools.Result {
	return res
}

func TestMCPConfigs(t *testing.T) {
	on := true
	for _, tc := range []struct {
		name, src string
		want      []mcp.ServerConfig
	}{
		{"none", `{}`, nil},
		{"sorted by name, every field carried", `{ mcp: { servers: {
			zeta: { url: "http://127.0.0.1:9/mcp", headers: { "X-Key": "k" }, connectionTimeoutMs: 1500, requestTimeoutMs: 2500 },
			alpha: { command: "srv", args: ["-v"], env: { A: "1" }, cwd: "/tmp", enabled: true, toolFilter: { include: ["a*"], exclude: ["ab"] } },
		} } }`, []mcp.ServerConfig{
			{Name: "alpha", Command: "srv", Args: []string{"-v"}, Env: map[string]string{"A": "1"}, Cwd: "/tmp", Enabled: &on,
				Include: []string{"a*"}, Exclude: []string{"ab"}},
			{Name: "zeta", URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"X-Key": "k"},
				ConnectTimeout: 1500 * time.Millisecond, RequestTimeout: 2500 * time.Millisecond},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mcpConfigs(parse(t, tc.src).Config); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestRegisterServesItsMethods: the wing serves mcp.status and
// skills.status, both to any operator that may read, and nothing else.
func TestRegisterServesItsMethods(t *testing.T) {
	h, _, _ := newHost(t, `{}`)
	srv := rpc.NewServer(rpc.Options{})
	h.Register(srv, nil)
	var got []string
	for _, e := range srv.Table() {
		got = append(got, e.Method+" "+string(e.Scope)+" "+e.Owner)
	}
	want := []string{"mcp.status operator.read gateway/pluginhost", "skills.status operator.read gateway/pluginhost"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("methods %v, want %v", got, want)
	}
}

// mcpState is the state mcp.status shows for a server.
func mcpState(h *Host, name string) string {
	for _, s := range h.mcpStatus().Servers {
		if s.Name == name {
			return s.State
		}
	}
	return ""
}

// TestPrepareStartsNothing: a reload's Prepare leaves the servers as
// they are; only its commit starts the new one. Before Start and after
// Close a commit does nothing.
func TestPrepareStartsNothing(t *testing.T) {
	h, live, _ := newHost(t, `{}`)
	withServer := parse(t, `{ mcp: { servers: { late: { command: "/nonexistent/openclaw-test-mcp" } } } }`)

	commit, err := h.Prepare(withServer)
	if err != nil || commit == nil {
		t.Fatalf("Prepare: %v, commit %v", err, commit != nil)
	}
	live.set(withServer)
	commit() // not started yet: Start reads the config it runs with
	if st := h.mcp.mgr.Status(); len(st) != 0 {
		t.Fatalf("a commit before Start ran servers: %+v", st)
	}

	live.set(parse(t, `{}`))
	h.Start(context.Background())
	commit, err = h.Prepare(withServer)
	if err != nil {
		t.Fatal(err)
	}
	// Syncs run in the background; wait for Start's before looking.
	h.syncing.Wait()
	if st := h.mcp.mgr.Status(); len(st) != 0 {
		t.Fatalf("Prepare started servers: %+v", st)
	}
	live.set(withServer)
	commit()
	h.syncing.Wait()
	if st := h.mcp.mgr.Status(); len(st) != 1 || st[0].Name != "late" {
		t.Fatalf("the commit did not start the new server: %+v", st)
	}
	if s := mcpState(h, "late"); s == "" {
		t.Fatal("mcp.status has no row for the new server")
	}

	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	commit, _ = h.Prepare(parse(t, `{ mcp: { servers: { other: { command: "/nonexistent/x" } } } }`))
	commit()
	h.syncing.Wait()
	if st := h.mcp.mgr.Status(); len(st) != 0 {
		t.Fatalf("a commit after Close ran servers: %+v", st)
	}
}

// recordingHooks records the order hooks run in and rewrites as told.
type recordingHooks struct {
	name    string
	log     *[]string
	rewrite json.RawMessage
	block   error
	suffix  string
}

func (r recordingHooks) BeforeTool(_ context.Context, call tools.Call) (json.RawMessage, error) {
	*r.log = append(*r.log, r.name+" before "+string(call.Args))
	return r.rewrite, r.block
}

func (r recordingHooks) AfterTool(_ context.Context, _ tools.Call, res tools.Result) tools.Result {
	*r.log = append(*r.log, r.name+" after "+res.Text)
	res.Text += r.suffix
	return res
}

// TestChainedHooks: before a call the config's hooks go first and the
// plugins see their rewrite; after it the plugins go first and the
// config has the last word.
func TestChainedHooks(t *testing.T) {
	for _, tc := range []struct {
		name             string
		config, plugins  recordingHooks
		wantArgs, wantEr string
		wantLog          []string
	}{
		{name: "nobody rewrites", wantLog: []string{"config before {}", "plugins before {}"}},
		{name: "the config rewrites, the plugins see it",
			config:   recordingHooks{rewrite: json.RawMessage(`{"x":"[redacted]"}`)},
			wantArgs: `{"x":"[redacted]"}`, wantLog: []string{"config before {}", `plugins before {"x":"[redacted]"}`}},
		{name: "a plugin's rewrite wins",
			config:   recordingHooks{rewrite: json.RawMessage(`{"a":1}`)},
			plugins:  recordingHooks{rewrite: json.RawMessage(`{"a":2}`)},
			wantArgs: `{"a":2}`, wantLog: []string{"config before {}", `plugins before {"a":1}`}},
		{name: "a config block stops the plugins",
			config: recordingHooks{block: errors.New("blocked by tools.hooks")},
			wantEr: "blocked by tools.hooks", wantLog: []string{"config before {}"}},
		{name: "a plugin block",
			plugins: recordingHooks{block: errors.New("blocked by plugin demo")},
			wantEr:  "blocked by plugin demo", wantLog: []string{"config before {}", "plugins before {}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			tc.config.name, tc.config.log = "config", &log
			tc.plugins.name, tc.plugins.log = "plugins", &log
			h := chainedHooks{config: func() tools.Hooks { return tc.config }, plugins: tc.plugins}
			args, err := h.BeforeTool(context.Background(), tools.Call{Name: "exec", Args: json.RawMessage(`{}`)})
			if (err == nil) != (tc.wantEr == "") || (err != nil && err.Error() != tc.wantEr) {
				t.Fatalf("err %v, want %q", err, tc.wantEr)
			}
			if string(args) != tc.wantArgs || !reflect.DeepEqual(log, tc.wantLog) {
				t.Fatalf("args %s log %q, want %s %q", args, log, tc.wantArgs, tc.wantLog)
			}
		})
	}
	var log []string
	h := chainedHooks{
		config:  func() tools.Hooks { return recordingHooks{name: "config", log: &log, suffix: " [config]"} },
		plugins: recordingHooks{name: "plugins", log: &log, suffix: " [plugin]"},
	}
	res := h.AfterTool(context.Background(), tools.Call{Name: "exec"}, tools.Result{Text: "out"})
	if res.Text != "out [plugin] [config]" || !reflect.DeepEqual(log, []string{"plugins after out", "config after out [plugin]"}) {
		t.Fatalf("after: %q, log %q", res.Text, log)
	}
}

// fakeRegistry holds named tools.
type fakeRegistry struct{ tools map[string]tools.Tool }

func (r *fakeRegistry) Get(name string) (tools.Tool, bool) { t, ok := r.tools[name]; return t, ok }
func (r *fakeRegistry) Register(ts ...tools.Tool) error {
	for _, t := range ts {
		r.tools[t.Spec().Name] = t
	}
	return nil
}
func (r *fakeRegistry) Unregister(names ...string) {
	for _, n := range names {
		delete(r.tools, n)
	}
}

type ctxKey struct{}

// fakePolicy denies the tools it names and records the contexts it is
// asked under.
type fakePolicy struct {
	deny map[string]bool
	ctxs []any
}

func (p *fakePolicy) Allowed(ctx context.Context, _ tools.Who, s tools.Spec) (bool, string) {
	p.ctxs = append(p.ctxs, ctx.Value(ctxKey{}))
	return !p.deny[s.Name], ""
}

// fakeRunner records the calls it runs.
type fakeRunner struct {
	calls []tools.Call
	ctxs  []any
}

func (r *fakeRunner) Run(ctx context.Context, call tools.Call) tools.Result {
	r.calls, r.ctxs = append(r.calls, call), append(r.ctxs, ctx.Value(ctxKey{}))
	return tools.Result{Text: "ran"}
}

func writeSkill(t *testing.T, dir, name, description string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + name + "\ndescription: " + description + "\n---\nDo it.\n"
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSkillDirectory: the directory lists the agent's skills, asks the
// policy under the turn's context, and is empty for an agent that may not
// load skills, or before the wing has its tools.
func TestSkillDirectory(t *testing.T) {
	h, _, ag := newHost(t, `{ skills: { entries: { muted: { enabled: false } } } }`)
	ws := filepath.Join(ag.dir, "main", WorkspaceSkills)
	writeSkill(t, ws, "weather", "Forecasts for a city")
	writeSkill(t, ws, "muted", "Switched off")
	ctx := context.WithValue(context.Background(), ctxKey{}, "turn")

	if dir := h.SkillDirectory(ctx, "main"); dir != "" {
		t.Fatalf("a directory before UseTools: %q", dir)
	}
	reg := &fakeRegistry{tools: map[string]tools.Tool{}}
	pol := &fakePolicy{deny: map[string]bool{}}
	h.UseTools(reg, &fakeRunner{}, pol)
	reg.Register(h.SkillTools(func(who tools.Who) (string, error) { return ag.Workspace(who.AgentID) })...)

	dir := h.SkillDirectory(ctx, "main")
	if !strings.HasPrefix(dir, "## Skills\n") || !strings.Contains(dir, "- weather: Forecasts for a city") || strings.Contains(dir, "muted") {
		t.Fatalf("directory:\n%s", dir)
	}
	if !reflect.DeepEqual(pol.ctxs, []any{"turn"}) {
		t.Fatalf("the policy was asked under %v, not the turn's context", pol.ctxs)
	}
	pol.deny["load_skill"] = true
	if dir := h.SkillDirectory(ctx, "main"); dir != "" {
		t.Fatalf("a directory with load_skill denied: %q", dir)
	}
}

// skills.limits.maxSkillsPromptChars caps the directory: skills past it
// are counted in one line.
func TestSkillDirectoryLimit(t *testing.T) {
	for _, tc := range []struct {
		limit    string
		listed   int
		withNote bool
	}{{"", 5, false}, {"skills: {limits: {maxSkillsPromptChars: 260}},", 1, true}} {
		h, _, ag := newHost(t, `{`+tc.limit+`}`)
		ws := filepath.Join(ag.dir, "main", WorkspaceSkills)
		for _, n := range []string{"a1", "a2", "a3", "a4", "a5"} {
			writeSkill(t, ws, n, "A skill with a description of some length")
		}
		reg := &fakeRegistry{tools: map[string]tools.Tool{}}
		h.UseTools(reg, &fakeRunner{}, &fakePolicy{deny: map[string]bool{}})
		reg.Register(h.SkillTools(func(who tools.Who) (string, error) { return ag.Workspace(who.AgentID) })...)
		dir := h.SkillDirectory(context.Background(), "main")
		if got := strings.Count(dir, ": A skill"); got != tc.listed || strings.Contains(dir, "more skills not listed") != tc.withNote || (tc.withNote && len(dir) > 260) {
			t.Fatalf("limit %q: %d listed (%d chars):\n%s", tc.limit, got, len(dir), dir)
		}
	}
}

// TestSkillScriptRunsAsExec: a skill script is an exec call of the
// quoted command line, on the caller's behalf and context, so exec's
// policy, guard and approvals decide.
func TestSkillScriptRunsAsExec(t *testing.T) {
	h, _, _ := newHost(t, `{}`)
	run := &fakeRunner{}
	h.UseTools(&fakeRegistry{tools: map[string]tools.Tool{}}, run, &fakePolicy{})
	ctx := context.WithValue(context.Background(), ctxKey{}, "call")
	who := tools.Who{AgentID: "main", SessionKey: "agent:main:main"}
	out, _, code, err := skillRunner{h}.Run(ctx, who, []string{"/skills/weather/scripts/forecast.sh", "Paris; echo 'pwned'"}, "/ws", []string{"SKILL_NAME=weather"}, 90*time.Second)
	if err != nil || out != "ran" || code != 0 {
		t.Fatalf("Run: %q %d %v", out, code, err)
	}
	if len(run.calls) != 1 || run.ctxs[0] != "call" {
		t.Fatalf("calls %+v under %v", run.calls, run.ctxs)
	}
	c := run.calls[0]
	var args map[string]any
	if err := json.Unmarshal(c.Args, &args); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"command": `'/skills/weather/scripts/forecast.sh' 'Paris; echo '\''pwned'\'''`, "timeoutSeconds": 90.0, "yieldMs": 90000.0}
	if c.Name != "exec" || !reflect.DeepEqual(c.Who, who) || !reflect.DeepEqual(args, want) {
		t.Fatalf("call %s %+v %v, want exec %v", c.Name, c.Who, args, want)
	}
}

// TestLLMTaskTool: llm-task exists only when plugins.entries.llm-task
// enables it, and asks the caller's agent.
func TestLLMTaskTool(t *testing.T) {
	h, _, _ := newHost(t, `{}`)
	if _, ok := h.LLMTaskTool(); ok {
		t.Fatal("llm-task without plugins.entries.llm-task.enabled")
	}
	h, _, ag := newHost(t, `{ plugins: { entries: { "llm-task": { enabled: true } } } }`)
	tool, ok := h.LLMTaskTool()
	if !ok || tool.Spec().Name != "llm-task" {
		t.Fatalf("llm-task enabled: %v %v", tool, ok)
	}
	ag.answer = `{"ok":true}`
	res, err := tool.Call(context.Background(), tools.Call{Name: "llm-task", Args: json.RawMessage(`{"prompt":"triage"}`), Who: tools.Who{AgentID: "main"}})
	if err != nil || res.IsError || len(ag.asked) != 1 || ag.asked[0].AgentID != "main" {
		t.Fatalf("llm-task call: %+v %v, asked %+v", res, err, ag.asked)
	}
}

// TestSkillsStatusBadParams: params skills.status cannot read are an
// INVALID_REQUEST naming the method.
func TestSkillsStatusBadParams(t *testing.T) {
	h, _, _ := newHost(t, `{}`)
	_, err := rpc.Typed(h.skillsStatus)(context.Background(), &rpc.Request{Method: "skills.status", Params: json.RawMessage(`{"agentId":5}`)})
	var perr *protocol.Error
	if !errors.As(err, &perr) || perr.Code != protocol.CodeInvalidRequest || !strings.Contains(err.Error(), "skills.status") {
		t.Fatalf("bad params: %v", err)
	}
}
