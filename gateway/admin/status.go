package admin

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

// handleLogsTail serves logs.tail over the gateway's log file.
func (w *Wing) handleLogsTail(ctx context.Context, req *rpc.Request, p logtail.Params) (*logtail.Result, error) {
	return logtail.Tail(w.opts.LogFile, p)
}

// statusHeartbeat is status.heartbeat: every agent's heartbeat.
func (w *Wing) statusHeartbeat(cfg *config.Config) map[string]any {
	var agents []any
	for _, id := range cfg.AgentIDs() {
		h := w.heartbeatSummary(cfg, id)
		agents = append(agents, map[string]any{"agentId": id, "enabled": h["enabled"], "every": h["every"], "everyMs": h["everyMs"]})
	}
	return map[string]any{"defaultAgentId": cfg.DefaultAgentID(), "agents": agents}
}

// statusParams are status's params.
type statusParams struct {
	// IncludeChannelSummary leaves channelSummary empty when false.
	// Default true.
	IncludeChannelSummary *bool `json:"includeChannelSummary"`
	// IncludeCliProjection adds the cliProjection OpenClaw's CLI reads.
	IncludeCliProjection bool `json:"includeCliProjection"`
}

// handleStatus answers in the shape of OpenClaw's status summary (the
// real CLI's `status` reads sessions.byAgent, heartbeat, tasks and the
// cliProjection; its TUI's /gwstatus sessions.defaults and recent), every
// figure read from the running state, plus this gateway's own process
// figures. As in OpenClaw, session details (paths, recent rows, the
// default model) are shown to admins only.
func (w *Wing) handleStatus(ctx context.Context, req *rpc.Request, p statusParams) (map[string]any, error) {
	snap := w.opts.Config()
	cfg := snap.Config
	now := time.Now()
	admin := req.Conn.Has(protocol.ScopeAdmin)
	storePath, paths := "[redacted]", []string{}
	if admin {
		storePath, paths = w.opts.StorePath, []string{w.opts.StorePath}
	}
	all, err := w.sessionFigures(ctx, "")
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
		st, err := w.sessionFigures(ctx, id)
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
		channelSummary = w.channelSummaryLines()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	zeroStatus := map[string]int{"queued": 0, "running": 0, "succeeded": 0, "failed": 0, "timed_out": 0, "cancelled": 0, "lost": 0}
	zeroRuntime := map[string]int{"subagent": 0, "acp": 0, "cli": 0, "cron": 0}
	out := map[string]any{
		"runtimeVersion":       w.opts.Version,
		"heartbeat":            w.statusHeartbeat(cfg),
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
			"version": w.opts.Version, "pid": os.Getpid(), "uptimeMs": time.Since(w.opts.Started).Milliseconds(),
			"bootId": w.bus.BootID(), "authMode": w.opts.AuthMode(), "connections": len(w.bus.Conns()),
			"runtime": runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH, "process": processVitals(),
		},
	}
	if w.opts.StoreStatus != nil {
		out["store"] = w.opts.StoreStatus(ctx)
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
		out["configPath"], out["stateDir"], out["logFile"] = snap.Path, w.opts.StateDir, w.opts.LogFile
	}
	return out, nil
}
