// Package pluginhost is the gateway's side of plugins: the MCP servers of
// mcp.servers and the out-of-process plugins of plugins.load.paths (their
// tools join the tool registry and leave it as their sets change; the
// plugins' hooks run after the config's tools.hooks), the skills agents
// load (skill tools, the skill directory of the system prompt,
// skills.status), and the optional llm-task tool.
//
// Lifecycle: New builds the wing with nothing running. The tool registry
// is built with the wing's tools (SkillTools, LLMTaskTool, Hooks), so it
// comes back later through UseTools, before Start. Start runs the
// configured servers and plugins in the background: a slow or broken one
// never delays the gateway, and its tools appear when it is ready. A
// reload's Prepare only reads the new config and the plugin folders; its
// commit restarts what changed. Close stops every server and plugin.
package pluginhost

import (
	"context"
	"log/slog"
	"net/http"
	"sync"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/plugins/extproc"
	"github.com/openclaw-go/openclaw/plugins/mcp"
	"github.com/openclaw-go/openclaw/tools"
)

// Registry is the tool registry: MCP and plugin tools join and leave it,
// and the skill directory looks load_skill up in it. *tools.Registry is
// one.
type Registry interface {
	Get(name string) (tools.Tool, bool)
	Register(ts ...tools.Tool) error
	Unregister(names ...string)
}

// Runner runs a tool call through everything an agent's call goes
// through (policy, Tool Guard, approvals). *tools.Runner is one.
type Runner interface {
	Run(ctx context.Context, call tools.Call) tools.Result
}

// Policy says whether an agent may call a tool.
type Policy interface {
	Allowed(ctx context.Context, who tools.Who, spec tools.Spec) (bool, string)
}

// Agents is what the wing needs of the agents service: workspaces (for
// skills) and one-shot model calls (for llm-task). *agents.Service is one.
type Agents interface {
	Workspace(agentID string) (string, error)
	CompleteOnce(ctx context.Context, o agents.OneShot) (string, error)
}

// Options are what the wing is built from.
type Options struct {
	// Config is the live config.
	Config func() *config.Snapshot
	// ConfigHooks are the live config's tools.hooks, chained with the
	// plugins' hooks.
	ConfigHooks func() tools.Hooks
	Log         *slog.Logger
	// StateDir holds the managed skills (<state dir>/skills).
	StateDir string
	Agents   Agents
}

// Host is the plugin wing. Its methods are safe for concurrent use once
// Start has run; UseTools and Start are called once, in that order,
// before the gateway serves.
type Host struct {
	opts Options
	log  *slog.Logger
	mcp  mcpTools
	ext  extPlugins

	// Set by UseTools.
	registry Registry
	runner   Runner
	policy   Policy

	mu      sync.Mutex
	bg      context.Context // the servers' and plugins' syncs run under it; nil until Start
	stop    context.CancelFunc
	closed  bool
	syncing sync.WaitGroup
}

// New builds the wing; nothing starts until Start.
func New(opts Options) *Host {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	h := &Host{opts: opts, log: opts.Log}
	h.mcp.mgr = mcp.NewManager(h.log.With("component", "mcp"), h.refreshMCPTools)
	h.ext.mgr = extproc.NewManager(h.log.With("component", "plugins"), h.refreshExtTools)
	h.ext.hooks = h.ext.mgr.Hooks()
	return h
}

// UseTools gives the wing the tool registry, runner and policy, built
// after it (the registry holds the wing's own tools).
func (h *Host) UseTools(reg Registry, run Runner, pol Policy) {
	h.registry, h.runner, h.policy = reg, run, pol
}

// Start runs the configured MCP servers and plugins in the background,
// under ctx: when it ends, syncs still running give up waiting.
func (h *Host) Start(ctx context.Context) {
	h.mu.Lock()
	h.bg, h.stop = context.WithCancel(ctx)
	h.mu.Unlock()
	snap := h.opts.Config()
	h.syncMCP(mcpConfigs(snap.Config))
	h.syncExtPlugins(discoverPlugins(snap))
}

// Name names the wing in logs and errors.
func (h *Host) Name() string { return "pluginhost" }

// Register serves mcp.status and skills.status.
func (h *Host) Register(srv *rpc.Server, _ *http.ServeMux) {
	srv.Handle("mcp.status", rpc.Route{Scope: protocol.ScopeRead, Handler: h.handleMCPStatus})
	srv.Handle("skills.status", rpc.Route{Scope: protocol.ScopeRead, Handler: rpc.Typed(h.skillsStatus)})
}

// Prepare reads what snap configures (the MCP servers, and the plugins
// found in plugins.load.paths) and starts or stops nothing; commit then
// brings the servers and plugins in line with it. Before Start there is
// nothing to bring in line: Start reads the config it runs with.
func (h *Host) Prepare(snap *config.Snapshot) (func(), error) {
	servers := mcpConfigs(snap.Config)
	plugins := discoverPlugins(snap)
	return func() {
		h.syncMCP(servers)
		h.syncExtPlugins(plugins)
	}, nil
}

// Close waits for the syncs under way and stops every plugin and MCP
// server.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	if h.stop != nil {
		h.stop()
	}
	h.mu.Unlock()
	done := make(chan struct{})
	go func() { h.syncing.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done(): // a sync still waiting ends with ErrClosed below
	}
	h.ext.mgr.Close()
	h.mcp.mgr.Close()
	return nil
}

// started reports whether Start has run and Close has not.
func (h *Host) started() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bg != nil && !h.closed
}

// goSync runs sync in the background under the wing's lifetime, unless
// the wing has not started or is closed.
func (h *Host) goSync(sync func(ctx context.Context)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bg == nil || h.closed {
		return
	}
	ctx := h.bg
	h.syncing.Add(1)
	go func() {
		defer h.syncing.Done()
		sync(ctx)
	}()
}
