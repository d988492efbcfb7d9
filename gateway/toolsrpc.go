package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/gateway/pluginhost"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/policy/execpolicy"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/docextract"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
	"github.com/openclaw-go/openclaw/tools/fs"
	"github.com/openclaw-go/openclaw/tools/mateclaw"
	"github.com/openclaw-go/openclaw/tools/memory"
	"github.com/openclaw-go/openclaw/tools/message"
	"github.com/openclaw-go/openclaw/tools/office"
	"github.com/openclaw-go/openclaw/tools/pdfrender"
	"github.com/openclaw-go/openclaw/tools/shell"
	"github.com/openclaw-go/openclaw/tools/sqltool"
	"github.com/openclaw-go/openclaw/tools/web"
)

// wireTools builds the tool registry and runner, hands them to the
// agents, and serves the approval methods.
func (s *System) wireTools(ctx context.Context, st *store.Store) error {
	reg := tools.NewRegistry()
	s.procs = shell.NewProcesses()
	s.downloads = newDownloads()
	approvalsFile := execapprovals.New(filepath.Join(s.opts.StateDir, "exec-approvals.json"))
	builtins := shell.Tools(shell.Config{
		Workspace: func(who tools.Who) (string, error) { return s.agents.Workspace(who.AgentID) },
		Policy: func(agentID string) execpolicy.Policy {
			snap, err := approvalsFile.Get()
			if err != nil {
				s.log.Error("read exec approvals; using the defaults", "err", err)
			}
			return snap.File.PolicyWith(agentID, configuredExec(s.current().snap.Config.Tools.Exec))
		},
		Defaults: func() shell.Settings { return execSettings(s.current().snap.Config.Tools.Exec) },
		Elevated: func(who tools.Who) bool { return elevatedAllowed(s.current().snap.Config.Tools.Elevated, who) },
		Notify: func(who tools.Who, text string) {
			s.wake(who.AgentID, who.SessionKey, cron.WakeNow, text)
		},
		Approver: approverLater{s},
		Nodes:    nodeExec{s},
	}, s.procs)
	workspace := func(who tools.Who) (string, error) { return s.agents.Workspace(who.AgentID) }
	builtins = append(builtins, fs.Tools(workspace, fs.Reserved{Dir: pluginhost.WorkspaceSkills, Use: "skills are created, edited and deleted with skill_manage"})...)
	webCfg := s.current().snap.Config.Tools.Web
	builtins = append(builtins, web.FetchTool(fetchConfig(webCfg.Fetch, s.log)), web.SearchTool(searchConfig(webCfg.Search, s.current().snap.Config.Plugins.Entries, os.Getenv)))
	builtins = append(builtins, memory.Tools(workspace, st.DB)...)
	builtins = append(builtins, s.sqlTools(workspace)...)
	builtins = append(builtins, docextract.Tools(workspace)...)
	builtins = append(builtins, s.imageTool(workspace))
	builtins = append(builtins, office.Tools(office.Config{Workspace: workspace, Publish: s.publishFor})...)
	builtins = append(builtins, pdfrender.Tools(pdfrender.Config{Workspace: workspace, Publish: s.publishFor,
		Font: sync.OnceValue(func() string { return pdfrender.FindFont(s.current().snap.Config.Tools.PdfFont) })})...)
	builtins = append(builtins, s.gatewayTool())
	builtins = append(builtins, mateclaw.Tools(time.Now, workspace)...)
	builtins = append(builtins, message.Tools(s.channels.Messenger(), workspace)...)
	builtins = append(builtins, s.nodesTool(workspace))
	builtins = append(builtins, s.automationsTool())
	builtins = append(builtins, s.canvasTool(workspace))
	builtins = append(builtins, s.browserTool(workspace))
	builtins = append(builtins, s.plugins.SkillTools(workspace)...)
	if t, ok := s.plugins.LLMTaskTool(); ok {
		builtins = append(builtins, t)
	}
	if err := reg.Register(append(s.agents.SessionTools(), builtins...)...); err != nil {
		return fmt.Errorf("register tools: %w", err)
	}
	// OpenClaw renamed the cron tool to automations in 2026.9; models
	// trained on the old name still call it.
	reg.Alias("cron", "automations")
	for alias, canonical := range policy.MateClawNames() {
		reg.Alias(alias, canonical)
	}
	ap, err := tools.NewApprovals(ctx, st.DB, s.channels.ApprovalNotifier(), s.log.With("component", "approvals"), approvalTimeout(s.current().snap.Config))
	if err != nil {
		return err
	}
	s.approvals = ap
	s.agents.UseApprovals(ap)
	s.agents.UseGatewayStatus(func() []string {
		return []string{fmt.Sprintf("OpenClaw gateway %s · up %s", s.version, time.Since(s.started).Round(time.Second))}
	})
	settings, err := tools.LoadSettings(ctx, st.DB)
	if err != nil {
		return err
	}
	s.audit = &tools.SQLAudit{DB: st.DB, Log: s.log, MaxAge: func() time.Duration {
		return keptFor(s.current().snap.Config.Gateway.Retention.ToolAudit)
	}}
	s.tools = &tools.Runner{Registry: reg, Approver: ap, Auditor: s.audit, Log: s.log.With("component", "tools"),
		Guard: guardAdapter{s}, Hooks: s.plugins.Hooks(), Settings: settings}
	s.policy = &policyAdapter{s: s}
	s.tools.Policy = s.policy
	s.turnTools = &agents.RegistryTools{Runner: s.tools, Legacy: func() bool { return s.current().snap.Config.Tools.Disclosure.Mode == "legacy" }}
	s.agents.UseTools(s.turnTools)
	s.registerToolMethods()
	s.registerExecApprovals()

	resolve := func(ctx context.Context, req *rpc.Request) (any, error) {
		var p struct {
			ID       string `json:"id"`
			Decision string `json:"decision"`
		}
		if err := req.Decode(&p); err != nil {
			return nil, err
		}
		// The short id a notice shows (/approve) names the request too.
		id, err := s.approvals.Match(ctx, p.ID)
		if err == nil {
			p.ID = id
			err = s.approvals.Resolve(ctx, p.ID, p.Decision)
		}
		if err != nil {
			if errors.Is(err, tools.ErrUnknownApproval) {
				if req.Method == "plugin.approval.resolve" {
					// OpenClaw's clients read ok:false as "no longer
					// pending" and drop the prompt.
					return map[string]any{"ok": false, "id": p.ID}, nil
				}
				return nil, protocol.Errorf(protocol.CodeApprovalNotFound, "no pending approval %q", p.ID)
			}
			return nil, protocol.InvalidParams(req.Method, err)
		}
		return map[string]any{"ok": true, "id": p.ID, "decision": p.Decision}, nil
	}
	s.srv.HandleFunc("exec.approval.resolve", resolve)
	s.srv.HandleFunc("approval.resolve", resolve)
	// The same requests in the plugin approval shape, which OpenClaw's
	// terminal UI lists and answers with its Allow/Deny prompt.
	s.srv.HandleFunc("plugin.approval.resolve", resolve)
	s.srv.HandleFunc("plugin.approval.list", func(ctx context.Context, req *rpc.Request) (any, error) {
		list, err := s.approvals.List(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, len(list))
		for _, p := range list {
			out = append(out, p.PluginApproval())
		}
		return out, nil
	})
	s.srv.HandleFunc("exec.approval.list", func(ctx context.Context, req *rpc.Request) (any, error) {
		list, err := s.approvals.List(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"approvals": list}, nil
	})
	status := func(ctx context.Context, req *rpc.Request) (any, error) {
		var p struct {
			ID string `json:"id"`
		}
		if err := req.Decode(&p); err != nil {
			return nil, err
		}
		st, decision, err := s.approvals.Status(ctx, p.ID)
		if errors.Is(err, tools.ErrUnknownApproval) {
			return nil, protocol.Errorf(protocol.CodeApprovalNotFound, "no approval %q", p.ID)
		}
		if err != nil {
			return nil, err
		}
		out := map[string]any{"id": p.ID, "status": st, "decision": nil}
		if decision != "" {
			out["decision"] = decision
		}
		return out, nil
	}
	s.srv.HandleFunc("exec.approval.waitDecision", func(ctx context.Context, req *rpc.Request) (any, error) {
		var p struct {
			ID        string `json:"id"`
			TimeoutMs int64  `json:"timeoutMs"`
		}
		if err := req.Decode(&p); err != nil {
			return nil, err
		}
		wait := 30 * time.Second
		if p.TimeoutMs > 0 {
			wait = time.Duration(p.TimeoutMs) * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		for {
			res, err := status(ctx, req)
			if err != nil || res.(map[string]any)["status"] != "pending" {
				return res, err
			}
			select {
			case <-ctx.Done():
				return res, nil // still pending: decision null
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	s.srv.Handle("approval.get", rpc.Route{Scope: protocol.ScopeApprovals, Handler: status})
	s.srv.HandleFunc("audit.list", s.handleAuditList)
	return nil
}

// registerExecApprovals serves exec.approvals.get|set over the exec
// approvals file in the state folder.
func (s *System) registerExecApprovals() {
	store := execapprovals.New(filepath.Join(s.opts.StateDir, "exec-approvals.json"))
	s.srv.HandleFunc("exec.approvals.get", func(ctx context.Context, req *rpc.Request) (any, error) {
		return store.Get()
	})
	s.srv.HandleFunc("exec.approvals.set", func(ctx context.Context, req *rpc.Request) (any, error) {
		var p struct {
			File     *execapprovals.File `json:"file"`
			BaseHash string              `json:"baseHash"`
		}
		if err := req.Decode(&p); err != nil {
			return nil, err
		}
		if p.File == nil {
			return nil, protocol.InvalidParams(req.Method, errors.New("file is required"))
		}
		snap, err := store.Set(*p.File, p.BaseHash)
		if errors.Is(err, execapprovals.ErrStale) {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "%v", err).WithDetails(map[string]any{"code": "BASE_HASH_MISMATCH", "hash": snap.Hash})
		}
		if err != nil {
			return nil, protocol.InvalidParams(req.Method, err)
		}
		return snap, nil
	})
}

// approverLater reaches the approvals store, which is built after the
// tools that need it.
type approverLater struct{ s *System }

func (a approverLater) Approve(ctx context.Context, req tools.ApprovalRequest) (bool, string, error) {
	return a.s.approvals.Approve(ctx, req)
}

// sqlTools builds SqlQueryTool and DatasourceTool from tools.datasources,
// read once at start. A bad entry turns them off with a logged reason
// rather than keeping the gateway from starting.
func (s *System) sqlTools(workspace func(tools.Who) (string, error)) []tools.Tool {
	s.sql.workspace = workspace
	cfg := s.current().snap.Config.Tools.Datasources
	ts, closer, err := s.buildSQLTools(cfg)
	if err != nil {
		s.log.Error("tools.datasources is invalid; SqlQueryTool and DatasourceTool are off", "err", err)
		return nil
	}
	s.sql.closer, s.sql.applied = closer, cfg
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

func (s *System) buildSQLTools(cfg []config.ToolDatasource) ([]tools.Tool, io.Closer, error) {
	var ds []sqltool.Datasource
	for _, d := range cfg {
		driver := d.Driver
		if driver == "" {
			driver = sqltool.DriverSQLite
		}
		ds = append(ds, sqltool.Datasource{Name: d.Name, Driver: driver, DSN: d.DSN, Description: d.Description, ReadOnly: d.ReadOnly})
	}
	return sqltool.Tools(sqltool.Config{Datasources: ds, Workspace: s.sql.workspace, Approver: approverLater{s}})
}

// syncSQLTools rebuilds the SQL tools when a reload changed
// tools.datasources: the new pair replaces the old in the registry, and
// the old connections close once their running statements end.
func (s *System) syncSQLTools(cfg []config.ToolDatasource) {
	s.sql.mu.Lock()
	defer s.sql.mu.Unlock()
	if (len(cfg) == 0 && len(s.sql.applied) == 0) || reflect.DeepEqual(cfg, s.sql.applied) || s.tools == nil {
		return
	}
	ts, closer, err := s.buildSQLTools(cfg)
	if err != nil {
		s.log.Error("tools.datasources is invalid; keeping the datasources the gateway has", "err", err)
		return
	}
	s.tools.Registry.Unregister(sqlToolNames...)
	if err := s.tools.Registry.Register(ts...); err != nil {
		s.log.Error("SQL tools not registered", "err", err)
	}
	if old := s.sql.closer; old != nil {
		s.bgWG.Add(1)
		go func() { defer s.bgWG.Done(); old.Close() }()
	}
	s.sql.closer, s.sql.applied = closer, cfg
	s.log.Info("datasources reloaded", "count", len(cfg))
}

// closeSQL closes the SQL tools' connections at shutdown.
func (s *System) closeSQL() {
	s.sql.mu.Lock()
	defer s.sql.mu.Unlock()
	if s.sql.closer != nil {
		s.sql.closer.Close()
		s.sql.closer = nil
	}
}
