package toolhost

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw"
	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/nodes"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/automations"
	"github.com/openclaw-go/openclaw/tools/browser"
	"github.com/openclaw-go/openclaw/tools/contentstudio"
	"github.com/openclaw-go/openclaw/tools/docextract"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
	"github.com/openclaw-go/openclaw/tools/fs"
	"github.com/openclaw-go/openclaw/tools/image"
	"github.com/openclaw-go/openclaw/tools/mateclaw"
	"github.com/openclaw-go/openclaw/tools/memory"
	"github.com/openclaw-go/openclaw/tools/message"
	"github.com/openclaw-go/openclaw/tools/office"
	"github.com/openclaw-go/openclaw/tools/pdfrender"
	"github.com/openclaw-go/openclaw/tools/sandbox"
	"github.com/openclaw-go/openclaw/tools/shell"
	"github.com/openclaw-go/openclaw/tools/sqltool"
	"github.com/openclaw-go/openclaw/tools/tts"
	"github.com/openclaw-go/openclaw/tools/web"
)

// Live is the running config as the tool host reads it: the snapshot and
// what the root derived from it (the policy chain's input and the Tool
// Guard), taken from one state so the three always agree.
type Live struct {
	Snap   *config.Snapshot
	Policy policy.Config
	Guard  *policy.Guard
}

// Agents is what the tools need from the agents service.
type Agents interface {
	// Workspace is an agent's workspace directory.
	Workspace(agentID string) (string, error)
	// SessionTools are the agents' own tools (sessions_*, subagents).
	SessionTools() []tools.Tool
	// Analyze answers the image tool (agents.defaults.imageModel).
	image.Analyzer
	// CompleteOnce makes one model call on an agent's chain (the wiki's
	// compile, enrich and explain steps).
	CompleteOnce(ctx context.Context, o agents.OneShot) (string, error)
}

// Sessions reads a session, for tools.explain's activations.
type Sessions interface {
	Get(ctx context.Context, key string) (*sessions.Session, error)
}

// ConfigWriter writes a config the gateway tool proposed, with the same
// checks and answers as config.apply (method names the caller's action).
type ConfigWriter interface {
	WriteConfig(method string, raw []byte, baseHash string, apply bool) (any, error)
	// RestoreRedacted puts back into raw the secrets config.get showed
	// redacted, from the running config cur.
	RestoreRedacted(raw []byte, cur *config.Snapshot) []byte
}

// WorkspaceTools builds tools over the callers' workspaces (skills, the
// llm-task plugin tool): what other parts add to the registry at start.
type WorkspaceTools func(workspace func(tools.Who) (string, error)) []tools.Tool

// Options are what the tool host is built from. Funcs are called at call
// time, so parts built after the tool host (the node registry, the
// channels) are reached once they exist.
type Options struct {
	Log      *slog.Logger
	StateDir string
	DB       *sql.DB // the gateway's store
	// Live is the running config; LoadOptions parses a proposed one.
	Live        func() Live
	LoadOptions func() config.LoadOptions
	// Auth is the bus's auth, for the bearer of /api/v1/tools.
	Auth func() rpc.AuthConfig
	// Addr is the listener's address, nil before the gateway listens.
	Addr     func() net.Addr
	Agents   Agents
	Sessions Sessions
	// Nodes is the node registry, nil while it is not running.
	Nodes func() *nodes.Registry
	// Messenger gives the message tools the channels.
	Messenger message.Messenger
	// Speaker gives the tts tool the channels and the speech providers;
	// nil leaves the tool saying speech is not available.
	Speaker tts.Speaker
	// Scheduler backs the automations tool.
	Scheduler automations.Scheduler
	// Approvals hears approval requests and decisions (operators on the
	// bus, chats).
	ApprovalEvents tools.ApprovalNotifier
	// Wake tells a session something happened (exec's notifyOnExit).
	Wake func(agentID, sessionKey, text string)
	// Hooks run around every call (tools.hooks and the plugins').
	Hooks tools.Hooks
	// Extra are further tools registered at start.
	Extra WorkspaceTools
	// Config writes a config for the gateway tool; Restart restarts the
	// gateway.
	Config  ConfigWriter
	Restart func()
	// SkillsDir is the workspace folder of an agent's own skills, which
	// the file tools leave to skill_manage.
	SkillsDir string
	// AuditMaxAge is how long the tool audit keeps a call (0: forever).
	AuditMaxAge func() time.Duration
	// IsChatOwner says whether a chat sender is the owner.
	IsChatOwner func(cfg *config.Config, channel, senderID string) bool
	// Getenv reads the gateway's environment, where the generation
	// providers' and WeChat's keys are; nil is os.Getenv.
	Getenv func(string) string
	// WeChatAPI and WeChatClient reach the Official Account API for
	// gzh_publish; empty, the real API through the guarded client.
	WeChatAPI    string
	WeChatClient *http.Client
	// GeneratePoll is how often a generation job is asked how far it is;
	// 0 is the tools' default.
	GeneratePoll time.Duration
}

// Host is the running tool wing.
type Host struct {
	opts      Options
	log       *slog.Logger
	runner    *tools.Runner
	turnTools *agents.RegistryTools
	policy    *policyAdapter
	approvals *tools.Approvals
	audit     *tools.SQLAudit
	execFile  *execapprovals.Store // the one exec approvals file
	procs     *shell.Processes
	sql       sqlTools
	downloads *downloads
	canvas    canvases
	browser   *browser.Manager
	sandboxes *sandbox.Manager // one for exec and the file tools: it remembers seeded workspaces
	bgWG      sync.WaitGroup   // old SQL connections closing
	closeOnce sync.Once
}

// New builds the tool registry and runner, the approvals and the audit.
func New(ctx context.Context, opts Options) (*Host, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	h := &Host{opts: opts, log: opts.Log, sandboxes: &sandbox.Manager{}}
	reg := tools.NewRegistry()
	h.procs = shell.NewProcesses()
	h.downloads = newDownloads()
	h.execFile = execapprovals.New(filepath.Join(opts.StateDir, "exec-approvals.json"))
	ap, err := tools.NewApprovals(ctx, opts.DB, opts.ApprovalEvents, h.log.With("component", "approvals"), approvalTimeout(h.cfg()))
	if err != nil {
		h.procs.Close()
		return nil, err
	}
	h.approvals = ap
	// A sandboxed caller's workspace tools act in its sandbox's folder.
	workspace := h.toolWorkspace
	execCfg := shell.Config{
		Workspace: func(who tools.Who) (string, error) { return opts.Agents.Workspace(who.AgentID) },
		Sandbox:   h.box,
		Sandboxes: h.sandboxes,
		Policy: func(agentID string) execpolicy.Policy {
			snap, err := h.execFile.Get()
			if err != nil {
				h.log.Error("read exec approvals; using the defaults", "err", err)
			}
			return snap.File.PolicyWith(agentID, configuredExec(h.cfg().Tools.Exec))
		},
		Defaults: func() shell.Settings { return execSettings(h.cfg().Tools.Exec) },
		Elevated: func(who tools.Who) bool { return elevatedAllowed(h.cfg(), who) },
		Notify: func(who tools.Who, text string) {
			opts.Wake(who.AgentID, who.SessionKey, text)
		},
		Approver: decisionApprover{ap},
		Nodes:    nodeExec{opts.Nodes},
	}
	builtins := shell.Tools(execCfg, h.procs)
	builtins = append(builtins, fs.ToolsWith(fs.Config{Workspace: workspace, ReadOnly: h.readOnly, Mount: h.mount, Remote: h.remoteFiles,
		Reserved: []fs.Reserved{{Dir: opts.SkillsDir, Use: "skills are created, edited and deleted with skill_manage"}}})...)
	webCfg := h.cfg().Tools.Web
	builtins = append(builtins, web.FetchTool(fetchConfig(webCfg.Fetch, h.log)), web.SearchTool(searchConfig(webCfg.Search, h.cfg().Plugins.Entries, h.cfg().Models.Providers, os.Getenv)))
	builtins = append(builtins, memory.Tools(workspace, opts.DB)...)
	builtins = append(builtins, h.wikiTools()...)
	builtins = append(builtins, h.sqlTools(workspace)...)
	builtins = append(builtins, docextract.Tools(workspace)...)
	// The agents service resolves the image model chain at each call, so
	// a reloaded config applies at once.
	builtins = append(builtins, image.Tool(image.Config{Workspace: workspace, Analyzer: opts.Agents}))
	builtins = append(builtins, office.Tools(office.Config{Workspace: workspace, Publish: h.publishFor})...)
	builtins = append(builtins, h.generateTools(workspace)...)
	builtins = append(builtins, pdfrender.Tools(pdfrender.Config{Workspace: workspace, Publish: h.publishFor,
		Font: sync.OnceValue(func() string { return pdfrender.FindFont(h.cfg().Tools.PdfFont) })})...)
	builtins = append(builtins, h.gatewayTool())
	builtins = append(builtins, mateclaw.Tools(time.Now, workspace)...)
	builtins = append(builtins, mateclaw.DocTool(openclaw.Docs))
	builtins = append(builtins, contentstudio.Tools(contentstudio.Config{Workspace: workspace, DB: opts.DB, Approver: ap,
		Browser:       hostBrowser{h},
		XhsCreatorURL: func() string { return h.cfg().Tools.ContentStudio.XhsCreatorURL },
		XhsProfile:    func() string { return h.cfg().Tools.ContentStudio.XhsProfile },
		Log:           h.log.With("component", "contentstudio"),
		WeChatAPI:     opts.WeChatAPI, WeChatClient: opts.WeChatClient, Getenv: opts.Getenv})...)
	builtins = append(builtins, message.Tools(opts.Messenger, workspace)...)
	builtins = append(builtins, tts.Tool(opts.Speaker))
	builtins = append(builtins, h.nodesTool(workspace, execCfg))
	builtins = append(builtins, automations.New(opts.Scheduler, gatewayDialer{}))
	builtins = append(builtins, h.canvasTool(workspace))
	builtins = append(builtins, h.browserTool(workspace))
	if opts.Extra != nil {
		builtins = append(builtins, opts.Extra(workspace)...)
	}
	if err := reg.Register(append(opts.Agents.SessionTools(), builtins...)...); err != nil {
		h.closeTools()
		return nil, fmt.Errorf("register tools: %w", err)
	}
	// OpenClaw renamed the cron tool to automations in 2026.9; models
	// trained on the old name still call it.
	reg.Alias("cron", "automations")
	for alias, canonical := range policy.MateClawNames() {
		reg.Alias(alias, canonical)
	}
	settings, err := tools.LoadSettings(ctx, opts.DB)
	if err != nil {
		h.closeTools()
		return nil, err
	}
	h.audit = &tools.SQLAudit{DB: opts.DB, Log: h.log, MaxAge: func() time.Duration {
		return opts.AuditMaxAge()
	}}
	h.runner = &tools.Runner{Registry: reg, Approver: ap, Auditor: h.audit, Log: h.log.With("component", "tools"),
		Guard: guardAdapter{h}, Hooks: opts.Hooks, Settings: settings}
	h.policy = &policyAdapter{h: h}
	h.runner.Policy = h.policy
	h.turnTools = &agents.RegistryTools{Runner: h.runner, Legacy: func() bool { return h.cfg().Tools.Disclosure.Mode == "legacy" }}
	return h, nil
}

func (h *Host) live() Live          { return h.opts.Live() }
func (h *Host) cfg() *config.Config { return h.opts.Live().Snap.Config }

// Runner runs tool calls through the whole chain.
func (h *Host) Runner() *tools.Runner { return h.runner }

// TurnTools is what a turn's model is offered.
func (h *Host) TurnTools() *agents.RegistryTools { return h.turnTools }

// Policy answers "may this caller use this tool" from the policy chain.
func (h *Host) Policy() tools.ToolSetPolicy { return h.policy }

// Approvals is the approvals store.
func (h *Host) Approvals() *tools.Approvals { return h.approvals }

// Audit is the tool audit.
func (h *Host) Audit() *tools.SQLAudit { return h.audit }

// Name implements the root's part.
func (h *Host) Name() string { return "toolhost" }

// Register serves the tools.*, approval, exec approvals, audit and
// wiki.* methods, the /api/v1/tools routes, the canvas host and the download
// links.
func (h *Host) Register(srv *rpc.Server, mux *http.ServeMux) {
	h.registerToolMethods(srv)
	h.registerApprovals(srv)
	h.registerExecApprovals(srv)
	srv.HandleFunc("audit.list", rpc.Typed(h.handleAuditList))
	h.registerWiki(srv)
	h.registerToolAdmin(srv, mux)
	mux.Handle(canvasPrefix, h.localOnly(h.canvas.host))
	mux.HandleFunc("GET /files/{token}/{name}", h.downloads.serve)
}

// Prepare has nothing to build ahead: the settings the tools were built
// with at start are handed over on commit, and a bad tools.datasources
// keeps the datasources running (as logged) rather than refusing the
// reload.
func (h *Host) Prepare(snap *config.Snapshot) (func(), error) {
	return func() {
		h.approvals.SetTimeout(approvalTimeout(snap.Config))
		h.browser.Reconfigure(browserSettings(snap.Config.Browser))
		h.syncSQLTools(snap.Config.Tools.Datasources)
	}, nil
}

// Close stops background commands, the canvas renderer, the browser and
// the SQL connections. Closing again does nothing.
func (h *Host) Close(ctx context.Context) error {
	h.closeOnce.Do(func() {
		h.closeTools()
		h.bgWG.Wait()
	})
	return nil
}

func (h *Host) closeTools() {
	h.procs.Close()
	h.closeCanvas()
	if h.browser != nil {
		h.browser.Close()
	}
	h.closeSQL()
}

// decisionApprover asks the approvals store, and reads back which allow
// the person chose.
type decisionApprover struct{ a *tools.Approvals }

func (d decisionApprover) Approve(ctx context.Context, req tools.ApprovalRequest) (bool, string, error) {
	return d.a.Approve(ctx, req)
}

// sqlTools builds SqlQueryTool and DatasourceTool from tools.datasources,
// read once at start. A bad entry turns them off with a logged reason
// rather than keeping the gateway from starting.
func (h *Host) sqlTools(workspace func(tools.Who) (string, error)) []tools.Tool {
	h.sql.workspace = workspace
	cfg := h.cfg().Tools.Datasources
	ts, closer, err := h.buildSQLTools(cfg)
	if err != nil {
		h.log.Error("tools.datasources is invalid; SqlQueryTool and DatasourceTool are off", "err", err)
		return nil
	}
	h.sql.closer, h.sql.applied = closer, cfg
	return ts
}

// approvalTimeout is tools.guard.approvalTimeoutSeconds; zero is the
// approvals' default.
func approvalTimeout(cfg *config.Config) time.Duration {
	return time.Duration(cfg.Tools.Guard.ApprovalTimeoutSeconds) * time.Second
}

// sqlTools are the SQL tools' connections and the datasources they were
// built from, replaced when a reload changes tools.datasources.
type sqlTools struct {
	mu        sync.Mutex
	workspace func(tools.Who) (string, error)
	applied   []config.ToolDatasource
	closer    io.Closer
}

// sqlToolNames are the tools tools.datasources configures.
var sqlToolNames = []string{"DatasourceTool", "SqlQueryTool"}

func (h *Host) buildSQLTools(cfg []config.ToolDatasource) ([]tools.Tool, io.Closer, error) {
	var ds []sqltool.Datasource
	for _, d := range cfg {
		driver := d.Driver
		if driver == "" {
			driver = sqltool.DriverSQLite
		}
		ds = append(ds, sqltool.Datasource{Name: d.Name, Driver: driver, DSN: d.DSN, Description: d.Description, ReadOnly: d.ReadOnly})
	}
	return sqltool.Tools(sqltool.Config{Datasources: ds, Workspace: h.sql.workspace, Approver: h.approvals})
}

// syncSQLTools rebuilds the SQL tools when a reload changed
// tools.datasources: the new pair replaces the old in the registry, and
// the old connections close once their running statements end.
func (h *Host) syncSQLTools(cfg []config.ToolDatasource) {
	h.sql.mu.Lock()
	defer h.sql.mu.Unlock()
	if (len(cfg) == 0 && len(h.sql.applied) == 0) || reflect.DeepEqual(cfg, h.sql.applied) || h.runner == nil {
		return
	}
	ts, closer, err := h.buildSQLTools(cfg)
	if err != nil {
		h.log.Error("tools.datasources is invalid; keeping the datasources the gateway has", "err", err)
		return
	}
	h.runner.Registry.Unregister(sqlToolNames...)
	if err := h.runner.Registry.Register(ts...); err != nil {
		h.log.Error("SQL tools not registered", "err", err)
	}
	if old := h.sql.closer; old != nil {
		h.bgWG.Add(1)
		go func() { defer h.bgWG.Done(); old.Close() }()
	}
	h.sql.closer, h.sql.applied = closer, cfg
	h.log.Info("datasources reloaded", "count", len(cfg))
}

// closeSQL closes the SQL tools' connections at shutdown.
func (h *Host) closeSQL() {
	h.sql.mu.Lock()
	defer h.sql.mu.Unlock()
	if h.sql.closer != nil {
		h.sql.closer.Close()
		h.sql.closer = nil
	}
}
