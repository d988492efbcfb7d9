package gateway

import (
	"context"
	"os"
	"runtime"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/logtail"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// registerMethods adds the gateway's own methods. Methods of later parts
// (agents, channels, nodes, cron) answer "unknown method" until they land.
func (s *System) registerMethods() {
	// health answers any authenticated connection, nodes included. These
	// reads never block, so they run inline on the connection's reader.
	s.srv.Handle("health", rpc.Route{Scope: protocol.ScopeNone, Inline: true, Handler: s.handleHealth})
	read := func(method string, h rpc.Handler) {
		s.srv.Handle(method, rpc.Route{Scope: protocol.ScopeRead, Inline: true, Handler: h})
	}
	read("status", s.handleStatus)
	read("system-presence", func(ctx context.Context, req *rpc.Request) (any, error) {
		return s.presence(), nil
	})
	read("gateway.identity.get", func(ctx context.Context, req *rpc.Request) (any, error) {
		return s.identity, nil
	})
	s.srv.HandleFunc("logs.tail", s.handleLogsTail)
	s.registerConfigMethods()
	s.registerDiagnostics()
}

func (s *System) handleLogsTail(ctx context.Context, req *rpc.Request) (any, error) {
	var p logtail.Params
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, protocol.InvalidParams(req.Method, err)
	}
	return logtail.Tail(s.logFile, p)
}

// statusHeartbeat is status.heartbeat: every agent's heartbeat.
func statusHeartbeat(cfg *config.Config) map[string]any {
	var agents []any
	for _, id := range cfg.AgentIDs() {
		h := heartbeatSummary(cfg, id)
		agents = append(agents, map[string]any{"agentId": id, "enabled": h["enabled"], "every": h["every"], "everyMs": h["everyMs"]})
	}
	return map[string]any{"defaultAgentId": cfg.DefaultAgentID(), "agents": agents}
}

// handleStatus answers in the shape of OpenClaw's status summary (the
// real CLI's `status` reads sessions.byAgent, heartbeat, tasks and the
// cliProjection; its TUI's /gwstatus sessions.defaults and recent), every
// figure read from the running state, plus this gateway's own process
// figures. As in OpenClaw, session details (paths, recent rows, the
// default model) are shown to admins only.
func (s *System) handleStatus(ctx context.Context, req *rpc.Request) (any, error) {
	var p struct {
		IncludeChannelSummary *bool `json:"includeChannelSummary"`
		IncludeCliProjection  bool  `json:"includeCliProjection"`
	}
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	l := s.current()
	cfg := l.snap.Config
	now := time.Now()
	admin := req.Conn.Has(protocol.ScopeAdmin)
	storePath, paths := "[redacted]", []string{}
	if admin {
		storePath, paths = s.storePath, []string{s.storePath}
	}
	all, err := s.sessionFigures(ctx, "")
	if err != nil {
		return nil, err
	}
	rows := func(list []sessions.Session) []any {
		out := []any{}
		if !admin {
			return out
		}
		for i := range list {
			out = append(out, statusSessionRow(cfg, &list[i], now))
		}
		return out
	}
	byAgent := []any{}
	for _, id := range cfg.AgentIDs() {
		st, err := s.sessionFigures(ctx, id)
		if err != nil {
			return nil, err
		}
		byAgent = append(byAgent, map[string]any{"agentId": id, "path": storePath, "count": st.count, "recent": rows(st.recent)})
	}
	defaults := map[string]any{"model": nil, "contextTokens": nil}
	if admin {
		defaults["model"] = nilIfBlank(cfg.PrimaryModel(cfg.DefaultAgentID()))
	}
	channelSummary := []string{}
	if p.IncludeChannelSummary == nil || *p.IncludeChannelSummary {
		channelSummary = s.channelSummaryLines()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	zeroStatus := map[string]int{"queued": 0, "running": 0, "succeeded": 0, "failed": 0, "timed_out": 0, "cancelled": 0, "lost": 0}
	zeroRuntime := map[string]int{"subagent": 0, "acp": 0, "cli": 0, "cron": 0}
	out := map[string]any{
		"runtimeVersion":       s.version,
		"heartbeat":            statusHeartbeat(cfg),
		"channelSummary":       channelSummary,
		"queuedSystemEvents":   []any{},
		"degradedSecretOwners": []any{},
		"degradedPlugins":      []any{},
		"tasks":                map[string]any{"total": 0, "active": 0, "terminal": 0, "failures": 0, "byStatus": zeroStatus, "byRuntime": zeroRuntime},
		"taskAudit": map[string]any{"total": 0, "warnings": 0, "errors": 0, "byCode": map[string]int{
			"stale_queued": 0, "stale_running": 0, "lost": 0, "delivery_failed": 0, "missing_cleanup": 0, "inconsistent_timestamps": 0,
		}},
		"sessions": map[string]any{
			"paths": paths, "count": all.count, "recent": rows(all.recent), "defaults": defaults, "byAgent": byAgent,
		},
		"pid":           os.Getpid(),
		"processMemory": processMemory(ms.HeapAlloc, ms.HeapSys),
		"gateway": map[string]any{
			"version": s.version, "pid": os.Getpid(), "uptimeMs": time.Since(s.started).Milliseconds(),
			"bootId": s.srv.BootID(), "authMode": l.auth.Mode, "connections": len(s.srv.Conns()),
			"runtime": runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH, "process": processVitals(),
		},
	}
	if p.IncludeCliProjection {
		def := cfg.DefaultAgentID()
		ownership := "sole"
		if cfg.Agents.Ownership == "explicit" {
			ownership = "explicit"
		}
		agentRows := []any{}
		for _, id := range cfg.AgentIDs() {
			row := map[string]any{"id": id}
			if e, _ := cfg.Agent(id); e.Name != "" {
				row["name"] = e.Name
			}
			agentRows = append(agentRows, row)
		}
		out["cliProjection"] = map[string]any{
			"agents":        map[string]any{"defaultId": def, "ownership": ownership, "selectionRequired": false, "rows": agentRows},
			"updateChannel": nil,
		}
	}
	if admin {
		out["configPath"], out["stateDir"], out["logFile"] = l.snap.Path, s.opts.StateDir, s.logFile
	}
	return out, nil
}
